# The exact manifest, compute-sanitizer on it, and ncu of p1_256_ts / p2_256_ts at 8192^3
# (BENCHMARKS.md, run 10). Build with bench/gemm/build.py .gpu/gemm first; carry [".gpu/gemm"].
set -u; OUT=${OUT:-/tmp/o}; D=.gpu/gemm
timeout 120 python3 test/gpu/suite/run_manifest.py $D/exact --log "$OUT/exact.log" 2>&1 | tail -n 12
: > "$OUT/sanitize.log"
for tool in memcheck racecheck synccheck; do
  echo "-- $tool" >> "$OUT/sanitize.log"
  timeout 90 compute-sanitizer --tool $tool --target-processes all --print-limit 20 python3 test/gpu/suite/run_manifest.py $D/exact >> "$OUT/sanitize.log" 2>&1
  echo "$tool exit $?" >> "$OUT/sanitize.log"
done
grep -E "SUMMARY|exit|^(FAIL|ERROR|HANG)" "$OUT/sanitize.log"
for P in p1_256_ts p2_256_ts; do
  timeout 120 ncu --clock-control none -k regex:gemm --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    python3 $D/run.py $D --child "$P" --mode profile > "$OUT/ncu_$P.txt" 2>&1
  echo "== ncu $P exit $?"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Cluster Size|Grid Size" "$OUT/ncu_$P.txt" | head -24
done
