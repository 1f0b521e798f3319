// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of sm100_umma_tmem.mlir (same public sources: DeepGEMM
// impls/sm100_fp8_gemm_1d1d.cuh, cutlass pipeline/sm100_pipeline.hpp
// PipelineUmmaAsync).
// BUG: the MMA warp waits tmem_empty with the tile's own parity instead of
// the phase one ahead (the accumulator starts free): at its first tile it
// waits for phase 0 of a barrier that only the epilogue completes, after it
// has seen tmem_full, which only the MMA warp's commit completes: a startup
// deadlock.
// Every launch of the declared shape fails (hangs) for every %n_tiles >= 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @sm100_umma_tmem(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>,
                            %n_tiles: i32, %k_blocks: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    %tfull = mbarrier.alloc : !mbarrier.group<1>
    %tempty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
      mbarrier.init %tfull[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %tempty[%c0], %i128 : !mbarrier.group<1>
    }
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    %is_mma_warp = arith.cmpi eq, %warp, %i1 : i32
    scf.if %is_mma_warp {
      nvvm.tcgen05.alloc %slot, %i32 : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit
    }
    mbarrier.fence_init
    gpu.barrier
    %taddr = llvm.load %slot : !llvm.ptr<3> -> i32
    %tmem = llvm.inttoptr %taddr : i32 to !llvm.ptr<6>
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %lane0 = arith.cmpi eq, %lane, %i0 : i32

    // TMA warp.
    %is_tma = arith.cmpi eq, %tid, %i0 : i32
    scf.if %is_tma {
      %f:2 = scf.while (%tile = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %it0 : i32, i32
      } do {
      ^bb0(%tile: i32, %it0: i32):
        %row = arith.muli %tile, %i128 : i32
        %itn = scf.for %k = %i0 to %k_blocks step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s32 = arith.remui %it, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %it, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          %pph = arith.xori %ph, %i1 : i32
          mbarrier.wait %empty[%s], %pph : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<4>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i128 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1 : i32
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %itn : i32, i32
      }
    }

    // MMA warp, elected lane.
    %is_mma = arith.andi %is_mma_warp, %lane0 : i1
    scf.if %is_mma {
      %f:3 = scf.while (%tile = %bid, %it0 = %i0, %t = %i0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %it0, %t : i32, i32, i32
      } do {
      ^bb0(%tile: i32, %it0: i32, %t: i32):
        // The epilogue has read the previous tile's accumulator.
        %tph = arith.andi %t, %i1 : i32
        mbarrier.wait %tempty[%c0], %tph : !mbarrier.group<1> // BUG
        %itn = scf.for %k = %i0 to %k_blocks step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s32 = arith.remui %it, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %it, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
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
          %accumulate = arith.cmpi ugt, %k, %i0 : i32
          nvvm.tcgen05.mma %tmem, %desc_a, %desc_b, %idesc, %accumulate {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
          // umma_arrive: the stage is free once these MMAs have read it.
          mbarrier.tcgen05_commit %empty[%s] : !mbarrier.group<4>
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1 : i32
        }
        mbarrier.tcgen05_commit %tfull[%c0] : !mbarrier.group<1>
        %tile_next = arith.addi %tile, %grid : i32
        %t1 = arith.addi %t, %i1 : i32
        scf.yield %tile_next, %itn, %t1 : i32, i32, i32
      }
    }

    // Epilogue warpgroup.
    %is_epi = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_epi {
      %et = arith.subi %tid, %i128 : i32
      %f:2 = scf.while (%tile = %bid, %t = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %t : i32, i32
      } do {
      ^bb0(%tile: i32, %t: i32):
        %tph = arith.andi %t, %i1 : i32
        mbarrier.wait %tfull[%c0], %tph : !mbarrier.group<1>
        %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
        nvvm.tcgen05.wait <load>
        mbarrier.arrive %tempty[%c0] : !mbarrier.group<1>
        %r0 = arith.muli %tile, %i128 : i32
        %r = arith.addi %r0, %et : i32
        %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %op : i32, !llvm.ptr<1>
        %tile_next = arith.addi %tile, %grid : i32
        %t1 = arith.addi %t, %i1 : i32
        scf.yield %tile_next, %t1 : i32, i32
      }
    }
    // Everyone is done with the tensor memory before warp 1 frees it.
    gpu.barrier
    scf.if %is_mma_warp {
      nvvm.tcgen05.dealloc %tmem, %i32 : !llvm.ptr<6>, i32
    }
    gpu.return
  }
}
}
