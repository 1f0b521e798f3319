# The GPU suite (RELIABILITY.md). Build here first:
#   for s in full sanitize stress stress-sanitize; do python test/gpu/corpus/build_suite.py .gpu/$s --suite $s; done
#   python test/gpu/suite/edge_manifest.py .gpu/full .gpu/edge
# carry [".gpu/full", ".gpu/sanitize", ".gpu/stress", ".gpu/edge"] (and ".gpu/stress-sanitize").

# The functional suite: every kernel, its data checked.
step_suite() { run_manifest .gpu/full --log "$OUT/suite.log" > /dev/null 2>&1; }
summary_suite() {
  grep -E "PASS|FAIL|HANG|ERROR" "$OUT/suite.log" | awk '{print $1}' | sort | uniq -c
  grep -E "FAIL|HANG|ERROR" "$OUT/suite.log" | head
}

# compute-sanitizer synccheck, racecheck, memcheck on the smaller suite.
step_sanitize() { sanitize "$OUT/sanitize.log" 200 synccheck,racecheck,memcheck .gpu/sanitize; }
summary_sanitize() {
  grep -E "SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
  grep -E "^(FAIL|ERROR|HANG)" "$OUT/sanitize.log" | head
}

# The same on the stress shapes.
step_sanitize_stress() {
  sanitize "$OUT/sanitize-stress.log" 200 synccheck,racecheck,memcheck .gpu/stress-sanitize
}
summary_sanitize_stress() { grep -E "SUMMARY" "$OUT/sanitize-stress.log" | sort | uniq -c; }

# The runtime's edge cases: each must be a clear ERROR.
step_edge() {
  run_manifest .gpu/edge --log "$OUT/edge.log" > /dev/null 2>&1
  python3 test/gpu/suite/edge_manifest.py --check "$OUT/edge.log" >> "$OUT/edge.log" 2>&1
}
summary_edge() { tail -n 1 "$OUT/edge.log"; }

# The stress suite, three times.
step_stress() {
  timeout 200 python3 test/gpu/suite/run_manifest.py .gpu/stress --repeat 3 --log "$OUT/stress.log" > /dev/null 2>&1
}
summary_stress() { tail -n 4 "$OUT/stress.log"; }
