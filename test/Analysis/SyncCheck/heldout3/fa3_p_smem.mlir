// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fa3_p_smem(
// Follows Dao-AILab/flash-attention hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp
// (mma() with Mma1_is_RS = false: the softmax's P is written from registers
// into smem_p (cute::copy(smem_tiled_copy_P, ...)), then
// cutlass::arch::fence_view_async_shared() and a named-barrier sync of the
// MMA threads (NamedBarrierSync(NumMmaThreads, PFull-style id)) before the
// PV GEMM reads P from shared memory as its A operand; V comes through
// pipeline_v (consumer_wait / consumer_release after warpgroup_wait<0>))
// with hopper/named_barrier.hpp.
// 160 threads: warpgroup 0 computes (thread 0 releases), thread 128 loads V.
// One V stage of 4096 bytes; smem_p 2048 bytes; %n_blocks >= 1.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @smem_p() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  mbarrier.named_barrier @p_full
  gpu.func @fa3_p_smem(%map_v: !llvm.ptr, %s_in: !llvm.ptr<1>, %o: !llvm.ptr<1>, %n_blocks: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vb = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    %pb = llvm.mlir.addressof @smem_p : !llvm.ptr<3>
    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      scf.for %n = %i0 to %n_blocks step %i1 : i32 {
        %ph = arith.andi %n, %i1 : i32
        mbarrier.wait %empty[%c0], %ph {phase_offset = 1 : i32} : !mbarrier.group<1>
        mbarrier.arrive_expect_tx %full[%c0], %i4096 : !mbarrier.group<1>
        %row = arith.muli %n, %i64 : i32
        mbarrier.cp_async_bulk_tensor %full[%c0], %vb, %map_v[%i0, %row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      %pa32 = llvm.ptrtoint %pb : !llvm.ptr<3> to i32
      %pa = arith.extui %pa32 : i32 to i64
      %psh = arith.shrui %pa, %c16 : i64
      %dp = arith.ori %psh, %desc_hi : i64
      %va32 = llvm.ptrtoint %vb : !llvm.ptr<3> to i32
      %va = arith.extui %va32 : i32 to i64
      %vsh = arith.shrui %va, %c16 : i64
      %dv = arith.ori %vsh, %desc_hi : i64
      %po = arith.muli %tid, %i16 : i32
      %pp = llvm.getelementptr %pb[%po] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %n = %i0 to %n_blocks step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        // P of this n_block (the softmax's output), into smem_p.
        %si0 = arith.muli %n, %i128 : i32
        %si = arith.addi %si0, %tid : i32
        %sp = llvm.getelementptr %s_in[%si] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        %p = llvm.load %sp : !llvm.ptr<1> -> vector<4xf32>
        llvm.store %p, %pp : vector<4xf32>, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_sync @p_full threads 128
        %ph = arith.andi %n, %i1 : i32
        mbarrier.wait %full[%c0], %ph : !mbarrier.group<1>
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %dp, %dv, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %empty[%c0] if %is_tid0 : !mbarrier.group<1>
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %r0 = arith.muli %bid, %i128 : i32
      %r = arith.addi %r0, %tid : i32
      %op = llvm.getelementptr %o[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
