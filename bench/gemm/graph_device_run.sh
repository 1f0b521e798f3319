#!/usr/bin/env bash
# The torch entry (matmul) on the GPU machine, in one call. Build first, here (needs MLIR):
#   C=.gpu/matmul; mkdir -p $C && cp -r examples/gemm.py examples/gemm_parts bench/gemm/run.py bench/gemm/graph_run.py bench/gemm/graph_device_run.sh $C/
#   (cd examples && python -m gemm_parts.api --fill ../$C/cache)
#   python -m bench.gemm.build $C/gemm --configs p1_256_ts,p1_256_ts_aK_bMN,...   (the exact manifest)
# then, through the device tool with carry [".gpu/matmul"]:  C=.gpu/matmul bash .gpu/matmul/graph_device_run.sh
# Steps (logs under $OUT): the exact manifest of the layouts' builds and memcheck on it; graph_run.py
# --check (four layouts vs float64, graph replay == eager, a strided operand refused) and --variants
# (each configuration on the small and K 1024-2048 shapes); then --bench --layouts --triton (the grid).
set -u
C=${C:-.gpu/matmul}
OUT=${OUT:-/tmp/matmul-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
echo "== exact manifest"
timeout ${EXACT_TIMEOUT:-60} python3 test/gpu/suite/run_manifest.py $C/gemm/exact --log "$OUT/exact.log" 2>&1 | tail -n 40
if [ "${SANITIZE:-1}" = 1 ]; then
  echo "== compute-sanitizer memcheck on it"
  timeout ${SANITIZE_TIMEOUT:-90} compute-sanitizer --tool memcheck --print-limit 20 \
    python3 test/gpu/suite/run_manifest.py $C/gemm/exact > "$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?"; grep -E "ERROR SUMMARY|^(FAIL|ERROR|HANG)" "$OUT/memcheck.log" | head
fi
echo "== check, variants"
timeout ${CHECK_TIMEOUT:-150} python3 $C/graph_run.py $C $C/cache --check --variants --rounds ${ROUNDS:-3} \
  ${VARIANT_CONFIGS:+--variant-configs $VARIANT_CONFIGS} ${VARIANT_SHAPES:+--variant-shapes $VARIANT_SHAPES} \
  --json "$OUT/check.json" 2>&1 | tee "$OUT/check.log" | grep -v "PASS"
echo "== grid, layouts"
timeout ${BENCH_TIMEOUT:-240} python3 $C/graph_run.py $C $C/cache ${BENCH_FLAGS:---bench --layouts --triton} --rounds ${ROUNDS:-3} \
  --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
