# The GEMM benchmark (BENCHMARKS.md, bench/gemm/README.md).

# step gemm. Build:  python -m bench.gemm.build .gpu/gemm   carry [".gpu/gemm"]; run.py
# options in GEMM_ARGS. Steps, in order (each can be switched off or narrowed):
#   the exact manifest (a FAIL or HANG stops the step; STOP=0: go on);
#   SANITIZE=1 (default): memcheck, racecheck, synccheck on it;
#   CHECK=c1,c2 [CHILD_TIMEOUT=s] [RANDOM_SHAPES=1] : only the random-data checks of those configs
#                 (run.py --check-only; RANDOM_SHAPES=1 adds the 20 seeded random shapes),
#                 else (CHECK unset) run.py $GEMM_ARGS (checks + sequential timing + baselines);
#   INTERLEAVE=c1,c2 [SHAPES=MxNxK,...] [ROUNDS=n] [TRITON=1] : ours and torch.matmul (and the Triton
#                 tutorial matmul) timed round-robin; the name "auto" is the schedule
#                 examples/gemm_parts/schedule.py picks per shape;
#   D=.gpu/dir : where build.py wrote the cubins (default .gpu/gemm); RUN=0 skips run.py;
#   PROFILE=c1[:MxNxK],... : ncu of each config (at 8192^3 unless given), last.
step_gemm() {
  local D=${D:-.gpu/gemm} R=bench/gemm/run.py
  python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$OUT/device.txt"
  echo "-- exact manifest (integer-valued data, f32 output, compared exactly)"
  timeout 120 python3 test/gpu/suite/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 12
  # A kernel that is wrong or hangs on the exact cases is not timed (STOP=0: go on).
  if [ "${STOP:-1}" = 1 ] && grep -qE "^(FAIL|HANG|ERROR)" "$OUT/exact.log"; then
    echo "exact manifest not clean: stop"; return 1
  fi
  if [ "${SANITIZE:-1}" = 1 ]; then
    echo "-- compute-sanitizer on the exact manifest"
    sanitize "$OUT/sanitize.log" ${SANITIZE_TIMEOUT:-150} memcheck,racecheck,synccheck $D/exact
    grep -E "SUMMARY|exit|^(PASS|FAIL|ERROR|HANG)|^-- " "$OUT/sanitize.log"
  fi
  if [ -n "${CHECK:-}" ]; then
    echo "-- run.py --check-only ($CHECK)"
    timeout 300 python3 $R $D --check-only ${RANDOM_SHAPES:+--random-shapes} --timeout ${CHILD_TIMEOUT:-120} \
      --configs "$CHECK" --json "$OUT/check.json" 2>&1 | tee "$OUT/check.log" | grep -v "^  "
  elif [ "${RUN:-1}" = 1 ]; then
    echo "-- run.py"
    timeout 420 python3 $R $D --json "$OUT/gemm.json" ${GEMM_ARGS:-} 2>&1 | tee "$OUT/run.log" | grep -v "^  "
  fi
  if [ -n "${INTERLEAVE:-}" ]; then
    echo "-- interleaved: $INTERLEAVE and torch.matmul, round-robin"
    timeout ${INTERLEAVE_TIMEOUT:-300} python3 $R $D --child interleave --configs "$INTERLEAVE" \
      ${SHAPES:+--shapes "$SHAPES"} ${ROUNDS:+--rounds $ROUNDS} ${TRITON:+--triton} \
      --json "$OUT/interleave.json" 2>&1 | grep -v "^GEMM_RESULT"
  fi
  local P C S
  for P in ${PROFILE//,/ }; do   # PROFILE=c1[:MxNxK],c2[:MxNxK] (default shape 8192^3)
    C=${P%%:*}; S=8192x8192x8192; [ "$P" != "$C" ] && S=${P#*:}
    echo "-- ncu on $C, $S (second launch; --clock-control none)"
    timeout ${NCU_TIMEOUT:-150} ncu --clock-control none -k regex:gemm --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      ${NCU_EXTRA:-} python3 $R $D --child "$C" --mode profile --shape "$S" > "$OUT/ncu_${C}_$S.txt" 2>&1
    echo "ncu exit $?"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible" "$OUT/ncu_${C}_$S.txt" | head -20
  done
}

# step gemm-ncu: the exact manifest, compute-sanitizer on it, and ncu of p1_256_ts / p2_256_ts
# at 8192^3 (BENCHMARKS.md, run 10). Build as for gemm; carry [".gpu/gemm"].
step_gemm_ncu() {
  local D=.gpu/gemm P
  timeout 120 python3 test/gpu/suite/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 12
  sanitize "$OUT/sanitize.log" 90 memcheck,racecheck,synccheck $D/exact
  grep -E "SUMMARY|exit|^(FAIL|ERROR|HANG)" "$OUT/sanitize.log"
  for P in p1_256_ts p2_256_ts; do
    timeout 120 ncu --clock-control none -k regex:gemm --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      python3 bench/gemm/run.py $D --child "$P" --mode profile > "$OUT/ncu_$P.txt" 2>&1
    echo "-- ncu $P exit $?"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Cluster Size|Grid Size" "$OUT/ncu_$P.txt" | head -24
  done
}

# step gemm-graph: the torch entry (matmul). Build (needs MLIR):
#   C=.gpu/matmul; mkdir -p $C && cp -r examples/gemm.py examples/gemm_parts bench/gemm/run.py bench/gemm/graph_run.py $C/
#   (cd examples && python -m gemm_parts.api --fill ../$C/cache)
#   python -m bench.gemm.build $C/gemm --configs p1_256_ts,p1_256_ts_aK_bMN,...   (the exact manifest)
# carry [".gpu/matmul"] (C=... for another folder). The exact manifest of the layouts' builds and
# memcheck on it; graph_run.py --check (four layouts vs float64, graph replay == eager, a strided
# operand refused) and --variants (each configuration on the small and K 1024-2048 shapes); then
# --bench --layouts --triton (the grid).
step_gemm_graph() {
  local C=${C:-.gpu/matmul}
  python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$OUT/device.txt"
  echo "-- exact manifest"
  timeout ${EXACT_TIMEOUT:-60} python3 test/gpu/suite/run_manifest.py $C/gemm/exact --log "$OUT/exact.log" 2>&1 | tail -n 40
  if [ "${SANITIZE:-1}" = 1 ]; then
    echo "-- compute-sanitizer memcheck on it"
    sanitize "$OUT/memcheck.log" ${SANITIZE_TIMEOUT:-90} memcheck $C/gemm/exact
    grep -E "ERROR SUMMARY|exit|^(FAIL|ERROR|HANG)" "$OUT/memcheck.log" | head
  fi
  echo "-- check, variants"
  timeout ${CHECK_TIMEOUT:-150} python3 $C/graph_run.py $C $C/cache --check --variants --rounds ${ROUNDS:-3} \
    ${VARIANT_CONFIGS:+--variant-configs $VARIANT_CONFIGS} ${VARIANT_SHAPES:+--variant-shapes $VARIANT_SHAPES} \
    --json "$OUT/check.json" 2>&1 | tee "$OUT/check.log" | grep -v "PASS"
  echo "-- grid, layouts"
  timeout ${BENCH_TIMEOUT:-240} python3 $C/graph_run.py $C $C/cache ${BENCH_FLAGS:---bench --layouts --triton} \
    --rounds ${ROUNDS:-3} --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
}
