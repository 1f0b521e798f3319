// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cutlass_mma_pipelined(
// Follows NVIDIA/cutlass include/cutlass/gemm/threadblock/mma_pipelined.h
// (MmaPipelined, the CUTLASS 2.x two-stage mainloop without cp.async: the
// global tile iterators load the next tile into registers while the warps
// compute on the current shared-memory stage; at the last warp_mma_k the
// registers are stored into the other stage (smem_write_stage_idx ^= 1),
// then one __syncthreads() per tile, which both publishes the stored stage
// and ends every warp's reads of the stage that the next store overwrites).
// The prologue stores tile 0 into stage 0 and syncs. 128 threads; each
// thread stores 16 bytes of each A and B tile and reads another warp's.
// %k_tiles >= 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @sA() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @sB() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @cutlass_mma_pipelined(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %sA = llvm.mlir.addressof @sA : !llvm.ptr<3>
    %sB = llvm.mlir.addressof @sB : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %other_t0 = arith.addi %tid, %i32 : i32
    %other_t = arith.remui %other_t0, %i128 : i32
    %other = arith.muli %other_t, %i16 : i32
    %gbase = arith.muli %bid, %k_tiles : i32

    // Prologue: tile 0 -> registers -> stage 0.
    %g0 = arith.muli %gbase, %i2048 : i32
    %g0m = arith.addi %g0, %mine : i32
    %ga0 = llvm.getelementptr %a[%g0m] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %gb0 = llvm.getelementptr %b[%g0m] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %ra0 = llvm.load %ga0 : !llvm.ptr<1> -> vector<4xf32>
    %rb0 = llvm.load %gb0 : !llvm.ptr<1> -> vector<4xf32>
    %sa0 = llvm.getelementptr %sA[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %sb0 = llvm.getelementptr %sB[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    llvm.store %ra0, %sa0 : vector<4xf32>, !llvm.ptr<3>
    llvm.store %rb0, %sb0 : vector<4xf32>, !llvm.ptr<3>
    gpu.barrier

    %z = arith.constant 0.0 : f32
    %acc = scf.for %t = %i0 to %k_tiles step %i1 iter_args(%sum = %z) -> (f32) : i32 {
      // Global loads of tile t + 1 into registers (clamped to the last tile).
      %tn = arith.addi %t, %i1 : i32
      %more = arith.cmpi slt, %tn, %k_tiles : i32
      %last = arith.subi %k_tiles, %i1 : i32
      %tl = arith.select %more, %tn, %last : i32
      %gt = arith.addi %gbase, %tl : i32
      %goff0 = arith.muli %gt, %i2048 : i32
      %goff = arith.addi %goff0, %mine : i32
      %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      %gb = llvm.getelementptr %b[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      %ra = llvm.load %ga : !llvm.ptr<1> -> vector<4xf32>
      %rb = llvm.load %gb : !llvm.ptr<1> -> vector<4xf32>
      // Warp MMAs on stage t % 2.
      %rst = arith.remui %t, %i2 : i32
      %roff0 = arith.muli %rst, %i2048 : i32
      %roff = arith.addi %roff0, %other : i32
      %pa = llvm.getelementptr %sA[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %pb = llvm.getelementptr %sB[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %xa = llvm.load %pa : !llvm.ptr<3> -> f32
      %xb = llvm.load %pb : !llvm.ptr<3> -> f32
      %prod = arith.mulf %xa, %xb : f32
      %sum2 = arith.addf %sum, %prod : f32
      // Store tile t + 1 into the other stage (smem_write_stage_idx ^= 1).
      scf.if %more {
        %wst = arith.remui %tn, %i2 : i32
        %woff0 = arith.muli %wst, %i2048 : i32
        %woff = arith.addi %woff0, %mine : i32
        %sa = llvm.getelementptr %sA[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %sb = llvm.getelementptr %sB[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %ra, %sa : vector<4xf32>, !llvm.ptr<3>
        llvm.store %rb, %sb : vector<4xf32>, !llvm.ptr<3>
      }
      gpu.barrier
      scf.yield %sum2 : f32
    }
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
