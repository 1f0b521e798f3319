// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cute_bw_multicast.mlir (same public source: NVIDIA/cutlass
// examples/cute/tutorial/blackwell/03_mma_tma_multicast_sm100.cu).
// BUG: mma_barrier initialized with 1, as in the non-multicast tutorial 02,
// while both CTAs of the column signal it (umma_arrive_multicast with mask
// 0b11): each phase completes on the first commit to arrive, which may be
// this CTA's own; the CTA then issues the next k-tile's B slice multicast
// into the peer while the peer's MMA still reads the previous slice, and the
// peer's late commit completes a later phase early (the phases drift).
// Some launches fail (a race: only with %k_tiles >= 2, and only when the
// peer's MMA is slower than this CTA's).
// BUG-ALT: the multicast commits, two per phase on a count-1 barrier.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @cute_bw_multicast(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %i8192 = arith.constant 8192 : i32
    %mask = arith.constant 3 : i16
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %elected = arith.cmpi eq, %tid, %i0 : i32
    %is_warp0 = arith.cmpi eq, %warp, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %m2 = arith.muli %cid, %i2 : i32
    %mblk = arith.addi %m2, %rank : i32
    %row = arith.muli %mblk, %i128 : i32
    %tma_bar = mbarrier.alloc : !mbarrier.group<1>
    %mma_bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %elected {
      mbarrier.init %tma_bar[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %mma_bar[%c0], %i1 : !mbarrier.group<1> // BUG
    }
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    scf.if %is_warp0 {
      nvvm.tcgen05.alloc %slot, %i32 : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %taddr = llvm.load %slot : !llvm.ptr<3> -> i32
    %tmem = llvm.inttoptr %taddr : i32 to !llvm.ptr<6>
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %slice = arith.muli %rank, %i2048 : i32
    %b_slice = llvm.getelementptr %b_base[%slice] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %brow = arith.muli %rank, %i32 : i32
    %aa32 = llvm.ptrtoint %a_base : !llvm.ptr<3> to i32
    %aa = arith.extui %aa32 : i32 to i64
    %ash = arith.shrui %aa, %c16 : i64
    %desc_a = arith.ori %ash, %desc_hi : i64
    %ba32 = llvm.ptrtoint %b_base : !llvm.ptr<3> to i32
    %ba = arith.extui %ba32 : i32 to i64
    %bsh = arith.shrui %ba, %c16 : i64
    %desc_b = arith.ori %bsh, %desc_hi : i64

    %ph:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%tma_phase = %i0, %mma_phase = %i0) -> (i32, i32) : i32 {
      scf.if %elected {
        mbarrier.arrive_expect_tx %tma_bar[%c0], %i8192 : !mbarrier.group<1>
        %col = arith.muli %k, %i64 : i32
        mbarrier.cp_async_bulk_tensor %tma_bar[%c0], %a_base, %map_a[%col, %row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %tma_bar[%c0], %b_slice, %map_b[%col, %brow], bytes 2048 multicast %mask : !mbarrier.group<1>, !llvm.ptr
      }
      mbarrier.wait %tma_bar[%c0], %tma_phase : !mbarrier.group<1>
      %tma_next = arith.xori %tma_phase, %i1 : i32
      scf.if %elected {
        %accumulate = arith.cmpi ugt, %k, %i0 : i32
        nvvm.tcgen05.mma %tmem, %desc_a, %desc_b, %idesc, %accumulate {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        // umma_arrive_multicast: this CTA's MMA is done with the slices of both CTAs.
        mbarrier.tcgen05_commit %mma_bar[%c0] multicast %mask : !mbarrier.group<1> // BUG-ALT
      }
      mbarrier.wait %mma_bar[%c0], %mma_phase : !mbarrier.group<1>
      %mma_next = arith.xori %mma_phase, %i1 : i32
      // No thread may lag a whole phase behind the elected one.
      gpu.barrier
      scf.yield %tma_next, %mma_next : i32, i32
    }
    %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
    nvvm.tcgen05.wait <load>
    %o = arith.addi %row, %tid : i32
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
