// Correct-kernel corpus (issue 20): the ring of round-robin-warps.mlir with
// each consumer warp's loop written the way CUDA code strides work over
// warps, `for (int i = warp; i < items; i += 4)`: the loop's lower bound
// depends on the thread. Warp w runs the trips i = w, w + 4, ...; every item
// is consumed by exactly one warp, whose lane 0 releases its stage once. The
// checker must say nothing about it.
//
// Source: as round-robin-warps.mlir (the ping-pong interleaving of
// NVIDIA/cutlass include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp
// at warp granularity, the ring of include/cutlass/pipeline/sm90_pipeline.hpp),
// with the grid-stride loop idiom of the CUDA C++ Programming Guide.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: mbarrier.arrive.expect_tx
// CHECK: bar.warp.sync

gpu.module @round_robin_consumer_warps_strided {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %rounds: index) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %full_mask = arith.constant -1 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %lane = arith.remui %t, %i32 : i32
    %thread0 = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %warp, %i1 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    // full [0, 8), empty [8, 16).
    %g = mbarrier.alloc : !mbarrier.group<16>
    scf.if %thread0 {
      scf.for %s = %c0 to %c8 step %c1 {
        %e = arith.addi %s, %c8 : index
        mbarrier.init %g[%s], %i1 : !mbarrier.group<16>
        mbarrier.init %g[%e], %i1 : !mbarrier.group<16>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %items = arith.muli %rounds, %c4 : index
    // The producer thread: every item in order.
    scf.if %thread0 {
      scf.for %i = %c0 to %items step %c1 {
        %s = arith.remui %i, %c8 : index
        %r = arith.divui %i, %c8 : index
        %pb = arith.andi %r, %c1 : index
        %ph = arith.index_cast %pb : index to i32
        %e = arith.addi %s, %c8 : index
        mbarrier.wait %g[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<16>
        mbarrier.arrive_expect_tx %g[%s], %bytes : !mbarrier.group<16>
        %bar = mbarrier.ptr %g[%s] : !mbarrier.group<16> -> !llvm.ptr<3>
        %s32 = arith.index_cast %s : index to i32
        %off = arith.muli %s32, %bytes : i32
        %dst = llvm.getelementptr %ring[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %i32v = arith.index_cast %i : index to i32
        %goff = arith.muli %i32v, %bytes : i32
        %gs = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.bulk.shared.cluster.global %dst, %gs, %bar, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
      }
    }
    // Consumer warps 1..4: for (i = warp - 1; i < items; i += 4).
    scf.if %consumer {
      %w32 = arith.subi %warp, %i1 : i32
      %w = arith.index_cast %w32 : i32 to index
      scf.for %i = %w to %items step %c4 {
        %s = arith.remui %i, %c8 : index
        %r = arith.divui %i, %c8 : index
        %pb = arith.andi %r, %c1 : index
        %ph = arith.index_cast %pb : index to i32
        %e = arith.addi %s, %c8 : index
        mbarrier.wait %g[%s], %ph : !mbarrier.group<16>
        %s32 = arith.index_cast %s : index to i32
        %base = arith.muli %s32, %bytes : i32
        %l4 = arith.muli %lane, %i4 : i32
        %off = arith.addi %base, %l4 : i32
        %p = llvm.getelementptr %ring[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = llvm.load %p : !llvm.ptr<3> -> i32
        %i32v = arith.index_cast %i : index to i32
        %orow = arith.muli %i32v, %i32 : i32
        %oi = arith.addi %orow, %lane : i32
        %o = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %o : i32, !llvm.ptr<1>
        nvvm.bar.warp.sync %full_mask : i32
        mbarrier.arrive %g[%e] if %lane0 : !mbarrier.group<16>
      }
    }
    gpu.return
  }
}
