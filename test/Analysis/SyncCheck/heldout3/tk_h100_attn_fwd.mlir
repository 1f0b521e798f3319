// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry tk_h100_attn_fwd(
// Follows HazyResearch/ThunderKittens kernels/attn/h100/h100.cu (fwd_attend_ker:
// NUM_WARPGROUPS = 3, CONSUMER_WARPGROUPS = 2, K::stages = 2; thread 0
// init_semaphore(qsmem_semaphore, 0, 1), k_smem_arrived[j] and
// v_smem_arrived[j] with (0, 1), compute_done[j] with (CONSUMER_WARPGROUPS,
// 0); it expects the bytes of both q_smem tiles and loads them, and the K / V
// tiles of the first stages - 1 kv blocks, then __syncthreads(); the producer
// warpgroup's first warp, for kv_idx = pipe_idx - 1 .. kv_iters, loads kv
// block kv_idx + 1 into stage (kv_idx + 1) % stages and then waits
// compute_done[kv_idx % stages] at (kv_idx / stages) % 2; each consumer
// warpgroup waits qsmem_semaphore at 0, then per kv_idx
// k_smem_arrived[kv_idx % stages] and v_smem_arrived[...] at
// (kv_idx / stages) % 2, and after its mma_async_wait its
// warpgroup::laneid() == 0 arrives compute_done[kv_idx % stages]) with
// include/ops/warp/memory/util/tma.cuh (expect_bytes, load_async) and
// util.cuh (semaphore wait / arrive). The producer here loads kv block
// kv_idx + 1 only where it exists (h100.cu loads one block past the last:
// its copy could still be in flight when the CTA exits).
// 384 threads: warpgroups 0 and 1 consume, thread 256 produces. Q tiles
// 4096 bytes each, K and V tiles 4096 bytes; %n_kv = seq_len / kv_height >= 1
// kv blocks (kv_iters = n_kv - 1).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @q_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @k_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @v_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @tk_h100_attn_fwd(%map_q: !llvm.ptr, %map_k: !llvm.ptr, %map_v: !llvm.ptr, %o: !llvm.ptr<1>, %n_kv: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i64 = arith.constant 64 : i32
    %i127 = arith.constant 127 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %i8192 = arith.constant 8192 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %qsmem_semaphore = mbarrier.alloc : !mbarrier.group<1>
    %k_smem_arrived = mbarrier.alloc : !mbarrier.group<2>
    %v_smem_arrived = mbarrier.alloc : !mbarrier.group<2>
    %compute_done = mbarrier.alloc : !mbarrier.group<2>
    %qb = llvm.mlir.addressof @q_smem : !llvm.ptr<3>
    %kb = llvm.mlir.addressof @k_smem : !llvm.ptr<3>
    %vb = llvm.mlir.addressof @v_smem : !llvm.ptr<3>
    %q1 = llvm.getelementptr %qb[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %qrow = arith.muli %bid, %i128 : i32
    %qrow1 = arith.addi %qrow, %i64 : i32
    scf.if %is_tid0 {
      mbarrier.init %qsmem_semaphore[%c0], %i1 : !mbarrier.group<1>
      scf.for %j = %c0 to %c2 step %c1 {
        mbarrier.init %k_smem_arrived[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %v_smem_arrived[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %compute_done[%j], %i2 : !mbarrier.group<2>
      }
      mbarrier.fence_init
      mbarrier.arrive_expect_tx %qsmem_semaphore[%c0], %i8192 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %qsmem_semaphore[%c0], %qb, %map_q[%i0, %qrow], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      mbarrier.cp_async_bulk_tensor %qsmem_semaphore[%c0], %q1, %map_q[%i0, %qrow1], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      // stages - 1 = 1 kv block ahead: block 0 into stage 0.
      mbarrier.arrive_expect_tx %k_smem_arrived[%c0], %i4096 : !mbarrier.group<2>
      mbarrier.cp_async_bulk_tensor %k_smem_arrived[%c0], %kb, %map_k[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      mbarrier.arrive_expect_tx %v_smem_arrived[%c0], %i4096 : !mbarrier.group<2>
      mbarrier.cp_async_bulk_tensor %v_smem_arrived[%c0], %vb, %map_v[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
    }
    gpu.barrier

    %is_producer = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_producer {
      scf.for %kv_idx = %i0 to %n_kv step %i1 : i32 {
        %nxt = arith.addi %kv_idx, %i1 : i32
        %exists = arith.cmpi ult, %nxt, %n_kv : i32
        scf.if %exists {
          %ns32 = arith.remui %nxt, %i2 : i32
          %ns = arith.index_cast %ns32 : i32 to index
          %off = arith.muli %ns32, %i4096 : i32
          %kd = llvm.getelementptr %kb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %vd = llvm.getelementptr %vb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %row = arith.muli %nxt, %i64 : i32
          mbarrier.arrive_expect_tx %k_smem_arrived[%ns], %i4096 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %k_smem_arrived[%ns], %kd, %map_k[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.arrive_expect_tx %v_smem_arrived[%ns], %i4096 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %v_smem_arrived[%ns], %vd, %map_v[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %s32 = arith.remui %kv_idx, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %kv_idx, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %compute_done[%s], %ph : !mbarrier.group<2>
      }
    }

    %is_consumer = arith.cmpi ult, %tid, %i256 : i32
    scf.if %is_consumer {
      %wg = arith.divui %tid, %i128 : i32
      %wlane = arith.andi %tid, %i127 : i32
      %is_wg_lane0 = arith.cmpi eq, %wlane, %i0 : i32
      mbarrier.wait %qsmem_semaphore[%c0], %i0 : !mbarrier.group<1>
      %qoff = arith.muli %wg, %i4096 : i32
      %qp = llvm.getelementptr %qb[%qoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %qa32 = llvm.ptrtoint %qp : !llvm.ptr<3> to i32
      %qa = arith.extui %qa32 : i32 to i64
      %qsh = arith.shrui %qa, %c16 : i64
      %dq = arith.ori %qsh, %desc_hi : i64
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %kv_idx = %i0 to %n_kv step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %s32 = arith.remui %kv_idx, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %kv_idx, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %off = arith.muli %s32, %i4096 : i32
        mbarrier.wait %k_smem_arrived[%s], %ph : !mbarrier.group<2>
        %kp = llvm.getelementptr %kb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ka32 = llvm.ptrtoint %kp : !llvm.ptr<3> to i32
        %ka = arith.extui %ka32 : i32 to i64
        %ksh = arith.shrui %ka, %c16 : i64
        %dk = arith.ori %ksh, %desc_hi : i64
        // warpgroup::mm_ABt(att_block, q_smem[wg], k_smem[stage]); mma_async_wait().
        nvvm.wgmma.fence.aligned
        %att = nvvm.wgmma.mma_async %dq, %dk, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.wait %v_smem_arrived[%s], %ph : !mbarrier.group<2>
        %vp = llvm.getelementptr %vb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %va32 = llvm.ptrtoint %vp : !llvm.ptr<3> to i32
        %va = arith.extui %va32 : i32 to i64
        %vsh = arith.shrui %va, %c16 : i64
        %dv = arith.ori %vsh, %desc_hi : i64
        // warpgroup::mma_AB(o_reg, att_block_mma, v_smem[stage]); mma_async_wait().
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %dq, %dv, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %compute_done[%s] if %is_wg_lane0 : !mbarrier.group<2>
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %r0 = arith.muli %bid, %i256 : i32
      %r = arith.addi %r0, %tid : i32
      %op = llvm.getelementptr %o[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
