// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_epi_load_pipeline.mlir (same public source: cutlass
// sm90_epilogue_tma_warpspecialized.hpp load() / store(), the load pipeline
// states carried across output tiles).
// BUG: store() starts every output tile from a fresh load_pipe_consumer_state
// (subtile 0 in stage 0, phase 0) instead of the state the previous tile
// returned, while load() carries its producer state: with 3 subtiles on 2
// stages, the second tile's first subtile is in stage 1, and the epilogue
// waits stage 0 at a parity already complete and reads C of the wrong
// subtile (while its arrivals run out of step with the producer's waits).
// Some launches fail: only CTAs with 2 or more tiles (%num_tiles > grid).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @cutlass_epi_load_pipeline(%map_c: !llvm.ptr, %d: !llvm.ptr<1>, %num_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i128 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %cb = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      %f = scf.for %tile = %bid to %num_tiles step %grid iter_args(%n0 = %i0) -> (i32) : i32 {
        %n3 = scf.for %sub = %i0 to %i3 step %i1 iter_args(%n = %n0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %full[%s], %i2048 : !mbarrier.group<2>
          %off = arith.muli %s32, %i2048 : i32
          %dst = llvm.getelementptr %cb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %sub, %i32 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map_c[%col, %tile], bytes 2048 : !mbarrier.group<2>, !llvm.ptr
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %n3 : i32
      }
    }
    %is_epi = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_epi {
      %f = scf.for %tile = %bid to %num_tiles step %grid iter_args(%n0 = %i0) -> (i32) : i32 {
        %n3 = scf.for %sub = %i0 to %i3 step %i1 iter_args(%n = %i0) -> (i32) : i32 { // BUG
          %s32 = arith.remui %n, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
          %off0 = arith.muli %s32, %i2048 : i32
          %to = arith.muli %tid, %i16 : i32
          %off = arith.addi %off0, %to : i32
          %src = llvm.getelementptr %cb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %c = llvm.load %src : !llvm.ptr<3> -> vector<4xf32>
          mbarrier.arrive %empty[%s] : !mbarrier.group<2>
          %r0 = arith.muli %tile, %i3 : i32
          %r1 = arith.addi %r0, %sub : i32
          %r2 = arith.muli %r1, %i128 : i32
          %r = arith.addi %r2, %tid : i32
          %dp = llvm.getelementptr %d[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
          llvm.store %c, %dp : vector<4xf32>, !llvm.ptr<1>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %n3 : i32
      }
    }
    gpu.return
  }
}
}
