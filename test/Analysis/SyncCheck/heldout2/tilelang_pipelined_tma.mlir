// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry tilelang_pipelined_tma(
// Follows tile-ai/tilelang's T.Pipelined(T.ceildiv(K, block_K),
// num_stages=3) GEMM on sm_90 without warp specialization
// (examples/gemm/example_gemm.py) as src/transform/inject_pipeline.cc and
// src/transform/inject_tma_barrier.cc lower it: a prologue in which thread 0
// issues the copies of stages 0 and 1 (mbarrier_expect_tx + tma_load on the
// stage's barrier), then per k: thread 0 issues k + 2 into stage (k + 2) % 3,
// every thread waits mbarrier_wait_parity(bar[k % 3], (k / 3) % 2), the
// wgmma reads the stage and is waited for, and a __syncthreads() ends the
// step (the stage read in step k is refilled in step k + 1).
// 128 threads (one warpgroup); A and B tiles 4096 bytes each;
// %k_tiles = ceildiv(K, block_K) steps (a parameter).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @a_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @b_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @tilelang_pipelined_tma(%a_desc: !llvm.ptr, %b_desc: !llvm.ptr, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bx_x = gpu.block_id x
    %bx = arith.index_cast %bx_x : index to i32
    %bar = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %bar[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @a_shared : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @b_shared : !llvm.ptr<3>
    %row = arith.muli %bx, %i32 : i32
    // Prologue: stages 0 and 1.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %i2 step %i1 : i32 {
        %live = arith.cmpi slt, %k, %k_tiles : i32
        scf.if %live {
          %s = arith.index_cast %k : i32 to index
          mbarrier.expect_tx %bar[%s], %i8192 : !mbarrier.group<3>
          %off = arith.muli %k, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i32 : i32
          mbarrier.cp_async_bulk_tensor %bar[%s], %adst, %a_desc[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bar[%s], %bdst, %b_desc[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.arrive %bar[%s] : !mbarrier.group<3>
        }
      }
    }
    %z = llvm.mlir.zero : !acc
    %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
      %nk = arith.addi %k, %i2 : i32
      %issue0 = arith.cmpi slt, %nk, %k_tiles : i32
      %issue = arith.andi %issue0, %is_tid0 : i1
      scf.if %issue {
        %ns32 = arith.remui %nk, %i3 : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.expect_tx %bar[%ns], %i8192 : !mbarrier.group<3>
        %off = arith.muli %ns32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %nk, %i32 : i32
        mbarrier.cp_async_bulk_tensor %bar[%ns], %adst, %a_desc[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bar[%ns], %bdst, %b_desc[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.arrive %bar[%ns] : !mbarrier.group<3>
      }
      %s32 = arith.remui %k, %i3 : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %i3 : i32
      %ph = arith.remui %lap, %i2 : i32
      mbarrier.wait %bar[%s], %ph : !mbarrier.group<3>
      %off = arith.muli %s32, %i4096 : i32
      %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
      %aa = arith.extui %aa32 : i32 to i64
      %ash = arith.shrui %aa, %c16 : i64
      %da = arith.ori %ash, %desc_hi : i64
      %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
      %ba = arith.extui %ba32 : i32 to i64
      %bsh = arith.shrui %ba, %c16 : i64
      %db = arith.ori %bsh, %desc_hi : i64
      nvvm.wgmma.fence.aligned
      %a2 = nvvm.wgmma.mma_async %da, %db, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      gpu.barrier
      scf.yield %a2 : !acc
    }
    %e = llvm.extractvalue %acc[0] : !acc
    %o0 = arith.muli %bx, %i32 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %e, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
