// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of flashmla.mlir): bar.sync in a role branch. Warpgroup 0 meets
// with a CTA-wide barrier (nvvm.barrier0, bar.sync 0 for the whole block) before
// writing P, inside its role branch; warpgroup 1 is meanwhile in the other
// branch at bar.sync @p_ready, waiting for warpgroup 0's arrive.
// The op: the nvvm.barrier0 in warpgroup 0's branch (marked // BUG).
// Every launch (expected: an error): bar.sync 0 waits for all 256 threads,
// warpgroup 1 never reaches it, and warpgroup 0 never arrives on @p_ready; the
// kernel hangs in kv block 0.
//
// Follows deepseek-ai/FlashMLA csrc/flash_fwd_mla_kernel.h (sm90
// compute_attn_1rowblock_splitkv_mla: two math warpgroups and no producer
// warpgroup; warpgroup 0 computes S = Q K^T and the softmax, writes P and the
// row scales to shared memory and hands them to warpgroup 1 through named
// barriers (NamedBarriers::SReady / SoftmaxReady: arrive by one side, sync by
// the other, 256 threads); both warpgroups compute their half of O = P V from
// the same K/V block; the KV blocks of the split come from the block table, the
// count from the sequence length).
// 256 threads; thread 0 loads KV block j into stage j % 2 (full: count 1 +
// 4096 bytes; empty: count 2, one release per warpgroup) two blocks ahead;
// n_blocks = %seqlen_k / 64 (a parameter). Warpgroup 1 tells warpgroup 0 it is
// done with P (@p_free) before warpgroup 0 writes the next one.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_kv() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_p() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  mbarrier.named_barrier @p_ready
  mbarrier.named_barrier @p_free
  gpu.func @flashmla(%map_kv: !llvm.ptr, %out: !llvm.ptr<1>, %seqlen_k: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %n_blocks = arith.divui %seqlen_k, %i64 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %kv = llvm.mlir.addressof @smem_kv : !llvm.ptr<3>
    %pbuf = llvm.mlir.addressof @smem_p : !llvm.ptr<3>
    // Prologue: blocks 0 and 1 (where they exist) into both stages.
    scf.if %is_tid0 {
      scf.for %j = %i0 to %i2 step %i1 : i32 {
        %have = arith.cmpi slt, %j, %n_blocks : i32
        scf.if %have {
          %s = arith.index_cast %j : i32 to index
          %off = arith.muli %j, %i4096 : i32
          %dst = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %row = arith.muli %j, %i64 : i32
          mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map_kv[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
      }
    }
    %is_wg0 = arith.cmpi eq, %wg, %i0 : i32
    %z = llvm.mlir.zero : !acc
    %pa32 = llvm.ptrtoint %pbuf : !llvm.ptr<3> to i32
    %pa = arith.extui %pa32 : i32 to i64
    %psh = arith.shrui %pa, %c16 : i64
    %desc_p = arith.ori %psh, %desc_hi : i64
    %o = scf.for %j = %i0 to %n_blocks step %i1 iter_args(%acc = %z) -> (!acc) : i32 {
      %s32 = arith.remui %j, %i2 : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %j, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
      %off = arith.muli %s32, %i4096 : i32
      %src = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %ka32 = llvm.ptrtoint %src : !llvm.ptr<3> to i32
      %ka = arith.extui %ka32 : i32 to i64
      %ksh = arith.shrui %ka, %c16 : i64
      %desc_kv = arith.ori %ksh, %desc_hi : i64
      scf.if %is_wg0 {
        // S = Q K^T, softmax, P to shared memory, once warpgroup 1 is done
        // with the previous P.
        nvvm.wgmma.fence.aligned
        %sacc = nvvm.wgmma.mma_async %desc_kv, %desc_kv, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        %later = arith.cmpi ugt, %j, %i0 : i32
        scf.if %later {
          mbarrier.bar_sync @p_free threads 256
        }
        nvvm.barrier0 // BUG
        %e = llvm.extractvalue %sacc[0] : !acc
        %w = arith.muli %wg_tid, %i4 : i32
        %pdst = llvm.getelementptr %pbuf[%w] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %pdst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_arrive @p_ready threads 256
      } else {
        mbarrier.bar_sync @p_ready threads 256
      }
      // O += P V, each warpgroup its half; then both release the stage.
      nvvm.wgmma.fence.aligned
      %acc2 = nvvm.wgmma.mma_async %desc_p, %desc_kv, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %is_wg1 = arith.cmpi eq, %wg, %i1 : i32
      %more = arith.addi %j, %i1 : i32
      %not_last = arith.cmpi slt, %more, %n_blocks : i32
      %tell = arith.andi %is_wg1, %not_last : i1
      scf.if %tell {
        mbarrier.bar_arrive @p_free threads 256
      }
      scf.if %wg_leader {
        mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      }
      // Thread 0 refills the stage with block j + 2 once both released it.
      %ahead = arith.addi %j, %i2 : i32
      %refill = arith.cmpi slt, %ahead, %n_blocks : i32
      %do = arith.andi %is_tid0, %refill : i1
      scf.if %do {
        mbarrier.wait %empty[%s], %ph : !mbarrier.group<2>
        %row = arith.muli %ahead, %i64 : i32
        mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %full[%s], %src, %map_kv[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      scf.yield %acc2 : !acc
    }
    %e = llvm.extractvalue %o[0] : !acc
    %tid64 = arith.extui %tid : i32 to i64
    %p = llvm.getelementptr %out[%tid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %e, %p : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
