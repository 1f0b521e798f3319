// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of pallas_mgpu_attention.mlir (same public source: jax
// jax/experimental/pallas/ops/gpu/attention_mgpu.py, perform_schedule_barrier).
// BUG: warpgroup 0's balancing perform_schedule_barrier() after the kv loop
// is left out, while warpgroup 1 still performs its extra one before the
// loop: warpgroup 1 makes n_kv + 1 rendezvous and warpgroup 0 n_kv, so the
// last phase of schedule_barrier (count 2) gets one arrival and warpgroup 1's
// last wait in the loop never returns. The call left out has no line: the
// wait that hangs is marked (BUG), and a diagnostic on warpgroup 1's
// unmatched extra arrival (BUG-ALT) is accepted.
// Every launch fails (for every %n_kv >= 1: warpgroup 1 hangs in its last kv
// step).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @q_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @k_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @v_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @pallas_mgpu_attention(%map_q: !llvm.ptr, %map_k: !llvm.ptr, %map_v: !llvm.ptr, %o: !llvm.ptr<1>, %n_kv: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i127 = arith.constant 127 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %q_barriers = mbarrier.alloc : !mbarrier.group<2>
    %k_barriers = mbarrier.alloc : !mbarrier.group<2>
    %v_barriers = mbarrier.alloc : !mbarrier.group<2>
    %k_consumed = mbarrier.alloc : !mbarrier.group<2>
    %v_consumed = mbarrier.alloc : !mbarrier.group<2>
    %schedule_barrier = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      scf.for %j = %c0 to %c2 step %c1 {
        mbarrier.init %q_barriers[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %k_barriers[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %v_barriers[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %k_consumed[%j], %i2 : !mbarrier.group<2>
        mbarrier.init %v_consumed[%j], %i2 : !mbarrier.group<2>
      }
      mbarrier.init %schedule_barrier[%c0], %i2 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %qb = llvm.mlir.addressof @q_smem : !llvm.ptr<3>
    %kb = llvm.mlir.addressof @k_smem : !llvm.ptr<3>
    %vb = llvm.mlir.addressof @v_smem : !llvm.ptr<3>

    // Memory warpgroup.
    %is_memory = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_memory {
      %qrow = arith.muli %bid, %i128 : i32
      scf.for %w = %i0 to %i2 step %i1 : i32 {
        %wi = arith.index_cast %w : i32 to index
        %qo = arith.muli %w, %i4096 : i32
        %qd = llvm.getelementptr %qb[%qo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %qr0 = arith.muli %w, %i64 : i32
        %qr = arith.addi %qrow, %qr0 : i32
        mbarrier.arrive_expect_tx %q_barriers[%wi], %i4096 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %q_barriers[%wi], %qd, %map_q[%i0, %qr], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      scf.for %kv = %i0 to %n_kv step %i1 : i32 {
        %s32 = arith.remui %kv, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %kv, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %off = arith.muli %s32, %i4096 : i32
        %row = arith.muli %kv, %i64 : i32
        mbarrier.wait %k_consumed[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %kd = llvm.getelementptr %kb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %k_barriers[%s], %i4096 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %k_barriers[%s], %kd, %map_k[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.wait %v_consumed[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %vd = llvm.getelementptr %vb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %v_barriers[%s], %i4096 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %v_barriers[%s], %vd, %map_v[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
    }

    // Compute warpgroups.
    %is_compute = arith.cmpi ult, %tid, %i256 : i32
    scf.if %is_compute {
      %wg = arith.divui %tid, %i128 : i32
      %wgi = arith.index_cast %wg : i32 to index
      %wlane = arith.andi %tid, %i127 : i32
      %leader = arith.cmpi eq, %wlane, %i0 : i32
      %is_wg1 = arith.cmpi eq, %wg, %i1 : i32
      %is_wg0 = arith.cmpi eq, %wg, %i0 : i32
      mbarrier.wait %q_barriers[%wgi], %i0 : !mbarrier.group<2>
      %qo = arith.muli %wg, %i4096 : i32
      %qp = llvm.getelementptr %qb[%qo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %qa32 = llvm.ptrtoint %qp : !llvm.ptr<3> to i32
      %qa = arith.extui %qa32 : i32 to i64
      %qsh = arith.shrui %qa, %c16 : i64
      %dq = arith.ori %qsh, %desc_hi : i64
      // Warpgroup 1: one perform_schedule_barrier() before the loop.
      %u0 = scf.if %is_wg1 -> (i32) {
        mbarrier.arrive %schedule_barrier[%c0] if %leader : !mbarrier.group<1> // BUG-ALT
        mbarrier.wait %schedule_barrier[%c0], %i0 : !mbarrier.group<1>
        scf.yield %i1 : i32
      } else {
        scf.yield %i0 : i32
      }
      %z = llvm.mlir.zero : !acc
      %r:2 = scf.for %kv = %i0 to %n_kv step %i1 iter_args(%a = %z, %use = %u0) -> (!acc, i32) : i32 {
        %s32 = arith.remui %kv, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %kv, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %off = arith.muli %s32, %i4096 : i32
        // perform_schedule_barrier()
        %sph = arith.andi %use, %i1 : i32
        mbarrier.arrive %schedule_barrier[%c0] if %leader : !mbarrier.group<1>
        mbarrier.wait %schedule_barrier[%c0], %sph : !mbarrier.group<1> // BUG
        mbarrier.wait %k_barriers[%s], %ph : !mbarrier.group<2>
        %kp = llvm.getelementptr %kb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ka32 = llvm.ptrtoint %kp : !llvm.ptr<3> to i32
        %ka = arith.extui %ka32 : i32 to i64
        %ksh = arith.shrui %ka, %c16 : i64
        %dk = arith.ori %ksh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %sc = nvvm.wgmma.mma_async %dq, %dk, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %k_consumed[%s] if %leader : !mbarrier.group<2>
        mbarrier.wait %v_barriers[%s], %ph : !mbarrier.group<2>
        %vp = llvm.getelementptr %vb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %va32 = llvm.ptrtoint %vp : !llvm.ptr<3> to i32
        %va = arith.extui %va32 : i32 to i64
        %vsh = arith.shrui %va, %c16 : i64
        %dv = arith.ori %vsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %dq, %dv, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %v_consumed[%s] if %leader : !mbarrier.group<2>
        %use2 = arith.addi %use, %i1 : i32
        scf.yield %a2, %use2 : !acc, i32
      }
      %e = llvm.extractvalue %r#0[0] : !acc
      %r0 = arith.muli %bid, %i256 : i32
      %ri = arith.addi %r0, %tid : i32
      %op = llvm.getelementptr %o[%ri] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
