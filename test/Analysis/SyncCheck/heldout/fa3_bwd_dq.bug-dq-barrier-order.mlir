// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of fa3_bwd_dq.mlir (same public source: flash-attention hopper/
// flash_bwd_kernel_sm90.h, mainloop_bwd_sm90_tma_gmma_ws.hpp store_dq / mma,
// named_barrier.hpp).
// BUG: the dQ writer syncs on @dq_full before it arrives on @dq_empty (the two
// named-barrier steps of store_dq swapped). The MMA warpgroup syncs on
// @dq_empty before it arrives on @dq_full: each side waits for the other's
// arrival, a wait-for cycle at the first m-block.
// Every launch of the declared shape fails (hangs) for every %n_m >= 1.
!P = !mbarrier.pipe<2, tma>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_kv() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_qdo() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_dq() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  mbarrier.named_barrier @dq_empty
  mbarrier.named_barrier @dq_full
  gpu.func @fa3_bwd_dq(%map_k: !llvm.ptr, %map_v: !llvm.ptr, %map_q: !llvm.ptr, %map_do: !llvm.ptr,
                       %map_dq: !llvm.ptr, %n_m: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %n_blk = arith.index_cast %bid_x : index to i32
    %kvg = mbarrier.alloc : !mbarrier.group<1>
    %qg = mbarrier.alloc : !mbarrier.group<4>
    %qp = mbarrier.pipe.create %qg : !mbarrier.group<4> -> !P
    scf.if %is_tid0 {
      mbarrier.init %kvg[%c0], %i1 : !mbarrier.group<1>
      mbarrier.pipe.init %qp : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %kv_base = llvm.mlir.addressof @smem_kv : !llvm.ptr<3>
    %qdo_base = llvm.mlir.addressof @smem_qdo : !llvm.ptr<3>
    %dq_base = llvm.mlir.addressof @smem_dq : !llvm.ptr<3>
    %v_dst = llvm.getelementptr %kv_base[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %kv_row = arith.muli %n_blk, %i64 : i32

    // Producer: lane 0 of warp 0.
    %is_loader = arith.cmpi eq, %tid, %i0 : i32
    scf.if %is_loader {
      mbarrier.arrive_expect_tx %kvg[%c0], %i8192 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %kvg[%c0], %kv_base, %map_k[%i0, %kv_row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      mbarrier.cp_async_bulk_tensor %kvg[%c0], %v_dst, %map_v[%i0, %kv_row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %m = %i0 to %n_m step %i1 iter_args(%s = %s0) -> (!mbarrier.pipe_state<producer>) : i32 {
        %slot, %next = mbarrier.pipe.acquire %qp, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
        %st = arith.index_cast %stage : index to i32
        %off = arith.muli %st, %i8192 : i32
        %qdst = llvm.getelementptr %qdo_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %dodst = llvm.getelementptr %qdst[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %row = arith.muli %m, %i64 : i32
        mbarrier.pipe.cp_async_bulk_tensor %qp[%slot], %qdst, %map_q[%i0, %row], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.cp_async_bulk_tensor %qp[%slot], %dodst, %map_do[%i0, %row], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.commit %qp[%slot], bytes %i8192 : !P
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %qp, %end : !P
    }

    // dQ writer: warp 1. Per m-block: the buffer is free (its previous
    // store finished reading it), wait for the MMA warpgroup's dQ, store it.
    %is_writer = arith.cmpi eq, %warp, %i1 : i32
    scf.if %is_writer {
      %lane0 = arith.cmpi eq, %lane, %i0 : i32
      scf.for %m = %i0 to %n_m step %i1 : i32 {
        mbarrier.bar_sync @dq_full threads 160 // BUG
        mbarrier.bar_arrive @dq_empty threads 160
        scf.if %lane0 {
          %row = arith.muli %m, %i64 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_dq, %dq_base, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
      }
      scf.if %lane0 {
        nvvm.cp.async.bulk.wait_group 0
      }
    }

    // MMA warpgroup.
    %is_mma = arith.cmpi eq, %wg, %i1 : i32
    scf.if %is_mma {
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      mbarrier.wait %kvg[%c0], %i0 : !mbarrier.group<1>
      %k_a32 = llvm.ptrtoint %kv_base : !llvm.ptr<3> to i32
      %k_a = arith.extui %k_a32 : i32 to i64
      %k_sh = arith.shrui %k_a, %c16 : i64
      %desc_k = arith.ori %k_sh, %desc_hi : i64
      %z = llvm.mlir.zero : !acc
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %fin = scf.for %m = %i0 to %n_m step %i1 iter_args(%s = %c0s) -> (!mbarrier.pipe_state<consumer>) : i32 {
        %slot, %next = mbarrier.pipe.wait %qp, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
        %st = arith.index_cast %stage : index to i32
        %off = arith.muli %st, %i8192 : i32
        %qsrc = llvm.getelementptr %qdo_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %qa32 = llvm.ptrtoint %qsrc : !llvm.ptr<3> to i32
        %qa = arith.extui %qa32 : i32 to i64
        %qsh = arith.shrui %qa, %c16 : i64
        %desc_q = arith.ori %qsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %dq = nvvm.wgmma.mma_async %desc_q, %desc_k, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.pipe.release %qp[%slot] if %wg_leader : !P
        // dQaccum to smem once the writer's previous store has read it.
        mbarrier.bar_sync @dq_empty threads 160
        %e = llvm.extractvalue %dq[0] : !acc
        %o4 = arith.muli %wg_tid, %i32 : i32
        %dst = llvm.getelementptr %dq_base[%o4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_arrive @dq_full threads 160
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}
}
