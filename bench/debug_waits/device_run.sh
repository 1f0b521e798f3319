#!/usr/bin/env bash
# The cost of debug waits before/after the call-free report (issue 31), the
# state probes and the hangs, in one device call (37 s on the H200; the words probe ran in an earlier call). Build
# here first (C=.gpu/debug-waits-31):
#   PYTHONPATH=.:examples python -m bench.debug_waits.build $C/cost --parts gemm,attention \
#       --suffix _dw_before --debug-only          # with the compiler before the change
#   PYTHONPATH=.:examples python -m bench.debug_waits.build $C/cost --parts gemm,attention
#   python test/gpu/debug_waits.py $C/hangs
#   mkdir -p $C/probe && cp bench/debug_waits/probe/* $C/probe/ && \
#     (cd $C/probe && ptxas -arch=sm_90a words.ptx -o words.cubin && \
#      ptxas -arch=sm_90a zero.ptx -o zero.cubin)
# then run `bash bench/debug_waits/device_run.sh` through the device tool with
# carry [".gpu/debug-waits-31"]. Logs and JSON go to $OUT;
# bench/results/debug_waits/dw_table.md is made from them.
set -u
C=${C:-.gpu/debug-waits-31}
OUT=${OUT:-/tmp/mbarrier-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/device.txt
(cd $C/probe && timeout 20 python3 words.py && timeout 20 python3 zero.py) > $OUT/probe.log 2>&1
echo "probes ${SECONDS}s"
timeout 55 python3 test/gpu/run_debug_waits.py $C/hangs --log $OUT/debug_waits.log > /dev/null 2>&1
echo "hangs ${SECONDS}s rc=$?"
timeout 40 python3 bench/gemm/run.py $C/cost/gemm --child interleave \
  --configs c1_256,c1_256_dw,c1_256_dw_before,c2_256,c2_256_dw,c2_256_dw_before \
  --shapes 8192x8192x8192 --rounds 15 --json $OUT/dw_gemm.json > $OUT/gemm.log 2>&1
echo "gemm ${SECONDS}s"
timeout 55 python3 $C/cost/attention/run.py $C/cost/attention --quick --seqs 4096,16384 \
  --json $OUT/dw_attention.json > $OUT/attention.log 2>&1
echo "attention ${SECONDS}s"
cat $OUT/probe.log
grep -v "^GEMM_RESULT" $OUT/gemm.log | tail -15
grep -E "^\||checks:" $OUT/attention.log | tail -8
grep -m 8 "timed out" $OUT/debug_waits.log | cut -c1-330
sed -n '/^kernel /,$p' $OUT/debug_waits.log
