# Debug waits (issue 21). Build here first:
#   python test/gpu/corpus/debug_waits.py .gpu/debug-waits
#   python -m bench.debug_waits.build .gpu/debug-waits-cost
# carry [".gpu/debug-waits", ".gpu/debug-waits-cost"]. NO_SANITIZE=1 skips the
# sanitizers, NO_BENCH=1 the cost.
#   1. every hang (buggy.py's b1 b4 b5 b6; h1 wait cycle, h2 bytes from
#      memory, h3 producer two phases ahead) must fail its launch within the
#      bound + 1 s with a located line; every twin must pass (debug waits on)
#   2. compute-sanitizer synccheck, racecheck, memcheck on the twins
#   3. the cost, with vs without debug waits in the same run: the latency
#      rows, the TMA streaming kernel, the GEMM at 8192^3 (interleaved)
step_debug_waits() {
  local D=.gpu/debug-waits C=.gpu/debug-waits-cost rc=0
  echo "-- hangs and twins, debug waits on"
  timeout 240 python3 test/gpu/suite/run_debug_waits.py $D --log "$OUT/debug_waits.log" > /dev/null 2>&1 || rc=1
  if [ -z "${NO_SANITIZE:-}" ]; then
    echo "-- compute-sanitizer on the twins (debug waits on, bound 20 s)"
    sanitize "$OUT/twins-sanitize.log" 90 synccheck,racecheck,memcheck $D/twins-sanitize || rc=1
  fi
  if [ -z "${NO_BENCH:-}" ]; then
    echo "-- cost: latency rows, streaming, GEMM 8192^3 (with vs without)"
    {
      timeout 150 python3 -m bench.latency.run $C/latency --json "$OUT/dw_latency.json" || rc=1
      timeout 180 python3 -m bench.stream.run $C/stream --only stream --json "$OUT/dw_stream.json" || rc=1
      timeout 200 python3 bench/gemm/run.py $C/gemm --child interleave \
        --configs c1_256,c1_256_dw,c2_256,c2_256_dw --shapes 8192x8192x8192 \
        --json "$OUT/dw_gemm.json" | grep -v "^GEMM_RESULT" || rc=1
    } > "$OUT/bench.log" 2>&1
    python3 -m bench.debug_waits.table --latency "$OUT/dw_latency.json" \
      --stream "$OUT/dw_stream.json" --gemm "$OUT/dw_gemm.json" > "$OUT/dw_table.md"
  fi
  return $rc
}
summary_debug_waits() {
  grep -E "SUMMARY" "$OUT/twins-sanitize.log" 2>/dev/null | sort | uniq -c
  grep -m 12 "    mbarrier.wait timed out" "$OUT/debug_waits.log"
  sed -n '/^kernel /,$p' "$OUT/debug_waits.log"
  cat "$OUT/dw_table.md" 2>/dev/null
}
