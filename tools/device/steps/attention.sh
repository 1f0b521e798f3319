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

# Ours against FlashAttention-4 in one process (BENCHMARKS.md, "Against FlashAttention-4,
# one process"). Build: python -m bench.attention.bwd_build .gpu/bwd (D); FA4:
# bash tools/device/fa4_fetch.sh .gpu/fa4 (FA4), its archive in two parts because it and
# the checkout exceed one call: a first call carries .gpu/fa4/big1 and runs
# `mkdir -p /tmp/fa4p && cp .gpu/fa4/big1/part1 /tmp/fa4p/`, the second, at once, carries
# .gpu/fa4/big2, .gpu/fa4/small and D (a later call on the same machine needs neither:
# /tmp/pyext is kept). RUN_ARGS: fa4_run.py's options. NCU=1: then ncu of our backward's
# three kernels at 2 x 16 x 8192, d 64 and 128 (NCU_SEQ, NCU_DIMS).
step_attention_fa4() {
  local D=${D:-.gpu/bwd} F=${FA4:-.gpu/fa4} d rc=0
  if [ ! -d /tmp/pyext/flash_attn ]; then
    test -f /tmp/fa4p/part1 || { echo "no /tmp/fa4p/part1 (the first call's): stop"; return 3; }
    cat /tmp/fa4p/part1 $F/big2/part2 > /tmp/cute13.tar.xz && mkdir -p /tmp/pyext && \
      python3 -c "import tarfile; tarfile.open('/tmp/cute13.tar.xz').extractall('/tmp/pyext')" || return 3
    for w in $F/small/*.whl; do
      python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('/tmp/pyext')" $w || return 3
    done
  fi
  echo "FA4 unpacked at ${SECONDS} s"
  set -o pipefail
  # the wheels, and what nvidia_cutlass_dsl's .pth file would add (PYTHONPATH reads no .pth)
  PYTHONPATH=/tmp/pyext:/tmp/pyext/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH} \
    timeout ${RUN_TIMEOUT:-420} python3 -W ignore $D/fa4_run.py $D \
    --json "$OUT/fa4.json" ${RUN_ARGS:-} 2>&1 | tee "$OUT/fa4.log" || rc=1
  set +o pipefail
  if [ -n "${NCU:-}" ]; then
    : > "$OUT/ncu_bwd.txt"
    for d in ${NCU_DIMS:-64 128}; do
      echo "-- d=$d" >> "$OUT/ncu_bwd.txt"
      timeout ${NCU_TIMEOUT:-90} ncu --clock-control none -k regex:attn_bwd -c 3 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
        --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats \
        python3 -W ignore $D/bwd_run.py $D --once 2,16,${NCU_SEQ:-8192},$d >> "$OUT/ncu_bwd.txt" 2>&1
      echo "ncu d=$d exit $?" | tee -a "$OUT/ncu_bwd.txt"
    done
    grep -E "attn_bwd|Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occ|Issue Slots Busy|One or More" "$OUT/ncu_bwd.txt" | head -60
  fi
  return $rc
}
