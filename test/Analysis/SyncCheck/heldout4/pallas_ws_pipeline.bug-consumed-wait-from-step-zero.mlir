// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of pallas_ws_pipeline.mlir (same public source: jax-ml/jax
// jax/_src/pallas/mosaic_gpu/pipeline.py, emit_pipeline_warp_specialized).
// BUG: the memory thread waits consumed_barriers[slot] at every step, with
// parity (step / slots) & 1, instead of only from step max_concurrent_steps
// on for the consumption of step - max_concurrent_steps: at step 0 it waits
// phase 0 of a fresh consumed barrier, which completes only when both
// compute warpgroups release step 0, which they can only do after step 0's
// copy, which the memory thread never issues. Start-up deadlock.
// Every launch fails (for every %num_steps >= 1: the first wait of the
// memory thread never returns, and every compute warpgroup waits on
// in_smem_barriers[0] forever).
// BUG-ALT: the compute warpgroups' first wait, the other end of the cycle.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @pallas_ws_pipeline(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %num_steps: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wtid = arith.remui %tid, %i128 : i32
    %wg_leader = arith.cmpi eq, %wtid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i128 : i32
    %in_bar = mbarrier.alloc : !mbarrier.group<2>
    %consumed = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %in_bar[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %consumed[%s], %i2 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // The memory thread: thread 0 of the last warpgroup.
    %is_memory = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_memory {
      scf.for %step = %i0 to %num_steps step %i1 : i32 {
        %s32 = arith.remui %step, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %step, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %consumed[%s], %ph : !mbarrier.group<2> // BUG
        mbarrier.arrive_expect_tx %in_bar[%s], %i8192 : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %step, %i64 : i32
        mbarrier.cp_async_bulk_tensor %in_bar[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %in_bar[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
    }

    // The compute warpgroups 0 and 1.
    %is_compute = arith.cmpi ult, %tid, %i256 : i32
    scf.if %is_compute {
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %step = %i0 to %num_steps step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %s32 = arith.remui %step, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %step, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %in_bar[%s], %ph : !mbarrier.group<2> // BUG-ALT
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
        mbarrier.arrive %consumed[%s] if %wg_leader : !mbarrier.group<2>
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %o0 = arith.muli %bid, %i256 : i32
      %o = arith.addi %o0, %tid : i32
      %op = llvm.getelementptr %out[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
