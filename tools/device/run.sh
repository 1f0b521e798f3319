#!/usr/bin/env bash
# The one device entry of the repository: everything the GPU machine runs,
# for the GPU suite (test/gpu) and the benchmarks (bench/), as named steps.
#
#   bash tools/device/run.sh STEP...        e.g.  bash tools/device/run.sh final
#
# Each step reads what was built here first (MLIR needed; the step's file in
# tools/device/steps/ names the build command and the folder it reads, carried to
# the device tool) and writes its logs to $OUT. The exit status is 1 if any
# step failed. Steps (tools/device/steps/<file>.sh):
#   suite.sh        suite sanitize sanitize-stress edge stress
#   pipes.sh        pipes pipes-sanitize pipes-stress
#   debug_waits.sh  debug-waits debug-waits-cost
#   bench.sh        latency fence stream
#   gemm.sh         gemm gemm-ncu gemm-graph
#   attention.sh    attention attention-fa4
# Groups:
#   final = suite sanitize edge stress   (the GPU suite of RELIABILITY.md, about 2 minutes)
#   gpu   = suite sanitize sanitize-stress edge stress latency
#   pipe  = pipes pipes-sanitize pipes-stress stream
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/mbarrier-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
status=0
. "$HERE/lib.sh"
for f in "$HERE"/steps/*.sh; do . "$f"; done

expand() {
  case "$1" in
    final) echo suite sanitize edge stress ;;
    gpu) echo suite sanitize sanitize-stress edge stress latency ;;
    pipe) echo pipes pipes-sanitize pipes-stress stream ;;
    *) echo "$1" ;;
  esac
}
steps=()
for arg in "$@"; do steps+=($(expand "$arg")); done
if [ ${#steps[@]} -eq 0 ]; then sed -n '2,21p' "$0"; exit 2; fi
for s in "${steps[@]}"; do
  if ! declare -F "step_${s//-/_}" > /dev/null; then echo "unknown step: $s" >&2; exit 2; fi
done

device_info
for s in "${steps[@]}"; do
  echo "== $s"
  "step_${s//-/_}" || status=1
  echo "($s done at ${SECONDS} s)"
done
echo "== summary"
for s in "${steps[@]}"; do
  fn="summary_${s//-/_}"
  if declare -F "$fn" > /dev/null; then "$fn"; fi
done
exit $status
