// Correct-kernel corpus (issue 20): CUTLASS's TMA warp-specialized mainloop
// in a 2x1 cluster written with this dialect's pipeline ops (mbarrier.pipe.*),
// which derive the counts, phases, multicast masks and release targets that
// cutlass-tma-async-multicast.mlir writes by hand (the 1x1 one:
// pipe-cutlass-1x1.mlir). The checker (after mbarrier-lower-pipes) must say
// nothing about it.
//
// Source: NVIDIA/cutlass, include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync: producer_acquire, consumer_wait, consumer_release,
// producer_tail; empty count (cx + cy - 1) x consumer warp groups),
// include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp
// (load with A local and B multicast along the cluster's M extent; mma with
// the release one k-tile late, K_PIPE_MMAS = 1; mma_tail) and
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp
// (producer warp 0, two consumer warp groups). As docs/pipelines.md asks, one
// thread per consumer warp group releases, after a named barrier of its
// warp group (the source spreads the release over 16 signalling threads
// instead, each after warpgroup_wait).
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: .multicast::cluster
// CHECK: fence.release.sync_restrict::shared::cta.cluster
// CHECK-COUNT-2: mbarrier.arrive.relaxed.cluster.shared::cluster.b64

// 2x1, B multicast along the row, the release one k-tile late (a consumer
// slot carried through the loop), the producer tail before exit.
gpu.module @pipe_cutlass_2x1_lagging {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %mapB: !llvm.ptr, %ktiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tile = arith.constant 4096 : i32
    %half = arith.constant 2048 : i32
    %tx = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %wt = arith.remui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %wg_first = arith.cmpi eq, %wt, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %bx = arith.remui %rank, %i2 : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %g = mbarrier.alloc : !mbarrier.group<8>
    %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        mbarrier.pipe.init %p : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
          %end = scf.for %k = %c0 to %ktiles step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
            %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
            %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
            %s32 = arith.index_cast %stage : index to i32
            %off = arith.muli %s32, %tile : i32
            %da = llvm.getelementptr %sa[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %bhalf = arith.muli %bx, %half : i32
            %boff = arith.addi %off, %bhalf : i32
            %db = llvm.getelementptr %sb[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %k32 = arith.index_cast %k : index to i32
            %bcol = arith.muli %bx, %i32 : i32
            mbarrier.pipe.cp_async_bulk %p[%slot], %da, %gA, %tile : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
            mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %db, %mapB[%k32, %bcol], bytes 2048 multicast row : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>, !llvm.ptr
            mbarrier.pipe.commit %p[%slot], bytes %tx : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
            scf.yield %next : !mbarrier.pipe_state<producer>
          }
          mbarrier.pipe.tail %p, %end : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
        }
      }
    }
    scf.if %consumer_wg {
      %id = arith.addi %wg, %i1 : i32
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
      %last, %end = scf.for %k = %c1 to %ktiles step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
        // warpgroup_wait<1>: the previous k-tile's MMAs are done.
        nvvm.barrier id = %id number_of_threads = %i128
        mbarrier.pipe.release %p[%prev] if %wg_first : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
        scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
      }
      nvvm.barrier id = %id number_of_threads = %i128
      mbarrier.pipe.release %p[%last] if %wg_first : !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 1], multicast = row>
    }
    gpu.return
  }
}
