// Correct-kernel corpus: CUTLASS's ping-pong order barrier written with the
// ordered-sequence ops (cutlass-ordered-sequence.mlir is the same protocol
// in raw barrier ops). The lowered barriers must leave the checker silent
// (no error, no warning), and the kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.arrive

// NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp,
// `OrderedSequenceBarrier<SequenceDepth = 2, SequenceLength = 2>` as
// `MathWarpGroupOrderBarrier` of
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp:
// one elected thread initializes barrier_[d][g] with group_size = 128, then
// fence_barrier_init and __syncthreads; each math warp group g (threads
// 128 g .. 128 g + 127) runs the same code with group_id = g: per tile,
// wait() at stage 0 (the mainloop), arrive() by all 128 threads, then the
// same at stage 1 (the epilogue).
gpu.module @cutlass_ordered_sequence_ops {
  gpu.func @pingpong_order(%tiles: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %i128 : i32
    %bars = mbarrier.alloc : !mbarrier.group<4>
    %order = mbarrier.seq.create %bars : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      mbarrier.seq.init %order : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %st = mbarrier.seq.start %order, %wg : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %end = scf.for %i = %c0 to %tiles step %c1 iter_args(%s = %st) -> (!mbarrier.seq_state) {
      %mma, %s1 = mbarrier.seq.wait %order, %s : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's MMA ...
      mbarrier.seq.arrive %order[%mma] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %epi, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's epilogue ...
      mbarrier.seq.arrive %order[%epi] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      scf.yield %s2 : !mbarrier.seq_state
    }
    gpu.return
  }
}
