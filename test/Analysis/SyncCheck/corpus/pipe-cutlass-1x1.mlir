// Correct-kernel corpus (issue 20): CUTLASS's TMA warp-specialized mainloop
// in a 1x1 cluster written with this dialect's pipeline ops (mbarrier.pipe.*),
// which derive the counts and phases that cutlass-tma-async-1x1.mlir writes by
// hand (the 2x1 one: pipe-cutlass-2x1.mlir). The checker (after
// mbarrier-lower-pipes) must say nothing about it.
//
// Source: NVIDIA/cutlass, include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync: producer_try_acquire / producer_acquire(token),
// consumer_try_wait / consumer_wait(token), consumer_release,
// producer_tail), include/cutlass/gemm/collective/
// sm90_mma_tma_gmma_ss_warpspecialized.hpp (load, mma) and
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp
// (producer warp 0, two consumer warp groups). As docs/pipelines.md asks, one
// thread per consumer warp group releases, after a named barrier of its
// warp group (the source spreads the release over 16 signalling threads
// instead, each after warpgroup_wait).
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --implicit-check-not=mapa.shared --input-file=%t.ptx
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64

// 1x1, the try/finalize pairs: the producer tests the empty barrier before
// it blocks (producer_try_acquire), the consumers test the full one
// (consumer_try_wait) and pass the result as `ready`.
gpu.module @pipe_cutlass_1x1_try {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %ktiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tile = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %wt = arith.remui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %wg_first = arith.cmpi eq, %wt, %i0 : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %g = mbarrier.alloc : !mbarrier.group<8>
    %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, consumers = 2>
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        mbarrier.pipe.init %p : !mbarrier.pipe<4, tma, consumers = 2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
          %end = scf.for %k = %c0 to %ktiles step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
            %ready = mbarrier.pipe.try_acquire %p, %s : !mbarrier.pipe<4, tma, consumers = 2>
            %slot, %next = mbarrier.pipe.acquire %p, %s ready %ready : !mbarrier.pipe<4, tma, consumers = 2>
            %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
            %s32 = arith.index_cast %stage : index to i32
            %off = arith.muli %s32, %tile : i32
            %dst = llvm.getelementptr %sa[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %gA, %tile : !mbarrier.pipe<4, tma, consumers = 2>
            mbarrier.pipe.commit %p[%slot], bytes %tile : !mbarrier.pipe<4, tma, consumers = 2>
            scf.yield %next : !mbarrier.pipe_state<producer>
          }
          mbarrier.pipe.tail %p, %end : !mbarrier.pipe<4, tma, consumers = 2>
        }
      }
    }
    scf.if %consumer_wg {
      %id = arith.addi %wg, %i1 : i32
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %k = %c0 to %ktiles step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %ready = mbarrier.pipe.try_wait %p, %s : !mbarrier.pipe<4, tma, consumers = 2>
        %slot, %next = mbarrier.pipe.wait %p, %s ready %ready : !mbarrier.pipe<4, tma, consumers = 2>
        // The warp group's reads (wgmma + warpgroup_wait), then one thread releases.
        nvvm.barrier id = %id number_of_threads = %i128
        mbarrier.pipe.release %p[%slot] if %wg_first : !mbarrier.pipe<4, tma, consumers = 2>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

