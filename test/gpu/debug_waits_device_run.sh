#!/usr/bin/env bash
# The device run of debug waits (issue 21), in one call:
#   1. every hang (buggy.py's b1 b4 b5 b6; h1 wait cycle, h2 bytes from
#      memory, h3 producer two phases ahead) must fail its launch within the
#      bound + 1 s with a located line; every twin must pass (debug waits on)
#   2. compute-sanitizer synccheck, racecheck, memcheck on the twins
#   3. the cost, with vs without debug waits in the same run: the latency
#      rows, the TMA streaming kernel, the GEMM at 8192^3 (interleaved)
#   4. the verdicts and the cost table, last
# Build here first:
#   python test/gpu/corpus/debug_waits.py .gpu/debug-waits
#   python -m bench.debug_waits.build .gpu/debug-waits-cost
# then run `bash test/gpu/debug_waits_device_run.sh` through the device tool
# with carry [".gpu/debug-waits", ".gpu/debug-waits-cost"]. Logs go to $OUT.
# NO_SANITIZE=1 skips 2, NO_BENCH=1 skips 3.
set -u
OUT=${OUT:-/tmp/mbarrier-out}
D=.gpu/debug-waits
C=.gpu/debug-waits-cost
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"

echo "== hangs and twins, debug waits on"
timeout 240 python3 test/gpu/suite/run_debug_waits.py $D --log "$OUT/debug_waits.log" > /dev/null 2>&1 || status=1
echo "(${SECONDS} s)"

if [ -z "${NO_SANITIZE:-}" ]; then
  echo "== compute-sanitizer on the twins (debug waits on, bound 20 s)"
  : > "$OUT/twins-sanitize.log"
  for tool in synccheck racecheck memcheck; do
    echo "-- $tool" >> "$OUT/twins-sanitize.log"
    timeout 90 compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
      python3 test/gpu/suite/run_manifest.py $D/twins-sanitize >> "$OUT/twins-sanitize.log" 2>&1 || status=1
  done
  echo "(${SECONDS} s)"
fi

if [ -z "${NO_BENCH:-}" ]; then
  echo "== cost: latency rows, streaming, GEMM 8192^3 (with vs without)"
  {
    timeout 150 python3 -m bench.latency.run $C/latency --json "$OUT/dw_latency.json" || status=1
    timeout 180 python3 -m bench.stream.run $C/stream --only stream --json "$OUT/dw_stream.json" || status=1
    timeout 200 python3 bench/gemm/run.py $C/gemm --child interleave \
      --configs c1_256,c1_256_dw,c2_256,c2_256_dw --shapes 8192x8192x8192 \
      --json "$OUT/dw_gemm.json" | grep -v "^GEMM_RESULT" || status=1
  } > "$OUT/bench.log" 2>&1
  python3 -m bench.debug_waits.table --latency "$OUT/dw_latency.json" \
    --stream "$OUT/dw_stream.json" --gemm "$OUT/dw_gemm.json" > "$OUT/dw_table.md"
  echo "(${SECONDS} s)"
fi

echo "== summary"
grep -E "SUMMARY" "$OUT/twins-sanitize.log" 2>/dev/null | sort | uniq -c
grep -m 12 "    mbarrier.wait timed out" "$OUT/debug_waits.log"
sed -n '/^kernel /,$p' "$OUT/debug_waits.log"
cat "$OUT/dw_table.md" 2>/dev/null
exit $status
