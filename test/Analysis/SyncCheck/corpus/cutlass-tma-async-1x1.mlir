// Correct-kernel corpus (issue 20): CUTLASS's PipelineTmaAsync mainloop in
// its 1x1 cluster configuration (2x1 and 2x2: cutlass-tma-async-multicast.mlir),
// written in barrier ops as the CUTLASS source does it. The checker must say
// nothing about it.
//
// Source: NVIDIA/cutlass, include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync: init_barriers, the PipelineTmaAsync constructor's
// signalling threads, producer_acquire, producer_tail, consumer_try_wait /
// consumer_wait, consumer_release; detail::spread_arrivals_to_warpgroup),
// include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp
// (load, load_tail, mma with K_PIPE_MMAS = 1, mma_tail) and
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp
// (384 threads: the producer warp group, whose warp 0 loads; two consumer
// warp groups, num_consumers = 256; cluster_arrive_relaxed + cluster_wait
// after the init in a cluster, __syncthreads in a 1x1 one).
//
// What is kept of the source, per configuration:
// - full barrier count 1 (num_producers), empty barrier count
//   num_consumers = 256 in a 1x1 cluster, (cx + cy - 1) x 2 consumer warp
//   groups otherwise; the init by warp 0's elected lane, in a loop over the
//   stages; fence_barrier_init by every thread;
// - the producer: warp 0's elected lane waits on empty[s] with the inverted
//   phase (make_producer_start_state), thread 0 (is_leader) posts the
//   transaction bytes, the copies of A and B complete on full[s]; then the
//   tail (Stages more empty waits);
// - the consumers: try_wait + wait (the try/finalize pair), the release one
//   trip late (K_PIPE_MMAS = 1), the last stage released in mma_tail;
//   consumer_release is empty[s].arrive(dst_blockid_, is_signaling_thread_)
//   = mapa + mbarrier.arrive.shared::cluster, the cluster form, also in the
//   1x1 cluster (dst_blockid_ = 0, every consumer thread signals).
// The TMA tensor copies of A and B are written as bulk copies of the same
// bytes (4096 per tile), so that the checker counts them.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: mapa.shared::cluster.u64
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64

// 1x1: every one of the 256 consumer threads arrives on CTA 0's empty
// barrier through the cluster form (sm90_pipeline.hpp: "if (cluster_size
// == 1) { is_signaling_thread_ = true; dst_blockid_ = 0; }"), and the init
// is published with __syncthreads (no cluster barrier).
gpu.module @cutlass_tma_cooperative_1x1 {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %gB: !llvm.ptr<1>, %ktiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %full_count = arith.constant 1 : i32
    %empty_count = arith.constant 256 : i32
    %tile = arith.constant 4096 : i32
    %tx = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %is_leader = arith.cmpi eq, %t, %i0 : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    // full_barrier_[0..3], empty_barrier_[4..7]
    %g = mbarrier.alloc : !mbarrier.group<8>
    // init_barriers: the initializing warp (0), one elected lane.
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c4 step %c1 {
          %e = arith.addi %s, %c4 : index
          mbarrier.init %g[%s], %full_count : !mbarrier.group<8>
          mbarrier.init %g[%e], %empty_count : !mbarrier.group<8>
        }
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // Producer warp group, ProducerWarpRole::Mainloop (warp 0): load().
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          scf.for %k = %c0 to %ktiles step %c1 {
            %s = arith.remui %k, %c4 : index
            %round = arith.divui %k, %c4 : index
            %pbit = arith.andi %round, %c1 : index
            %phase = arith.index_cast %pbit : index to i32
            %e = arith.addi %s, %c4 : index
            // producer_acquire: empty_barrier_[stage].wait(phase), the
            // producer's phase starting at 1.
            mbarrier.wait %g[%e], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
            mbarrier.arrive_expect_tx %g[%s], %tx if %is_leader : !mbarrier.group<8>
            %bar = mbarrier.ptr %g[%s] : !mbarrier.group<8> -> !llvm.ptr<3>
            %s32 = arith.index_cast %s : index to i32
            %off = arith.muli %s32, %tile : i32
            %da = llvm.getelementptr %sa[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %db = llvm.getelementptr %sb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %k32 = arith.index_cast %k : index to i32
            %goff = arith.muli %k32, %tile : i32
            %srca = llvm.getelementptr %gA[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            %srcb = llvm.getelementptr %gB[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            nvvm.cp.async.bulk.shared.cluster.global %da, %srca, %bar, %tile : !llvm.ptr<3>, !llvm.ptr<1>
            nvvm.cp.async.bulk.shared.cluster.global %db, %srcb, %bar, %tile : !llvm.ptr<3>, !llvm.ptr<1>
          }
          // load_tail -> producer_tail: Stages more acquires (WaitOnly).
          scf.for %j = %c0 to %c4 step %c1 {
            %k = arith.addi %ktiles, %j : index
            %s = arith.remui %k, %c4 : index
            %round = arith.divui %k, %c4 : index
            %pbit = arith.andi %round, %c1 : index
            %phase = arith.index_cast %pbit : index to i32
            %e = arith.addi %s, %c4 : index
            mbarrier.wait %g[%e], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
          }
        }
      }
    }
    // Consumer warp groups 1 and 2: mma() and mma_tail().
    scf.if %consumer_wg {
      // The prologue MMA on k-tile 0 (k_tile_count >= 1).
      %ok0 = mbarrier.try_wait %g[%c0], %i0 : !mbarrier.group<8>
      %wait0 = arith.xori %ok0, %true : i1
      scf.if %wait0 {
        mbarrier.wait %g[%c0], %i0 : !mbarrier.group<8>
      }
      scf.for %k = %c1 to %ktiles step %c1 {
        %s = arith.remui %k, %c4 : index
        %round = arith.divui %k, %c4 : index
        %pbit = arith.andi %round, %c1 : index
        %phase = arith.index_cast %pbit : index to i32
        %ok = mbarrier.try_wait %g[%s], %phase : !mbarrier.group<8>
        %again = arith.xori %ok, %true : i1
        scf.if %again {
          mbarrier.wait %g[%s], %phase : !mbarrier.group<8>
        }
        // warpgroup_wait<K_PIPE_MMAS>, then consumer_release(smem_pipe_release),
        // one k-tile behind the read.
        %kr = arith.subi %k, %c1 : index
        %sr = arith.remui %kr, %c4 : index
        %er = arith.addi %sr, %c4 : index
        mbarrier.arrive %g[%er] on %i0 : !mbarrier.group<8>
      }
      // mma_tail: warpgroup_wait<0>, release the last k-tile.
      %kl = arith.subi %ktiles, %c1 : index
      %sl = arith.remui %kl, %c4 : index
      %el = arith.addi %sl, %c4 : index
      mbarrier.arrive %g[%el] on %i0 : !mbarrier.group<8>
    }
    gpu.return
  }
}

