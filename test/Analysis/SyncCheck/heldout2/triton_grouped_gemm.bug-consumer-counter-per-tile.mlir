// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of triton_grouped_gemm.mlir (same public source: triton
// python/tutorials/08-grouped-gemm.py, grouped_matmul_tma_kernel, as the
// sm_90 warp-specialized pipeliner lowers it).
// BUG: the MMA warpgroup restarts its ring counter at 0 for every tile (the
// k-loop's own induction variable used as the iteration count) while the load
// warp carries it across tiles and groups: once a tile's k-steps are not a
// multiple of the 4 stages, the consumer waits on the wrong stage and parity
// (a stale phase passes at once: it reads a stage before its copy landed; or
// it waits for a phase that comes only later). A diagnostic on the wait
// (BUG-ALT) is accepted.
// Some launches fail (wrong values or a hang when a CTA handles a second tile
// after one whose k-steps are not a multiple of 4; a launch where every CTA
// gets at most one tile, or every group's k-steps are multiples of 4, is
// right).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @triton_grouped_gemm(%desc_a: !llvm.ptr, %desc_b: !llvm.ptr, %c: !llvm.ptr<1>,
                                %group_tiles: !llvm.ptr<1>, %group_ktiles: !llvm.ptr<1>, %group_size: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
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
    %grid_x = gpu.grid_dim x
    %num_sm = arith.index_cast %grid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      %g_end:3 = scf.for %g = %i0 to %group_size step %i1 iter_args(%tile0 = %bid, %last = %i0, %it0 = %i0) -> (i32, i32, i32) : i32 {
        %tp = llvm.getelementptr %group_tiles[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %num_tiles = llvm.load %tp : !llvm.ptr<1> -> i32
        %kp = llvm.getelementptr %group_ktiles[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %k_tiles = llvm.load %kp : !llvm.ptr<1> -> i32
        %end = arith.addi %last, %num_tiles : i32
        %w:2 = scf.while (%tile = %tile0, %it = %it0) : (i32, i32) -> (i32, i32) {
          %more = arith.cmpi slt, %tile, %end : i32
          scf.condition(%more) %tile, %it : i32, i32
        } do {
        ^bb0(%tile: i32, %it: i32):
          %local = arith.subi %tile, %last : i32
          %row = arith.muli %local, %i128 : i32
          %itk = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%n = %it) -> (i32) : i32 {
            %s32 = arith.remui %n, %i4 : i32
            %s = arith.index_cast %s32 : i32 to index
            %lap = arith.divui %n, %i4 : i32
            %ph = arith.andi %lap, %i1 : i32
            mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
            mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<4>
            %off = arith.muli %s32, %i4096 : i32
            %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %col = arith.muli %k, %i64 : i32
            mbarrier.cp_async_bulk_tensor %full[%s], %adst, %desc_a[%col, %row, %g], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
            mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %desc_b[%col, %row, %g], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
            %n2 = arith.addi %n, %i1 : i32
            scf.yield %n2 : i32
          }
          %tnext = arith.addi %tile, %num_sm : i32
          scf.yield %tnext, %itk : i32, i32
        }
        scf.yield %w#0, %end, %w#1 : i32, i32, i32
      }
    }

    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      %z = llvm.mlir.zero : !acc
      %g_end:3 = scf.for %g = %i0 to %group_size step %i1 iter_args(%tile0 = %bid, %last = %i0, %it0 = %i0) -> (i32, i32, i32) : i32 {
        %tp = llvm.getelementptr %group_tiles[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %num_tiles = llvm.load %tp : !llvm.ptr<1> -> i32
        %kp = llvm.getelementptr %group_ktiles[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %k_tiles = llvm.load %kp : !llvm.ptr<1> -> i32
        %end = arith.addi %last, %num_tiles : i32
        %w:2 = scf.while (%tile = %tile0, %it = %it0) : (i32, i32) -> (i32, i32) {
          %more = arith.cmpi slt, %tile, %end : i32
          scf.condition(%more) %tile, %it : i32, i32
        } do {
        ^bb0(%tile: i32, %it: i32):
          %r:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%n = %it, %acc = %z) -> (i32, !acc) : i32 {
            %s32 = arith.remui %k, %i4 : i32 // BUG
            %s = arith.index_cast %s32 : i32 to index
            %lap = arith.divui %k, %i4 : i32
            %ph = arith.andi %lap, %i1 : i32
            mbarrier.wait %full[%s], %ph : !mbarrier.group<4> // BUG-ALT
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
            %acc2 = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
            nvvm.wgmma.commit.group.sync.aligned
            nvvm.wgmma.wait.group.sync.aligned 0
            mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
            %n2 = arith.addi %n, %i1 : i32
            scf.yield %n2, %acc2 : i32, !acc
          }
          %e = llvm.extractvalue %r#1[0] : !acc
          %o0 = arith.muli %tile, %i128 : i32
          %o = arith.addi %o0, %tid : i32
          %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
          llvm.store %e, %op : f32, !llvm.ptr<1>
          %tnext = arith.addi %tile, %num_sm : i32
          scf.yield %tnext, %r#0 : i32, i32
        }
        scf.yield %w#0, %end, %w#1 : i32, i32, i32
      }
    }
    gpu.return
  }
}
}
