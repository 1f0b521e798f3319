// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fa3_paged_kv(
// Follows Dao-AILab/flash-attention hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp
// (load(): barrier_Q.arrive_and_expect_tx + the Q TMA copy; per n_block,
// from n_block_max - 1 down to n_block_min, pipeline_k.producer_acquire, the
// K copy, pipeline_v.producer_acquire, the V copy; mma(): barrier_Q.wait(0),
// consumer_wait(pipeline_k), S = Q K^T, warpgroup_wait<0>,
// consumer_release(pipeline_k), then the same for V) with hopper/paged_kv.h
// and hopper/seqlen.h (paged KV with page_size == kBlockN read through TMA:
// the page of n_block is page_table[bidb][n_block]; seqlen_k is
// seqused_k[bidb], read by both roles, so they agree on n_block_max).
// 160 threads: warpgroup 0 computes, thread 128 loads (the producer warp's
// elected lane). kBlockM = 64, kBlockN = 128, head dim 64, bf16: Q 8192 bytes,
// K and V 16384 bytes per block; K and V rings of 2 stages. One work tile per
// CTA (%batch CTAs); seqused_k[b] >= 1.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_q() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<32768 x i8>
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<32768 x i8>
  gpu.func @fa3_paged_kv(%tma_q: !llvm.ptr, %tma_k: !llvm.ptr, %tma_v: !llvm.ptr, %o: !llvm.ptr<1>,
                         %page_table: !llvm.ptr<1>, %seqused_k: !llvm.ptr<1>, %max_pages: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i127 = arith.constant 127 : i32
    %i128 = arith.constant 128 : i32
    %i8192 = arith.constant 8192 : i32
    %i16384 = arith.constant 16384 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bidb = arith.index_cast %bid_x : index to i32
    %barrier_q = mbarrier.alloc : !mbarrier.group<1>
    %k_full = mbarrier.alloc : !mbarrier.group<2>
    %k_empty = mbarrier.alloc : !mbarrier.group<2>
    %v_full = mbarrier.alloc : !mbarrier.group<2>
    %v_empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %barrier_q[%c0], %i1 : !mbarrier.group<1>
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %k_full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %k_empty[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %v_full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %v_empty[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %q_base = llvm.mlir.addressof @smem_q : !llvm.ptr<3>
    %k_base = llvm.mlir.addressof @smem_k : !llvm.ptr<3>
    %v_base = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    // seqlen.h: seqlen_k = seqused_k[bidb]; n_block_max = cdiv(seqlen_k, kBlockN).
    %sp = llvm.getelementptr %seqused_k[%bidb] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %seqlen_k = llvm.load %sp : !llvm.ptr<1> -> i32
    %sk = arith.addi %seqlen_k, %i127 : i32
    %n_block_max = arith.divui %sk, %i128 : i32
    %pt_row = arith.muli %bidb, %max_pages : i32

    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      mbarrier.arrive_expect_tx %barrier_q[%c0], %i8192 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %barrier_q[%c0], %q_base, %tma_q[%i0, %bidb], bytes 8192 : !mbarrier.group<1>, !llvm.ptr
      scf.for %i = %i0 to %n_block_max step %i1 : i32 {
        %nb0 = arith.subi %n_block_max, %i1 : i32
        %n_block = arith.subi %nb0, %i : i32
        %pp = arith.addi %pt_row, %n_block : i32
        %pte = llvm.getelementptr %page_table[%pp] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %page = llvm.load %pte : !llvm.ptr<1> -> i32
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %off = arith.muli %s32, %i16384 : i32
        mbarrier.wait %k_empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %k_full[%s], %i16384 : !mbarrier.group<2>
        %kdst = llvm.getelementptr %k_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.cp_async_bulk_tensor %k_full[%s], %kdst, %tma_k[%i0, %i0, %page], bytes 16384 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.wait %v_empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %v_full[%s], %i16384 : !mbarrier.group<2>
        %vdst = llvm.getelementptr %v_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.cp_async_bulk_tensor %v_full[%s], %vdst, %tma_v[%i0, %i0, %page], bytes 16384 : !mbarrier.group<2>, !llvm.ptr
      }
    }

    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      mbarrier.wait %barrier_q[%c0], %i0 : !mbarrier.group<1>
      %qa32 = llvm.ptrtoint %q_base : !llvm.ptr<3> to i32
      %qa = arith.extui %qa32 : i32 to i64
      %qsh = arith.shrui %qa, %c16 : i64
      %dq = arith.ori %qsh, %desc_hi : i64
      %z = llvm.mlir.zero : !acc
      %acc_o = scf.for %i = %i0 to %n_block_max step %i1 iter_args(%ao = %z) -> (!acc) : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %off = arith.muli %s32, %i16384 : i32
        mbarrier.wait %k_full[%s], %ph : !mbarrier.group<2>
        %ksrc = llvm.getelementptr %k_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ka32 = llvm.ptrtoint %ksrc : !llvm.ptr<3> to i32
        %ka = arith.extui %ka32 : i32 to i64
        %ksh = arith.shrui %ka, %c16 : i64
        %dk = arith.ori %ksh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %sacc = nvvm.wgmma.mma_async %dq, %dk, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %k_empty[%s] if %is_tid0 : !mbarrier.group<2>
        mbarrier.wait %v_full[%s], %ph : !mbarrier.group<2>
        %vsrc = llvm.getelementptr %v_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %va32 = llvm.ptrtoint %vsrc : !llvm.ptr<3> to i32
        %va = arith.extui %va32 : i32 to i64
        %vsh = arith.shrui %va, %c16 : i64
        %dv = arith.ori %vsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %ao2 = nvvm.wgmma.mma_async %dq, %dv, %ao, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %v_empty[%s] if %is_tid0 : !mbarrier.group<2>
        scf.yield %ao2 : !acc
      }
      %e = llvm.extractvalue %acc_o[0] : !acc
      %r0 = arith.muli %bidb, %i128 : i32
      %r = arith.addi %r0, %tid : i32
      %op = llvm.getelementptr %o[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
