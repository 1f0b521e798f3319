# The pipelines (issue 12): 1-CTA TMA ring, 2-/4-CTA row multicast with remote
# release, deep rings (D = 8). Build here first:
#   for s in pipes pipes-sanitize pipes-stress; do python test/gpu/corpus/build_suite.py .gpu/$s --suite $s; done
# carry [".gpu/pipes", ".gpu/pipes-sanitize", ".gpu/pipes-stress"].

step_pipes() { timeout 120 python3 test/gpu/suite/run_manifest.py .gpu/pipes --log "$OUT/pipes.log"; }
step_pipes_sanitize() {
  sanitize "$OUT/pipes-sanitize.log" 200 synccheck,racecheck,memcheck .gpu/pipes-sanitize
}
summary_pipes_sanitize() {
  grep -E "SUMMARY|^(PASS|FAIL|ERROR|HANG) " "$OUT/pipes-sanitize.log" | sort | uniq -c
}
# Stress on every SM, three times.
step_pipes_stress() {
  timeout 120 python3 test/gpu/suite/run_manifest.py .gpu/pipes-stress --repeat 3 --log "$OUT/pipes-stress.log"
}
