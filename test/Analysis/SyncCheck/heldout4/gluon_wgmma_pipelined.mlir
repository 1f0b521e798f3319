// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry gluon_wgmma_pipelined(
// Follows triton-lang/triton python/tutorials/gluon/05-wgmma.py (the
// pipelined blocked matmul: one warpgroup, no warp specialization, a ring
// of num_buffers = 3 shared-memory slots with one mbarrier each
// (mbarrier.init(count=1)); loads run num_buffers - 1 steps ahead; each step
// waits its slot's barrier with phase (k // num_buffers) & 1, issues an
// async warpgroup_mma, and warpgroup_mma_wait(num_outstanding=1) retires
// the previous step's MMA, whose slot is then refilled with the load of
// step k + num_buffers - 1; no empty barriers: the wgmma wait is what frees
// a slot). Thread 0 issues mbarrier.expect + the two TMA loads (A and B
// boxes of 4096 bytes each); a CTA barrier after the wgmma wait, so every
// warp's share of the previous MMA has retired before the refill.
// %k_tiles >= 1 K steps.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @gluon_wgmma_pipelined(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
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
    %bars = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // Prologue: steps 0 and 1 (those below %k_tiles).
    scf.for %k = %i0 to %i2 step %i1 : i32 {
      %in_range = arith.cmpi slt, %k, %k_tiles : i32
      %issue = arith.andi %is_tid0, %in_range : i1
      scf.if %issue {
        %s = arith.index_cast %k : i32 to index
        mbarrier.arrive_expect_tx %bars[%s], %i8192 : !mbarrier.group<3>
        %off = arith.muli %k, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %k, %i64 : i32
        mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
    }

    %z = llvm.mlir.zero : !acc
    %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
      %s32 = arith.remui %k, %i3 : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %i3 : i32
      %ph = arith.andi %lap, %i1 : i32
      mbarrier.wait %bars[%s], %ph : !mbarrier.group<3>
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
      // warpgroup_mma_wait(num_outstanding=1): step k - 1's MMA has retired.
      nvvm.wgmma.wait.group.sync.aligned 1
      gpu.barrier
      // Refill the slot step k - 1 read with step k + 2.
      %kn = arith.addi %k, %i2 : i32
      %in_range = arith.cmpi slt, %kn, %k_tiles : i32
      %issue = arith.andi %is_tid0, %in_range : i1
      scf.if %issue {
        %ns32 = arith.remui %kn, %i3 : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.arrive_expect_tx %bars[%ns], %i8192 : !mbarrier.group<3>
        %noff = arith.muli %ns32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %kn, %i64 : i32
        mbarrier.cp_async_bulk_tensor %bars[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
      scf.yield %a2 : !acc
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    %e = llvm.extractvalue %acc[0] : !acc
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %e, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
