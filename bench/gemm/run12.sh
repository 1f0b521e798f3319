#!/usr/bin/env bash
# Run 12 (BENCHMARKS.md): the exact manifest first, and the rest only if it
# passed: random-data checks of CHECK, the interleaved timing of INTERLEAVE
# ("auto": gemm_parts/schedule.py's choice per shape) against torch.matmul
# (TRITON=1: and the Triton tutorial matmul) on SHAPES, then (SANITIZE=1)
# memcheck, racecheck and synccheck on the exact manifest. Build first, here:
#   python bench/gemm/build.py .gpu/pp --configs ... && cp bench/gemm/run.py bench/gemm/run12.sh .gpu/pp/
# then on the H200 (device tool, carry [".gpu/pp"]): D=.gpu/pp CHECK=... INTERLEAVE=... bash .gpu/pp/run12.sh
set -u; OUT=${OUT:-/tmp/o}; D=${D:-.gpu/pp}; export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
timeout 60 python3 test/gpu/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 14
if grep -qE "FAIL|HANG|ERROR" "$OUT/exact.log"; then echo "exact not clean: stop"; exit 1; fi
if [ -n "${CHECK:-}" ]; then
  timeout 80 python3 $D/run.py $D --check-only --timeout 40 --configs "$CHECK" --json "$OUT/check.json" 2>&1 \
    | tee "$OUT/check.log" | grep -v "^  " | tail -8
fi
if [ -n "${INTERLEAVE:-}" ]; then
  timeout ${INTERLEAVE_TIMEOUT:-120} python3 $D/run.py $D --child interleave --configs "$INTERLEAVE" \
    --shapes "$SHAPES" ${TRITON:+--triton} --json "$OUT/interleave.json" 2>&1 | grep -v "^GEMM_RESULT"
fi
if [ "${SANITIZE:-1}" = 1 ]; then
  : > "$OUT/sanitize.log"
  for tool in memcheck racecheck synccheck; do
    echo "-- $tool" >> "$OUT/sanitize.log"
    timeout ${SANITIZE_TIMEOUT:-40} compute-sanitizer --tool $tool --target-processes all --print-limit 20 \
      python3 test/gpu/run_manifest.py $D/exact >> "$OUT/sanitize.log" 2>&1
    echo "$tool exit $?" >> "$OUT/sanitize.log"
  done
  grep -E "SUMMARY|exit|^(FAIL|ERROR|HANG)" "$OUT/sanitize.log"
fi
