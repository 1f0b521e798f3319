# The latency, fence-merging and streaming benchmarks (BENCHMARKS.md).

# The latency table, ours vs the reference, and the SASS of both. Build:
#   python -m bench.latency.build .gpu/bench        carry [".gpu/bench"]
step_latency() {
  python3 -m bench.latency.run .gpu/bench --json "$OUT/latency.json" > "$OUT/latency.log" 2>&1 || return 1
  for f in .gpu/bench/pp_release_cluster__acquire_cluster.cubin .gpu/bench/pp_unqualified__default.cubin \
           .gpu/bench/local_two_warps.cubin .gpu/bench/bcast4_fence_relaxed.cubin .gpu/bench/reference.cubin; do
    echo "#### $f"; cuobjdump --dump-sass "$f"
  done > "$OUT/sass.txt" 2>&1
}
summary_latency() { tail -n 11 "$OUT/latency.log"; }

# "Fence merging": broadcast and gather, >= 10^6 rounds per launch, then the
# latency table with merging off. Build:
#   python -m bench.fence.build .gpu/fence/bcast --latency .gpu/fence/latency --pre .gpu/fence_pre
# carry [".gpu/fence"].
step_fence() {
  local rc=0
  timeout 300 python3 -m bench.fence.run .gpu/fence/bcast --rounds 1000000 --runs 3 \
    --json "$OUT/fence.json" > "$OUT/fence.log" 2>&1 || rc=1
  timeout 200 python3 -m bench.latency.run .gpu/fence/latency --json "$OUT/fence_latency.json" \
    > "$OUT/fence_latency.log" 2>&1 || rc=1
  return $rc
}
summary_fence() { tail -n 22 "$OUT/fence.log"; tail -n 24 "$OUT/fence_latency.log"; }

# The streaming and multicast benchmarks, and ncu's L2/DRAM bytes of the
# multicast kernels. Build:  python -m bench.stream.build .gpu/stream   carry [".gpu/stream"].
# ONLY=multicast skips the streaming part (ONLY=stream the multicast one).
step_stream() {
  local rc=0
  timeout 200 python3 -m bench.stream.run .gpu/stream ${ONLY:+--only $ONLY} --json "$OUT/stream.json" \
    > "$OUT/stream.log" 2>&1 || rc=1
  cat "$OUT/stream.log"
  echo "-- L2 and DRAM bytes of the multicast kernels (ncu, one launch each)"
  timeout 180 ncu --clock-control none -k regex:mcast_ \
    --metrics lts__t_sectors_op_read.sum,lts__t_bytes.sum,dram__bytes_read.sum,gpu__time_duration.sum \
    --csv python3 -m bench.stream.run .gpu/stream --only multicast --once > "$OUT/ncu-multicast.csv" 2> "$OUT/ncu-multicast.err" || rc=1
  grep -E "mcast_" "$OUT/ncu-multicast.csv" | cut -c1-400 | tail -n 16
  echo "-- memory workload tables of the L2-resident 2-CTA kernels (ncu)"
  timeout 120 ncu --clock-control none -k regex:'mcast_c2_(multicast|load)_l2' \
    --section MemoryWorkloadAnalysis_Tables \
    python3 -m bench.stream.run .gpu/stream --only multicast --once > "$OUT/ncu-memory-tables.txt" 2>&1 || true
  return $rc
}
