#!/usr/bin/env bash
# The device run of BENCHMARKS.md's "Fence merging" section, in one call.
# Build here first (no GPU needed):
#   python -m bench.fence.build .gpu/fence/bcast --latency .gpu/fence/latency --pre .gpu/fence_pre
# then run this through the device tool with carry [".gpu/fence"]. Logs go to $OUT.
set -u
OUT=${OUT:-/tmp/mbarrier-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
echo "== fence merging: broadcast and gather, >= 10^6 rounds per launch"
timeout 300 python3 -m bench.fence.run .gpu/fence/bcast --rounds 1000000 --runs 3 \
  --json "$OUT/fence.json" > "$OUT/fence.log" 2>&1 || status=1
echo "== latency table (merge off, plus the merged broadcast and the run-time stage rows)"
timeout 200 python3 -m bench.latency.run .gpu/fence/latency --json "$OUT/latency.json" \
  > "$OUT/latency.log" 2>&1 || status=1
tail -n 22 "$OUT/fence.log"
tail -n 24 "$OUT/latency.log"
exit $status
