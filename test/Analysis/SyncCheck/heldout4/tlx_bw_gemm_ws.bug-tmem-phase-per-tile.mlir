// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of tlx_bw_gemm_ws.mlir (same public source:
// facebookexperimental/triton third_party/tlx/tutorials/blackwell-gemm-ws.py,
// the double-buffered tensor-memory accumulators).
// BUG: the epilogue's tmem_read_phase is computed as tile_count & 1, the
// phase of a single buffer, instead of (tile_count / NUM_TMEM_BUFFERS) & 1:
// for the second tile it waits tmem_full_bars[1] with parity 1, which a
// fresh barrier reports complete at once, and for the third it waits
// buffer 0 with parity 0, a phase already complete: from its second tile
// on, a CTA reads an accumulator before its MMAs have finished (the
// parity law of another ring, as in tile-ai/tilelang#3087: the wait
// returned at once and the MMA's operands were overwritten).
// Some launches fail (every CTA that takes two or more tiles reads a
// partial or stale accumulator; a grid with one tile per CTA is right).
// BUG-ALT: the wait on tmem_full_bars with that parity.
module attributes {gpu.container_module} {
gpu.module @kernels {
  mbarrier.named_barrier @epi_read
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @tlx_bw_gemm_ws(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>,
                           %num_tiles: i32, %k_tiles: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 192, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i5 = arith.constant 5 : i32
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
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %is_mma_warp = arith.cmpi eq, %warp, %i5 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %sfull = mbarrier.alloc : !mbarrier.group<3>
    %sempty = mbarrier.alloc : !mbarrier.group<3>
    %tfull = mbarrier.alloc : !mbarrier.group<2>
    %tempty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %sfull[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %sempty[%s], %i1 : !mbarrier.group<3>
      }
      scf.for %b = %c0 to %c2 step %c1 {
        mbarrier.init %tfull[%b], %i1 : !mbarrier.group<2>
        mbarrier.init %tempty[%b], %i1 : !mbarrier.group<2>
      }
    }
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    scf.if %is_mma_warp {
      nvvm.tcgen05.alloc %slot, %i64 : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit
    }
    mbarrier.fence_init
    gpu.barrier
    %taddr = llvm.load %slot : !llvm.ptr<3> -> i32
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // Producer task.
    %is_producer = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_producer {
      %f:2 = scf.while (%tile = %bid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %row = arith.muli %tile, %i128 : i32
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %sempty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<3>
          mbarrier.arrive_expect_tx %sfull[%s], %i8192 : !mbarrier.group<3>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i64 : i32
          mbarrier.cp_async_bulk_tensor %sfull[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %sfull[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %cn : i32, i32
      }
    }

    // MMA task: lane 0 of warp 5.
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %is_mma = arith.andi %is_mma_warp, %lane0 : i1
    scf.if %is_mma {
      %f:3 = scf.while (%tile = %bid, %cnt0 = %i0, %tc = %i0) : (i32, i32, i32) -> (i32, i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0, %tc : i32, i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32, %tc: i32):
        %buf32 = arith.remui %tc, %i2 : i32
        %buf = arith.index_cast %buf32 : i32 to index
        %tlap = arith.divui %tc, %i2 : i32
        %tph = arith.andi %tlap, %i1 : i32
        // The epilogue has read this accumulator buffer's previous tile.
        mbarrier.wait %tempty[%buf], %tph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %col_off = arith.muli %buf32, %i32 : i32
        %tacc = arith.addi %taddr, %col_off : i32
        %tmem = llvm.inttoptr %tacc : i32 to !llvm.ptr<6>
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %sfull[%s], %ph : !mbarrier.group<3>
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
          mbarrier.tcgen05_commit %sempty[%s] : !mbarrier.group<3>
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        mbarrier.tcgen05_commit %tfull[%buf] : !mbarrier.group<2>
        %tile_next = arith.addi %tile, %grid : i32
        %tc1 = arith.addi %tc, %i1 : i32
        scf.yield %tile_next, %cn, %tc1 : i32, i32, i32
      }
    }

    // Epilogue task: warpgroup 0.
    %is_epi = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_epi {
      %f:2 = scf.while (%tile = %bid, %tc = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %tc : i32, i32
      } do {
      ^bb0(%tile: i32, %tc: i32):
        %buf32 = arith.remui %tc, %i2 : i32
        %buf = arith.index_cast %buf32 : i32 to index
        %tmem_read_phase = arith.andi %tc, %i1 : i32 // BUG
        mbarrier.wait %tfull[%buf], %tmem_read_phase : !mbarrier.group<2> // BUG-ALT
        %col_off = arith.muli %buf32, %i32 : i32
        %tacc = arith.addi %taddr, %col_off : i32
        %tmem = llvm.inttoptr %tacc : i32 to !llvm.ptr<6>
        %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
        nvvm.tcgen05.wait <load>
        // Every warp has read the buffer; then one arrival frees it.
        mbarrier.bar_sync @epi_read threads 128
        mbarrier.arrive %tempty[%buf] if %is_tid0 : !mbarrier.group<2>
        %r0 = arith.muli %tile, %i128 : i32
        %r = arith.addi %r0, %tid : i32
        %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %op : i32, !llvm.ptr<1>
        %tile_next = arith.addi %tile, %grid : i32
        %tc1 = arith.addi %tc, %i1 : i32
        scf.yield %tile_next, %tc1 : i32, i32
      }
    }
    // Every task is done with the tensor memory before warp 5 frees it.
    gpu.barrier
    scf.if %is_mma_warp {
      %tbase = llvm.inttoptr %taddr : i32 to !llvm.ptr<6>
      nvvm.tcgen05.dealloc %tbase, %i64 : !llvm.ptr<6>, i32
    }
    gpu.return
  }
}
}
