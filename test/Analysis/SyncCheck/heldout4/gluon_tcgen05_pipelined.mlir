// RUN: mbarrier-compile %s --chip sm_100a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry gluon_tcgen05_pipelined(
// Follows triton-lang/triton python/tutorials/gluon/06-tcgen05.py (the
// pipelined tcgen05 matmul: allocate_tensor_memory for the accumulator, a
// 2-slot ring of A/B buffers with a TMA barrier each (mbarrier.expect +
// tma.async_copy_global_to_shared) and an MMA barrier each
// (tcgen05_mma(..., use_acc = k > 0) then tcgen05_commit(mma_bars[slot]):
// the slot is free once that MMA has read it); the load of step k + 1 waits
// the MMA barrier of step k - 1, which used its slot; after the last MMA a
// tcgen05_commit(acc_bar), and the whole CTA waits acc_bar before the
// tensor-memory load of the accumulator). One thread (thread 0) issues the
// loads, the MMAs and every commit: tcgen05.commit tracks the async tcgen05
// operations of the thread that executes it. Warp 0 allocates and frees the
// tensor memory. A and B boxes 4096 bytes each. %k_tiles >= 1 K steps.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @gluon_tcgen05_pipelined(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
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
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %is_warp0 = arith.cmpi eq, %warp, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i128 : i32
    %ready = mbarrier.alloc : !mbarrier.group<2>
    %mma = mbarrier.alloc : !mbarrier.group<2>
    %accb = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %ready[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %mma[%s], %i1 : !mbarrier.group<2>
      }
      mbarrier.init %accb[%c0], %i1 : !mbarrier.group<1>
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

    scf.if %is_tid0 {
      // Step 0 into slot 0.
      mbarrier.arrive_expect_tx %ready[%c0], %i8192 : !mbarrier.group<2>
      mbarrier.cp_async_bulk_tensor %ready[%c0], %a_base, %map_a[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      mbarrier.cp_async_bulk_tensor %ready[%c0], %b_base, %map_b[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        // Load step k + 1 into the slot of step k - 1, once its MMA is done.
        %kn = arith.addi %k, %i1 : i32
        %more = arith.cmpi slt, %kn, %k_tiles : i32
        scf.if %more {
          %ns32 = arith.remui %kn, %i2 : i32
          %ns = arith.index_cast %ns32 : i32 to index
          %reuse = arith.cmpi uge, %k, %i1 : i32
          scf.if %reuse {
            %kp = arith.subi %k, %i1 : i32
            %plap = arith.divui %kp, %i2 : i32
            %pph = arith.andi %plap, %i1 : i32
            mbarrier.wait %mma[%ns], %pph : !mbarrier.group<2>
          }
          mbarrier.arrive_expect_tx %ready[%ns], %i8192 : !mbarrier.group<2>
          %noff = arith.muli %ns32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kn, %i64 : i32
          mbarrier.cp_async_bulk_tensor %ready[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %ready[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %ready[%s], %ph : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
        %aa = arith.extui %aa32 : i32 to i64
        %ash = arith.shrui %aa, %c16 : i64
        %desc_a = arith.ori %ash, %desc_hi : i64
        %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
        %ba = arith.extui %ba32 : i32 to i64
        %bsh = arith.shrui %ba, %c16 : i64
        %desc_b = arith.ori %bsh, %desc_hi : i64
        %use_acc = arith.cmpi ugt, %k, %i0 : i32
        nvvm.tcgen05.mma %tmem, %desc_a, %desc_b, %idesc, %use_acc {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        mbarrier.tcgen05_commit %mma[%s] : !mbarrier.group<2>
      }
    }
    // tcgen05_commit(acc_bar) by the thread that issued the MMAs.
    scf.if %is_tid0 {
      mbarrier.tcgen05_commit %accb[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %accb[%c0], %i0 : !mbarrier.group<1>
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
