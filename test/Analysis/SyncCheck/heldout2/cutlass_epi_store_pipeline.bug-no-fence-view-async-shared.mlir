// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_epi_store_pipeline.mlir (same public source: cutlass
// sm90_epilogue_tma_warpspecialized.hpp store(), sm90_pipeline.hpp
// PipelineTmaStore).
// BUG: the fence_view_async_shared() between the register-to-smem copy and
// the synchronize() before the TMA store is left out: the threads' generic
// proxy writes of the subtile are not ordered before the async proxy's read
// by the bulk tensor store, which may store stale data. A diagnostic on the
// store (BUG-ALT) is accepted.
// Some launches fail (stale values in D when the async proxy reads before the
// writes are visible to it; whether it shows is up to the hardware).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  mbarrier.named_barrier @epilogue_barrier
  gpu.func @cutlass_epi_store_pipeline(%acc_in: !llvm.ptr<1>, %tma_d: !llvm.ptr, %num_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %smem_d = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %fin = scf.for %tile = %bid to %num_tiles step %grid iter_args(%n0 = %i0) -> (i32) : i32 {
      // The tile's accumulators (the mainloop's result).
      %ai = arith.muli %tile, %i128 : i32
      %ag = arith.addi %ai, %tid : i32
      %ap = llvm.getelementptr %acc_in[%ag] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
      %acc = llvm.load %ap : !llvm.ptr<1> -> vector<4xf32>
      %n4 = scf.for %sub = %i0 to %i4 step %i1 iter_args(%n = %n0) -> (i32) : i32 {
        %s = arith.remui %n, %i2 : i32
        // store_pipeline.producer_acquire: the store two subtiles back has
        // read this stage.
        scf.if %is_tid0 {
          nvvm.cp.async.bulk.wait_group 1 {read}
        }
        mbarrier.bar_sync @epilogue_barrier threads 128
        %so = arith.muli %s, %i2048 : i32
        %to = arith.muli %tid, %i16 : i32
        %o = arith.addi %so, %to : i32
        %dst = llvm.getelementptr %smem_d[%o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %acc, %dst : vector<4xf32>, !llvm.ptr<3>
        // fence_view_async_shared(), then synchronize().
        mbarrier.bar_sync @epilogue_barrier threads 128 // BUG
        scf.if %is_tid0 {
          %src = llvm.getelementptr %smem_d[%so] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %sub, %i16 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %tma_d, %src, box[%col, %tile] : !llvm.ptr, !llvm.ptr<3> // BUG-ALT
          nvvm.cp.async.bulk.commit.group
        }
        %n2 = arith.addi %n, %i1 : i32
        scf.yield %n2 : i32
      }
      scf.yield %n4 : i32
    }
    // store_tail()
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
}
