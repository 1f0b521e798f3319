// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cute_bw_mma_copy.mlir (same public source: NVIDIA/cutlass
// examples/cute/tutorial/blackwell/01_mma_sm100.cu).
// BUG: no fence.proxy.async between the threads' generic-proxy stores of
// the A and B tiles and the barrier after which the elected thread's
// tcgen05.mma reads them through the async proxy: the CTA barrier orders
// the generic proxy only, so the MMA may read stale shared memory (the
// previous k-tile's operands, or whatever was there before).
// Some launches fail (a proxy race: whether the async proxy sees the new
// tiles depends on timing and on the hardware's proxy caches).
// BUG-ALT: the generic stores, and the MMA that reads them without the
// fence.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @cute_bw_mma_copy(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %out: !llvm.ptr<1>, %k_tiles: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %elected = arith.cmpi eq, %tid, %i0 : i32
    %is_warp0 = arith.cmpi eq, %warp, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %mma_bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %elected {
      mbarrier.init %mma_bar[%c0], %i1 : !mbarrier.group<1>
    }
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    scf.if %is_warp0 {
      nvvm.tcgen05.alloc %slot, %i32 : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit
    }
    mbarrier.fence_init
    gpu.barrier
    %taddr = llvm.load %slot : !llvm.ptr<3> -> i32
    %tmem = llvm.inttoptr %taddr : i32 to !llvm.ptr<6>
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %sa = llvm.getelementptr %a_base[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %sb = llvm.getelementptr %b_base[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %aa32 = llvm.ptrtoint %a_base : !llvm.ptr<3> to i32
    %aa = arith.extui %aa32 : i32 to i64
    %ash = arith.shrui %aa, %c16 : i64
    %desc_a = arith.ori %ash, %desc_hi : i64
    %ba32 = llvm.ptrtoint %b_base : !llvm.ptr<3> to i32
    %ba = arith.extui %ba32 : i32 to i64
    %bsh = arith.shrui %ba, %c16 : i64
    %desc_b = arith.ori %bsh, %desc_hi : i64
    %gbase = arith.muli %bid, %k_tiles : i32

    %ph = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%mma_phase = %i0) -> (i32) : i32 {
      // cooperative_copy of this k-tile's A and B.
      %gt = arith.addi %gbase, %k : i32
      %goff0 = arith.muli %gt, %i2048 : i32
      %goff = arith.addi %goff0, %mine : i32
      %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      %gb = llvm.getelementptr %b[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      %va = llvm.load %ga : !llvm.ptr<1> -> vector<4xf32>
      %vb = llvm.load %gb : !llvm.ptr<1> -> vector<4xf32>
      llvm.store %va, %sa : vector<4xf32>, !llvm.ptr<3> // BUG-ALT
      llvm.store %vb, %sb : vector<4xf32>, !llvm.ptr<3> // BUG-ALT
      gpu.barrier // BUG
      scf.if %elected {
        %accumulate = arith.cmpi ugt, %k, %i0 : i32
        nvvm.tcgen05.mma %tmem, %desc_a, %desc_b, %idesc, %accumulate {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1) // BUG-ALT
        mbarrier.tcgen05_commit %mma_bar[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %mma_bar[%c0], %mma_phase : !mbarrier.group<1>
      %mma_next = arith.xori %mma_phase, %i1 : i32
      scf.yield %mma_next : i32
    }
    %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
    nvvm.tcgen05.wait <load>
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %out[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %v, %op : i32, !llvm.ptr<1>
    gpu.barrier
    scf.if %is_warp0 {
      nvvm.tcgen05.dealloc %tmem, %i32 : !llvm.ptr<6>, i32
    }
    gpu.return
  }
}
}
