// Correct-kernel corpus (issue 20): CUTLASS's PipelineAsync (arrive-based
// full and empty barriers, no TMA) in a cluster kernel: the barriers are
// initialized by another warp than the producer's (Params::initializing_warp),
// the consumer waits with test_wait and falls back to wait
// (consumer_wait), and it releases through the cluster form on its own CTA
// (consumer_release = empty.arrive(dst_blockid), dst_blockid defaulting to
// block_rank_in_cluster()). The checker must say nothing about it.
//
// Source: NVIDIA/cutlass, include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineAsync: Params {producer_arv_count, consumer_arv_count,
// dst_blockid = cute::block_rank_in_cluster(), initializing_warp},
// init_barriers by warp == params.initializing_warp through
// initialize_barrier_array_pair_aligned (elect_one_sync), fence_barrier_init;
// producer_acquire = empty.wait(phase) from make_producer_start_state,
// producer_commit = full.arrive(); consumer_wait: "done = test_wait(phase);
// if (!done) wait(phase)"; consumer_release = empty.arrive(dst_blockid)),
// include/cutlass/arch/barrier.h (ClusterBarrier::arrive(cta_id) = mapa +
// mbarrier.arrive.shared::cluster). The counts are those the ping-pong
// kernel gives its epilogue-load pipeline (producer_arv_count =
// NumThreadsPerWarp, consumer_arv_count = NumThreadsPerWarpGroup): one
// producer warp whose 32 lanes each write their part of a stage and commit,
// one consumer warp group. The cluster init is published with
// cluster_arrive_relaxed + cluster_wait.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK-DAG: mbarrier.test_wait.parity
// CHECK-DAG: mapa.shared::cluster

gpu.module @cutlass_pipeline_async {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %producer_arv_count = arith.constant 32 : i32
    %consumer_arv_count = arith.constant 128 : i32
    %initializing_warp = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %lane = arith.remui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %is_init_warp = arith.cmpi eq, %warp, %initializing_warp : i32
    %producer_warp = arith.cmpi eq, %warp, %i0 : i32
    %consumer_wg = arith.cmpi eq, %wg, %i1 : i32
    %dst_blockid = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    // full_barrier_ [0, 2), empty_barrier_ [2, 4).
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_init_warp {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c2 step %c1 {
          %e = arith.addi %s, %c2 : index
          mbarrier.init %g[%s], %producer_arv_count : !mbarrier.group<4>
          mbarrier.init %g[%e], %consumer_arv_count : !mbarrier.group<4>
        }
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    scf.if %producer_warp {
      scf.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %pb = arith.andi %r, %c1 : index
        %ph = arith.index_cast %pb : index to i32
        %e = arith.addi %s, %c2 : index
        // producer_acquire (the token is WaitAgain): wait on empty[s].
        mbarrier.wait %g[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        %i32v = arith.index_cast %i : index to i32
        %row = arith.muli %i32v, %i32 : i32
        %gi = arith.addi %row, %lane : i32
        %sp = llvm.getelementptr %src[%gi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %v = llvm.load %sp : !llvm.ptr<1> -> i32
        %s32 = arith.index_cast %s : index to i32
        %base = arith.muli %s32, %i32 : i32
        %slot = arith.addi %base, %lane : i32
        %dp = llvm.getelementptr %ring[%slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
        llvm.store %v, %dp : i32, !llvm.ptr<3>
        // producer_commit: full[s].arrive(), every lane.
        mbarrier.arrive %g[%s] : !mbarrier.group<4>
      }
    }
    scf.if %consumer_wg {
      %ct = arith.subi %t, %i128 : i32
      %col = arith.remui %ct, %i32 : i32
      scf.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c2 : index
        %r = arith.divui %i, %c2 : index
        %pb = arith.andi %r, %c1 : index
        %ph = arith.index_cast %pb : index to i32
        %e = arith.addi %s, %c2 : index
        // consumer_wait: test_wait, then wait if not done.
        %done = mbarrier.test_wait %g[%s], %ph : !mbarrier.group<4>
        %not_done = arith.xori %done, %true : i1
        scf.if %not_done {
          mbarrier.wait %g[%s], %ph : !mbarrier.group<4>
        }
        %s32 = arith.index_cast %s : index to i32
        %base = arith.muli %s32, %i32 : i32
        %slot = arith.addi %base, %col : i32
        %dp = llvm.getelementptr %ring[%slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
        %v = llvm.load %dp : !llvm.ptr<3> -> i32
        %i32v = arith.index_cast %i : index to i32
        %orow = arith.muli %i32v, %i128 : i32
        %oi = arith.addi %orow, %ct : i32
        %op = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %op : i32, !llvm.ptr<1>
        // consumer_release: empty[s].arrive(dst_blockid), this CTA's rank.
        mbarrier.arrive %g[%e] on %dst_blockid : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}
