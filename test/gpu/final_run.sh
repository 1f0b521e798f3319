#!/usr/bin/env bash
# The GPU suite without the latency benchmark, in one device call (about 2
# minutes on the H200): the functional suite, compute-sanitizer synccheck,
# racecheck and memcheck on the sanitize suite, the runtime edge cases, the
# stress suite x3. Build here first:
#   for s in full sanitize stress; do python test/gpu/suite/build_suite.py .gpu/$s --suite $s; done
#   python test/gpu/suite/edge_manifest.py .gpu/full .gpu/edge
# then run `bash test/gpu/final_run.sh` with carry [".gpu/full", ".gpu/sanitize",
# ".gpu/stress", ".gpu/edge"]. Logs go to $OUT
# (bench/results/h200/suite-2026-12-01-session2/ in git history, f1a6a87).
set -u; OUT=${OUT:-/tmp/o}; export PYTHONUNBUFFERED=1; status=0
run() { python3 test/gpu/suite/run_manifest.py "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/device.txt"
echo "== suite"; run .gpu/full --log "$OUT/suite.log" > /dev/null 2>&1 || status=1
: > "$OUT/sanitize.log"
for tool in synccheck racecheck memcheck; do
  echo "-- $tool" >> "$OUT/sanitize.log"
  timeout 200 compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 python3 test/gpu/suite/run_manifest.py .gpu/sanitize >> "$OUT/sanitize.log" 2>&1 || status=1
done
echo "== edge"; run .gpu/edge --log "$OUT/edge.log" > /dev/null 2>&1; python3 test/gpu/suite/edge_manifest.py --check "$OUT/edge.log" >> "$OUT/edge.log" 2>&1 || status=1
echo "== stress"; timeout 200 python3 test/gpu/suite/run_manifest.py .gpu/stress --repeat 3 --log "$OUT/stress.log" > /dev/null 2>&1 || status=1
echo "== summary"; grep -E "SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
grep -E "^(FAIL|ERROR|HANG)" "$OUT/sanitize.log" | head
grep -E "PASS|FAIL|HANG|ERROR" "$OUT/suite.log" | awk '{print $1}' | sort | uniq -c
grep -E "FAIL|HANG|ERROR" "$OUT/suite.log" | head; tail -n 1 "$OUT/edge.log"; tail -n 4 "$OUT/stress.log"
exit $status
