// Correct-kernel corpus: CUTLASS's TMA warp-specialized pipeline in a 1x1
// cluster. The checker must be silent (no error, no warning), and the
// kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes

// NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp,
// `PipelineTmaAsync<Stages = 4>` with ClusterShape 1x1, as the mainloop of
// include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp
// (`load()`, `load_tail()`, `mma()`) in KernelTmaWarpSpecializedCooperative
// (warp group 0 produces, warp groups 1 and 2 consume every stage):
// - init by one thread: full[s] = 1 (producer_arv_cnt), empty[s] =
//   (cx + cy - 1) x consumer warp groups = 2; fence_barrier_init; then
//   __syncthreads (no cluster barrier for a 1x1 cluster);
// - producer_acquire: empty[s].wait(phase) with the producer's start
//   state at phase 1, then the leader's full[s].arrive_and_expect_tx;
//   the TMA copy completes on producer_get_barrier = full[s];
// - consumer_wait: full[s].wait(phase); consumer_release:
//   empty[s].arrive(dst_blockid = 0, is_signalling_thread), one signalling
//   thread per consumer warp group in a 1x1 cluster;
// - load_tail (producer_tail): Stages more producer_acquire waits so that
//   the producer does not exit while consumers still release.
gpu.module @cutlass_pipeline_tma_async {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
  gpu.func @gemm_mainloop(%a: !llvm.ptr<1>, %k_tiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c8192 = arith.constant 8192 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %bytes = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %in_wg = arith.remui %tid, %c128 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    %signalling = arith.cmpi eq, %in_wg, %c0 : index
    %producer = arith.cmpi eq, %wg, %c0 : index
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %one : !mbarrier.group<4>
        mbarrier.init %empty[%s], %two : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    nvvm.barrier0
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    scf.if %producer {
      // load(): one stage per k tile.
      %st:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %c0, %phase = %zero) -> (index, i32) {
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<4>
        scf.if %leader {
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<4>
          %off = arith.muli %s, %c8192 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %full[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %a, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c4 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %phase, %one : i32
        %p2 = arith.select %wrap, %flip, %phase : i32
        scf.yield %s2, %p2 : index, i32
      }
      // load_tail(): wait until the consumers released every stage.
      %tail:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %st#0, %phase = %st#1) -> (index, i32) {
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<4>
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c4 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %phase, %one : i32
        %p2 = arith.select %wrap, %flip, %phase : i32
        scf.yield %s2, %p2 : index, i32
      }
    } else {
      // mma(): both consumer warp groups take every stage.
      %st:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %c0, %phase = %zero) -> (index, i32) {
        mbarrier.wait %full[%s], %phase : !mbarrier.group<4>
        // ... warpgroup MMAs on the stage, warpgroup_wait ...
        mbarrier.arrive %empty[%s] on %zero if %signalling : !mbarrier.group<4>
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c4 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %phase, %one : i32
        %p2 = arith.select %wrap, %flip, %phase : i32
        scf.yield %s2, %p2 : index, i32
      }
    }
    gpu.return
  }
}
