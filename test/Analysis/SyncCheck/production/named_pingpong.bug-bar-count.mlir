// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of named_pingpong.mlir): a named barrier whose thread count
// exceeds its arrivals: the first @step_done of every step (threads 256) is
// reached by warpgroup 0 only (it sits in warpgroup 0's role branch), so 128
// threads arrive on a 256-thread barrier.
// The op: that mbarrier.bar_sync @step_done (marked // BUG).
// Every launch (expected: an error): %n_steps >= 1; the barrier never
// completes; warpgroup 0 hangs in step 0, and warpgroup 1 at the second meet.
//
// Follows Dao-AILab/flash-attention hopper/named_barrier.hpp (FwdNamedBarriers::
// WarpSchedulerWG1/WG2) and mainloop_fwd_sm90_tma_gmma_ws.hpp
// (warp_scheduler_barrier_sync: NamedBarrier::sync(2 * 128, WarpSchedulerWG1 +
// own warpgroup); warp_scheduler_barrier_arrive: arrive(2 * 128, the next
// warpgroup's id); mma_init: warpgroup 2 arrives on warpgroup 1's barrier so
// that warpgroup 1 goes first).
// 256 threads, two warpgroups, no producer: thread 0 loads the 4096-byte input
// tile with one bulk copy on an mbarrier, everyone waits for it. Then %n_steps
// (a parameter) steps: warpgroup g syncs on its turn barrier, does its step,
// hands the turn to the other; both meet on @step_done (256) so that the
// shared accumulator of a step is complete before the next starts.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @acc() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i32>
  mbarrier.named_barrier @turn_wg1
  mbarrier.named_barrier @turn_wg2
  mbarrier.named_barrier @step_done
  gpu.func @named_pingpong(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n_steps: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %is_tid0 {
      %bp = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      mbarrier.arrive_expect_tx %bar[%c0], %i4096 : !mbarrier.group<1>
      nvvm.cp.async.bulk.shared.cluster.global %tile, %src, %bp, %i4096 : !llvm.ptr<3>, !llvm.ptr<1>
    }
    mbarrier.wait %bar[%c0], %i0 : !mbarrier.group<1>
    %accs = llvm.mlir.addressof @acc : !llvm.ptr<3>
    %mine = llvm.getelementptr %accs[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
    %in = llvm.getelementptr %tile[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x i32>
    %x = llvm.load %in : !llvm.ptr<3> -> i32
    llvm.store %i0, %mine : i32, !llvm.ptr<3>
    %first = arith.cmpi eq, %wg, %i0 : i32
    %second = arith.cmpi eq, %wg, %i1 : i32
    scf.if %second {
      mbarrier.bar_arrive @turn_wg1 threads 256
    }
    %peer_tid = arith.xori %tid, %i128 : i32
    %peer = llvm.getelementptr %accs[0, %peer_tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
    scf.for %i = %i0 to %n_steps step %i1 : i32 {
      scf.if %first {
        mbarrier.bar_sync @turn_wg1 threads 256
      } else {
        mbarrier.bar_sync @turn_wg2 threads 256
      }
      %old = llvm.load %mine : !llvm.ptr<3> -> i32
      %new = arith.addi %old, %x : i32
      llvm.store %new, %mine : i32, !llvm.ptr<3>
      scf.if %first {
        mbarrier.bar_arrive @turn_wg2 threads 256
      } else {
        mbarrier.bar_arrive @turn_wg1 threads 256
      }
      scf.if %first {
        mbarrier.bar_sync @step_done threads 256 // BUG
      }
      %o = llvm.load %peer : !llvm.ptr<3> -> i32
      %tid64 = arith.extui %tid : i32 to i64
      %p = llvm.getelementptr %out[%tid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %o, %p : i32, !llvm.ptr<1>
      mbarrier.bar_sync @step_done threads 256
    }
    gpu.return
  }
}
}
