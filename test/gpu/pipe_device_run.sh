#!/usr/bin/env bash
# The device run of the pipelines (issue 12), in one call:
#   1. the pipeline suite (.gpu/pipes): 1-CTA TMA ring, 2-/4-CTA row multicast
#      with remote release, deep rings (D = 8)
#   2. compute-sanitizer synccheck, racecheck, memcheck (.gpu/pipes-sanitize)
#   3. stress on every SM, repeated (.gpu/pipes-stress)
#   4. the streaming and multicast benchmarks (.gpu/stream), and ncu's L2/DRAM
#      bytes of the multicast kernels
# Build here first:
#   for s in pipes pipes-sanitize pipes-stress; do python test/gpu/suite/build_suite.py .gpu/$s --suite $s; done
#   python -m bench.stream.build .gpu/stream
# then run this through the device tool with carry [".gpu"]. Logs go to $OUT.
set -u
OUT=${OUT:-/tmp/mbarrier-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"

echo "== pipes suite"
timeout 120 python3 test/gpu/suite/run_manifest.py .gpu/pipes --log "$OUT/pipes.log" || status=1

echo "== pipes under compute-sanitizer"
: > "$OUT/pipes-sanitize.log"
for tool in synccheck racecheck memcheck; do
  echo "-- $tool" | tee -a "$OUT/pipes-sanitize.log"
  timeout 200 compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
    python3 test/gpu/suite/run_manifest.py .gpu/pipes-sanitize >> "$OUT/pipes-sanitize.log" 2>&1 || status=1
done
grep -E "SUMMARY|^(PASS|FAIL|ERROR|HANG) " "$OUT/pipes-sanitize.log" | sort | uniq -c

echo "== pipes stress (every SM)"
timeout 120 python3 test/gpu/suite/run_manifest.py .gpu/pipes-stress --repeat 3 --log "$OUT/pipes-stress.log" || status=1

if [ -n "${NO_BENCH:-}" ]; then exit $status; fi   # NO_BENCH=1: the suites only

echo "== streaming and multicast benchmarks"
# ONLY=multicast skips the streaming part (ONLY=stream the multicast one).
timeout 200 python3 -m bench.stream.run .gpu/stream ${ONLY:+--only $ONLY} --json "$OUT/stream.json" \
  > "$OUT/stream.log" 2>&1 || status=1
cat "$OUT/stream.log"

echo "== L2 and DRAM bytes of the multicast kernels (ncu, one launch each)"
timeout 180 ncu --clock-control none -k regex:mcast_ \
  --metrics lts__t_sectors_op_read.sum,lts__t_bytes.sum,dram__bytes_read.sum,gpu__time_duration.sum \
  --csv python3 -m bench.stream.run .gpu/stream --only multicast --once > "$OUT/ncu-multicast.csv" 2> "$OUT/ncu-multicast.err" || status=1
grep -E "mcast_" "$OUT/ncu-multicast.csv" | cut -c1-400 | tail -n 16
echo "== memory workload tables of the L2-resident 2-CTA kernels (ncu)"
timeout 120 ncu --clock-control none -k regex:'mcast_c2_(multicast|load)_l2' \
  --section MemoryWorkloadAnalysis_Tables \
  python3 -m bench.stream.run .gpu/stream --only multicast --once > "$OUT/ncu-memory-tables.txt" 2>&1 || true
exit $status
