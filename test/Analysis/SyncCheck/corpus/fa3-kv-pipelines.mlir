// Correct-kernel corpus: FlashAttention-3's forward mainloop in a 1-CTA
// cluster. The checker must be silent (no error, no warning), and the
// kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.arrive.expect_tx

// Dao-AILab/flash-attention hopper/flash_fwd_kernel_sm90.h (`operator()`:
// the barriers' init, the producer warp group and the MMA warp groups) and
// hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp (`load()`, `mma()`,
// `load_tail()`), with ClusterShape 1 (MainloopPipelineK/V =
// PipelineTmaAsyncNoCluster, hopper/sm90_pipeline_no_cluster.hpp):
// - barrier_Q (init 1): the producer's arrive_and_expect_tx and TMA of Q;
//   the MMA warp groups wait(work_idx % 2 = 0);
// - pipeline_k and pipeline_v, 2 stages each: full init 1, empty init = 2
//   MMA warp groups (one signalling thread each); per n_block the producer
//   acquires and loads K then V, the consumers wait for K, release it,
//   wait for V, release it;
// - barrier_O (init cluster size x 2 MMA warp groups): each MMA warp
//   group's elected thread arrives on barrier_O of every CTA of the
//   cluster (`for cta_id < size(ClusterShape)`), and the producer waits on
//   it in load_tail before it exits.
gpu.module @fa3_forward {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<20480 x i8>
  gpu.func @mainloop(%q: !llvm.ptr<1>, %k: !llvm.ptr<1>, %v: !llvm.ptr<1>, %n_blocks: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c4096 = arith.constant 4096 : index
    %c12288 = arith.constant 12288 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %in_wg = arith.remui %tid, %c128 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    %signalling = arith.cmpi eq, %in_wg, %c0 : index
    %producer = arith.cmpi eq, %wg, %c0 : index
    %bq = mbarrier.alloc : !mbarrier.group<1>
    %bo = mbarrier.alloc : !mbarrier.group<1>
    %k_full = mbarrier.alloc : !mbarrier.group<2>
    %k_empty = mbarrier.alloc : !mbarrier.group<2>
    %v_full = mbarrier.alloc : !mbarrier.group<2>
    %v_empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %bq[%c0], %one : !mbarrier.group<1>
      mbarrier.init %bo[%c0], %two : !mbarrier.group<1>
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %k_full[%s], %one : !mbarrier.group<2>
        mbarrier.init %k_empty[%s], %two : !mbarrier.group<2>
        mbarrier.init %v_full[%s], %one : !mbarrier.group<2>
        mbarrier.init %v_empty[%s], %two : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.barrier0
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %q7 = llvm.addrspacecast %base : !llvm.ptr<3> to !llvm.ptr<7>
    scf.if %producer {
      scf.if %leader {
        mbarrier.arrive_expect_tx %bq[%c0], %bytes : !mbarrier.group<1>
        %bar = mbarrier.ptr %bq[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        nvvm.cp.async.bulk.shared.cluster.global %q7, %q, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
      }
      %st:2 = scf.for %n = %c0 to %n_blocks step %c1 iter_args(%s = %c0, %phase = %zero) -> (index, i32) {
        %slot = arith.muli %s, %c4096 : index
        // pipeline_k.producer_acquire, then the TMA of K into stage s.
        mbarrier.wait %k_empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
        scf.if %leader {
          mbarrier.arrive_expect_tx %k_full[%s], %bytes : !mbarrier.group<2>
          %off = arith.addi %slot, %c4096 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %k_full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %k, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
        // pipeline_v.producer_acquire, then the TMA of V.
        mbarrier.wait %v_empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
        scf.if %leader {
          mbarrier.arrive_expect_tx %v_full[%s], %bytes : !mbarrier.group<2>
          %off = arith.addi %slot, %c12288 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %v_full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %v, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c2 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %phase, %one : i32
        %p2 = arith.select %wrap, %flip, %phase : i32
        scf.yield %s2, %p2 : index, i32
      }
      // load_tail: the epilogue is done with shared memory (barrier_O).
      mbarrier.wait %bo[%c0], %zero : !mbarrier.group<1>
    } else {
      mbarrier.wait %bq[%c0], %zero : !mbarrier.group<1>
      %st:2 = scf.for %n = %c0 to %n_blocks step %c1 iter_args(%s = %c0, %phase = %zero) -> (index, i32) {
        mbarrier.wait %k_full[%s], %phase : !mbarrier.group<2>
        // ... S = Q K^T ...
        mbarrier.arrive %k_empty[%s] if %signalling : !mbarrier.group<2>
        mbarrier.wait %v_full[%s], %phase : !mbarrier.group<2>
        // ... O += P V ...
        mbarrier.arrive %v_empty[%s] if %signalling : !mbarrier.group<2>
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c2 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %phase, %one : i32
        %p2 = arith.select %wrap, %flip, %phase : i32
        scf.yield %s2, %p2 : index, i32
      }
      // epilogue: barrier_O.arrive(cta_id, lane_predicate) for every CTA.
      scf.for %cta = %c0 to %c1 step %c1 {
        %r = arith.index_cast %cta : index to i32
        mbarrier.arrive %bo[%c0] on %r if %signalling : !mbarrier.group<1>
      }
    }
    gpu.return
  }
}
