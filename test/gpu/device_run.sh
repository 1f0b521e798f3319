#!/usr/bin/env bash
# Everything the GPU machine runs, in one call (device time is scarce):
#   1. the functional suite          (.gpu/full)
#   2. compute-sanitizer synccheck, racecheck, memcheck on a smaller suite (.gpu/sanitize)
#   3. the stress suite, repeated    (.gpu/stress)
#   4. the latency benchmark, ours vs reference (.gpu/bench) + SASS of both
# Build the inputs here first:
#   for s in full sanitize stress stress-sanitize; do python test/gpu/suite/build_suite.py .gpu/$s --suite $s; done
#   python test/gpu/suite/edge_manifest.py .gpu/full .gpu/edge
#   python -m bench.latency.build .gpu/bench
# then run this through the device tool with carry [".gpu"]. Logs go to $OUT.
set -u
OUT=${OUT:-/tmp/mbarrier-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
run() { python3 test/gpu/suite/run_manifest.py "$@"; }
status=0

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
python3 -c "import cuda.bindings, numpy; print('cuda-bindings', cuda.bindings.__version__, 'numpy', numpy.__version__)" | tee -a "$OUT/device.txt"

echo "== suite"
run .gpu/full --log "$OUT/suite.log" || status=1

echo "== sanitizers"
: > "$OUT/sanitize.log"
for tool in synccheck racecheck memcheck; do
  echo "-- $tool" | tee -a "$OUT/sanitize.log"
  compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
    python3 test/gpu/suite/run_manifest.py .gpu/sanitize >> "$OUT/sanitize.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^(PASS|FAIL|ERROR|HANG) " "$OUT/sanitize.log" | tail -n 12
done

if [ -d .gpu/stress-sanitize ]; then
  echo "== sanitizers on the stress shapes"
  : > "$OUT/sanitize-stress.log"
  for tool in synccheck racecheck memcheck; do
    echo "-- $tool" | tee -a "$OUT/sanitize-stress.log"
    compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
      python3 test/gpu/suite/run_manifest.py .gpu/stress-sanitize >> "$OUT/sanitize-stress.log" 2>&1 || status=1
  done
  grep -E "SUMMARY" "$OUT/sanitize-stress.log" | sort | uniq -c
fi

echo "== runtime edge cases (each must be a clear ERROR)"
run .gpu/edge --log "$OUT/edge.log" > /dev/null 2>&1
python3 test/gpu/suite/edge_manifest.py --check "$OUT/edge.log" | tee -a "$OUT/edge.log" || status=1

echo "== stress"
run .gpu/stress --repeat 3 --log "$OUT/stress.log" || status=1

echo "== latency"
python3 -m bench.latency.run .gpu/bench --json "$OUT/latency.json" > "$OUT/latency.log" 2>&1 || status=1
{
  for f in .gpu/bench/pp_release_cluster__acquire_cluster.cubin .gpu/bench/pp_unqualified__default.cubin \
           .gpu/bench/local_two_warps.cubin .gpu/bench/bcast4_fence_relaxed.cubin .gpu/bench/reference.cubin; do
    echo "#### $f"; cuobjdump --dump-sass "$f"
  done
} > "$OUT/sass.txt" 2>&1

echo "== summary"
grep -E "SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
tail -n 15 "$OUT/suite.log"
tail -n 1 "$OUT/edge.log"
tail -n 9 "$OUT/stress.log"
tail -n 11 "$OUT/latency.log"
exit $status
