// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry tilelang_ws_gemm(
// Follows tile-ai/tilelang's warp-specialized GEMM as its WarpSpecialized
// pass lowers T.Pipelined (src/transform/warp_specialized_rewriter.cc;
// examples/warp_specialize/): T.create_list_of_mbarrier with an arrival
// count of the producer's thread count for the full barriers and of the
// consumer's for the empty ones; in the producer branch every thread waits
// the empty barrier with parity ((k // stages) & 1) ^ 1, the first producer
// thread alone sets mbarrier_expect_tx and issues the TMA loads, then every
// producer thread arrives on the full barrier; every consumer thread waits
// the full barrier, runs the gemm, and arrives on the empty barrier.
// 256 threads: warpgroup 0 consumes, warpgroup 1 produces (the rewriter puts
// the producer last); 3 stages; %k_tiles (a parameter) iterations.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @tilelang_ws_gemm(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i64 : i32
    %full = mbarrier.alloc : !mbarrier.group<3>
    %empty = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i128 : !mbarrier.group<3>
        mbarrier.init %empty[%s], %i128 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %is_producer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_producer {
      %first = arith.cmpi eq, %tid, %i128 : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i3 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i3 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%s], %pph : !mbarrier.group<3>
        scf.if %first {
          mbarrier.expect_tx %full[%s], %i8192 : !mbarrier.group<3>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i64 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        }
        mbarrier.arrive %full[%s] : !mbarrier.group<3>
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_consumer {
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %s32 = arith.remui %k, %i3 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i3 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<3>
        %off = arith.muli %s32, %i4096 : i32
        %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
        %aa = arith.extui %aa32 : i32 to i64
        %ash = arith.shrui %aa, %c16 : i64
        %desc_a = arith.ori %ash, %desc_hi : i64
        %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
        %ba = arith.extui %ba32 : i32 to i64
        %bsh = arith.shrui %ba, %c16 : i64
        %desc_b = arith.ori %bsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %desc_a, %desc_b, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %empty[%s] : !mbarrier.group<3>
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %r0 = arith.muli %bid, %i128 : i32
      %r = arith.addi %r0, %tid : i32
      %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
