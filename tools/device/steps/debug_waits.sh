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

# The cost of debug waits before/after the call-free report (issue 31), with
# the barrier-state probes and the hangs (37 s on the H200). Build here first
# (C=.gpu/debug-waits-31):
#   python -m bench.debug_waits.build $C/cost --parts gemm,attention \
#       --suffix _dw_before --debug-only          # with the compiler before the change
#   python -m bench.debug_waits.build $C/cost --parts gemm,attention
#   python test/gpu/corpus/debug_waits.py $C/hangs
#   mkdir -p $C/probe && cp bench/debug_waits/probe/* $C/probe/ && \
#     (cd $C/probe && ptxas -arch=sm_90a words.ptx -o words.cubin && \
#      ptxas -arch=sm_90a zero.ptx -o zero.cubin)
# carry [".gpu/debug-waits-31"]; bench/results/debug_waits/dw_table.md is made
# from what it writes.
step_debug_waits_cost() {
  local C=${C:-.gpu/debug-waits-31} rc=0
  (cd $C/probe && timeout 20 python3 words.py && timeout 20 python3 zero.py) > "$OUT/probe.log" 2>&1 || rc=1
  timeout 55 python3 test/gpu/suite/run_debug_waits.py $C/hangs --log "$OUT/debug_waits.log" > /dev/null 2>&1 || rc=1
  timeout 40 python3 bench/gemm/run.py $C/cost/gemm --child interleave \
    --configs c1_256,c1_256_dw,c1_256_dw_before,c2_256,c2_256_dw,c2_256_dw_before \
    --shapes 8192x8192x8192 --rounds 15 --json "$OUT/dw_gemm.json" > "$OUT/gemm.log" 2>&1 || rc=1
  timeout 55 python3 $C/cost/attention/run.py $C/cost/attention --quick --seqs 4096,16384 \
    --json "$OUT/dw_attention.json" > "$OUT/attention.log" 2>&1 || rc=1
  return $rc
}
summary_debug_waits_cost() {
  cat "$OUT/probe.log"
  grep -v "^GEMM_RESULT" "$OUT/gemm.log" | tail -15
  grep -E "^\||checks:" "$OUT/attention.log" | tail -8
  grep -m 8 "timed out" "$OUT/debug_waits.log" | cut -c1-330
  sed -n '/^kernel /,$p' "$OUT/debug_waits.log"
}
