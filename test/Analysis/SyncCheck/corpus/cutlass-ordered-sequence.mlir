// Correct-kernel corpus: CUTLASS's ping-pong order barrier. The checker
// must be silent (no error, no warning), and the kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.try_wait.parity

// NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp,
// `OrderedSequenceBarrier<SequenceDepth = 2, SequenceLength = 2>` as
// `MathWarpGroupOrderBarrier` of
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp
// (`operator()`, the two math warp groups): barrier_[d][g] is initialized
// with group_size = 128 by one elected thread of warp 0, then
// fence_barrier_init and __syncthreads. Each math warp group g runs the
// same code with params.group_id = g: per tile, `wait()` (barrier
// [stage][g], its phase; group 0 starts at the opposite phase, so its
// first wait passes), the MMA, `arrive()` on barrier [stage][(g + 1) % 2]
// by all 128 threads and `++stage`; then the same around the epilogue.
gpu.module @cutlass_ordered_sequence {
  gpu.func @pingpong_order(%tiles: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %group_size = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %g = arith.divui %tid, %c128 : index
    %bars = mbarrier.alloc : !mbarrier.group<4>
    // warp_idx == 0 && elect_one_sync(): thread 0.
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %d = %c0 to %c2 step %c1 {
        %d2 = arith.muli %d, %c2 : index
        mbarrier.init %bars[%d2], %group_size : !mbarrier.group<4>
        %d21 = arith.addi %d2, %c1 : index
        mbarrier.init %bars[%d21], %group_size : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    nvvm.barrier0
    // stage_ = {index 0, phase group_id == 0}
    %is0 = arith.cmpi eq, %g, %c0 : index
    %phase0 = arith.extui %is0 : i1 to i32
    %next_g = arith.addi %g, %c1 : index
    %signal = arith.remui %next_g, %c2 : index
    %end:2 = scf.for %t = %c0 to %tiles step %c1 iter_args(%stage = %c0, %phase = %phase0) -> (index, i32) {
      // wait(): barrier_[stage][group_id].wait(phase)
      %s2 = arith.muli %stage, %c2 : index
      %mine = arith.addi %s2, %g : index
      mbarrier.wait %bars[%mine], %phase : !mbarrier.group<4>
      // ... the math warp group's MMA ...
      // arrive(): barrier_[stage][(group_id + 1) % 2].arrive(); ++stage
      %theirs = arith.addi %s2, %signal : index
      mbarrier.arrive %bars[%theirs] : !mbarrier.group<4>
      %st1 = arith.addi %stage, %c1 : index
      %wrap = arith.cmpi eq, %st1, %c2 : index
      %st2 = arith.select %wrap, %c0, %st1 : index
      %flip = arith.xori %phase, %one : i32
      %ph2 = arith.select %wrap, %flip, %phase : i32
      // The same order around the epilogue.
      %e2 = arith.muli %st2, %c2 : index
      %emine = arith.addi %e2, %g : index
      mbarrier.wait %bars[%emine], %ph2 : !mbarrier.group<4>
      // ... the math warp group's epilogue ...
      %etheirs = arith.addi %e2, %signal : index
      mbarrier.arrive %bars[%etheirs] : !mbarrier.group<4>
      %st3 = arith.addi %st2, %c1 : index
      %wrap2 = arith.cmpi eq, %st3, %c2 : index
      %st4 = arith.select %wrap2, %c0, %st3 : index
      %flip2 = arith.xori %ph2, %one : i32
      %ph4 = arith.select %wrap2, %flip2, %ph2 : i32
      scf.yield %st4, %ph4 : index, i32
    }
    gpu.return
  }
}
