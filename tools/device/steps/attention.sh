# The attention benchmark (BENCHMARKS.md). Build:
#   python -m bench.attention.build .gpu/attn   (copies run.py, runtime.py, shapes.py, schedule.py,
#   triton_fa.py there; D=.gpu/other for another folder)   carry [".gpu/attn"]
#   the exact manifest (test/gpu/suite/run_manifest.py: O and lse bit for bit);
#   SANITIZE=name,... : memcheck, racecheck, synccheck on those exact kernels;
#   run.py $RUN_ARGS (default: every check, then the interleaved timing).
step_attention() {
  local D=${D:-.gpu/attn} name
  python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$OUT/device.txt"
  echo "-- exact manifest"
  timeout 90 python3 test/gpu/suite/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 12
  if [ -n "${SANITIZE:-}" ]; then
    : > "$OUT/sanitize.log"
    for name in ${SANITIZE//,/ }; do
      for tool in memcheck racecheck synccheck; do
        echo "-- $tool $name" >> "$OUT/sanitize.log"
        timeout ${SANITIZE_TIMEOUT:-40} compute-sanitizer --tool $tool --print-limit 20 \
          python3 test/gpu/suite/run_manifest.py $D/exact --only "$name" >> "$OUT/sanitize.log" 2>&1
        echo "$tool $name exit $?" >> "$OUT/sanitize.log"
      done
    done
    grep -E "SUMMARY|exit|^(PASS|FAIL|ERROR|HANG)" "$OUT/sanitize.log"
  fi
  echo "-- run.py ${RUN_ARGS:-}"
  timeout ${RUN_TIMEOUT:-400} python3 $D/run.py $D --json "$OUT/attn.json" --exact-log "$OUT/exact.log" \
    ${RUN_ARGS:-} 2>&1 | tee "$OUT/run.log"
}
