#!/usr/bin/env bash
# The GEMM benchmark on the GPU machine, in one call. Build first, here:
#   python -m bench.gemm.build .gpu/gemm && cp bench/gemm/run.py bench/gemm/device_run.sh .gpu/gemm/
# then, through the device tool with carry [".gpu/gemm"]:  bash .gpu/gemm/device_run.sh [run.py options]
# Logs go to $OUT. Steps, in order (each can be switched off or narrowed):
#   the exact manifest (a FAIL or HANG stops the run; STOP=0: go on);
#   SANITIZE=1 (default): memcheck, racecheck, synccheck on it;
#   CHECK=c1,c2 [CHILD_TIMEOUT=s] [RANDOM_SHAPES=1] : only the random-data checks of those configs
#                 (run.py --check-only; RANDOM_SHAPES=1 adds the 20 seeded random shapes),
#                 else (CHECK unset) run.py "$@" (checks + sequential timing + baselines);
#   INTERLEAVE=c1,c2 [SHAPES=MxNxK,...] [ROUNDS=n] [TRITON=1] : ours and torch.matmul (and the Triton
#                 tutorial matmul) timed round-robin; the name "auto" is the schedule
#                 examples/gemm_parts/schedule.py picks per shape;
#   D=.gpu/dir : where build.py wrote the cubins (default .gpu/gemm); RUN=0 skips run.py;
#   PROFILE=c1[:MxNxK],... : ncu of each config (at 8192^3 unless given), last.
set -u
OUT=${OUT:-/tmp/gemm-out}
D=${D:-.gpu/gemm}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
python3 -c "import torch, numpy, cuda.bindings; print('torch', torch.__version__, 'numpy', numpy.__version__, 'cuda-bindings', cuda.bindings.__version__)" | tee -a "$OUT/device.txt"

echo "== exact manifest (integer-valued data, f32 output, compared exactly)"
timeout 120 python3 test/gpu/suite/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 12
# A kernel that is wrong or hangs on the exact cases is not timed (STOP=0: go on).
if [ "${STOP:-1}" = 1 ] && grep -qE "^(FAIL|HANG|ERROR)" "$OUT/exact.log"; then
  echo "exact manifest not clean: stop"; exit 1
fi

if [ "${SANITIZE:-1}" = 1 ]; then
  echo "== compute-sanitizer on the exact manifest"
  : > "$OUT/sanitize.log"
  for tool in memcheck racecheck synccheck; do
    echo "-- $tool" >> "$OUT/sanitize.log"
    timeout ${SANITIZE_TIMEOUT:-150} compute-sanitizer --tool $tool --target-processes all --print-limit 20 \
      python3 test/gpu/suite/run_manifest.py $D/exact >> "$OUT/sanitize.log" 2>&1
    echo "$tool exit $?" >> "$OUT/sanitize.log"
  done
  grep -E "SUMMARY|exit|^(PASS|FAIL|ERROR|HANG)|^-- " "$OUT/sanitize.log"
fi

if [ -n "${CHECK:-}" ]; then
  echo "== run.py --check-only ($CHECK)"
  timeout 300 python3 $D/run.py $D --check-only ${RANDOM_SHAPES:+--random-shapes} --timeout ${CHILD_TIMEOUT:-120} --configs "$CHECK" --json "$OUT/check.json" 2>&1 \
    | tee "$OUT/check.log" | grep -v "^  "
elif [ "${RUN:-1}" = 1 ]; then
  echo "== run.py"
  timeout 420 python3 $D/run.py $D --json "$OUT/gemm.json" "$@" 2>&1 | tee "$OUT/run.log" | grep -v "^  "
fi

if [ -n "${INTERLEAVE:-}" ]; then
  echo "== interleaved: $INTERLEAVE and torch.matmul, round-robin"
  timeout ${INTERLEAVE_TIMEOUT:-300} python3 $D/run.py $D --child interleave --configs "$INTERLEAVE" \
    ${SHAPES:+--shapes "$SHAPES"} ${ROUNDS:+--rounds $ROUNDS} ${TRITON:+--triton} --json "$OUT/interleave.json" 2>&1 | grep -v "^GEMM_RESULT"
fi

if [ -n "${PROFILE:-}" ]; then
  # PROFILE=c1[:MxNxK],c2[:MxNxK] (default shape 8192^3)
  for P in ${PROFILE//,/ }; do
    C=${P%%:*}; S=8192x8192x8192; [ "$P" != "$C" ] && S=${P#*:}
    echo "== ncu on $C, $S (second launch; --clock-control none)"
    timeout ${NCU_TIMEOUT:-150} ncu --clock-control none -k regex:gemm --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      ${NCU_EXTRA:-} python3 $D/run.py $D --child "$C" --mode profile --shape "$S" > "$OUT/ncu_${C}_$S.txt" 2>&1
    echo "ncu exit $?"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible" "$OUT/ncu_${C}_$S.txt" | head -20
  done
fi
