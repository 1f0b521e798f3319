// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of tk_lcsf_store.mlir (same public source: ThunderKittens
// prototype/lcsf/lcsf.cuh, include/ops/warp/memory/util/tma.cuh).
// BUG: the storer arrives on outputs_finished right after committing the TMA
// store, before tma::store_async_read_wait(): the consumers of the task two
// steps later may write the output stage while the bulk store still reads it
// (the read wait moved below the arrive). A diagnostic on the read wait or on
// the consumers' next write of the stage (BUG-ALT) is accepted.
// Some launches fail (wrong output when a CTA runs three or more tasks and
// the consumers overtake the store; with at most two tasks per CTA no stage is
// rewritten).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @in_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @tk_lcsf_store(%tma_in: !llvm.ptr, %tma_out: !llvm.ptr, %num_tasks: i32, %iters: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %all = arith.constant -1 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %inputs_arrived = mbarrier.alloc : !mbarrier.group<2>
    %inputs_finished = mbarrier.alloc : !mbarrier.group<2>
    %outputs_arrived = mbarrier.alloc : !mbarrier.group<2>
    %outputs_finished = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %inputs_arrived[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %inputs_finished[%s], %i4 : !mbarrier.group<2>
        mbarrier.init %outputs_arrived[%s], %i4 : !mbarrier.group<2>
        mbarrier.init %outputs_finished[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %in_base = llvm.mlir.addressof @in_s : !llvm.ptr<3>
    %out_base = llvm.mlir.addressof @out_s : !llvm.ptr<3>

    // Producer warpgroup, loader warp (lane 0).
    scf.if %is_tid0 {
      %fin = scf.for %task = %bid to %num_tasks step %grid iter_args(%n0 = %i0) -> (i32) : i32 {
        %n1 = scf.for %it = %i0 to %iters step %i1 iter_args(%n = %n0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %inputs_finished[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %inputs_arrived[%s], %i8192 : !mbarrier.group<2>
          %off = arith.muli %s32, %i8192 : i32
          %dst = llvm.getelementptr %in_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.cp_async_bulk_tensor %inputs_arrived[%s], %dst, %tma_in[%it, %task], bytes 8192 : !mbarrier.group<2>, !llvm.ptr
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %n1 : i32
      }
    }

    // Producer warpgroup, storer warp (lane 0).
    %is_storer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_storer {
      %fin = scf.for %task = %bid to %num_tasks step %grid iter_args(%t = %i0) -> (i32) : i32 {
        %os32 = arith.remui %t, %i2 : i32
        %os = arith.index_cast %os32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %outputs_arrived[%os], %ph : !mbarrier.group<2>
        %off = arith.muli %os32, %i4096 : i32
        %src = llvm.getelementptr %out_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.bulk.tensor.global.shared.cta %tma_out, %src, box[%i0, %task] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        mbarrier.arrive %outputs_finished[%os] : !mbarrier.group<2> // BUG
        nvvm.cp.async.bulk.wait_group 0 {read} // BUG-ALT
        %t2 = arith.addi %t, %i1 : i32
        scf.yield %t2 : i32
      }
      nvvm.cp.async.bulk.wait_group 0
    }

    // Consumer warpgroup (warps 4-7).
    %is_consumer = arith.cmpi uge, %warp, %i4 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      %zero = arith.constant 0.0 : f32
      %fin:2 = scf.for %task = %bid to %num_tasks step %grid iter_args(%n0 = %i0, %t = %i0) -> (i32, i32) : i32 {
        %r:2 = scf.for %it = %i0 to %iters step %i1 iter_args(%n = %n0, %acc = %zero) -> (i32, f32) : i32 {
          %s32 = arith.remui %n, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %inputs_arrived[%s], %ph : !mbarrier.group<2>
          %off0 = arith.muli %s32, %i8192 : i32
          %o4 = arith.muli %ctid, %i4 : i32
          %off = arith.addi %off0, %o4 : i32
          %p = llvm.getelementptr %in_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %v = llvm.load %p : !llvm.ptr<3> -> f32
          %acc2 = arith.addf %acc, %v : f32
          nvvm.bar.warp.sync %all : i32
          mbarrier.arrive %inputs_finished[%s] if %lane0 : !mbarrier.group<2>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2, %acc2 : i32, f32
        }
        // finish: write the task's output stage once the storer is done with it.
        %os32 = arith.remui %t, %i2 : i32
        %os = arith.index_cast %os32 : i32 to index
        %olap = arith.divui %t, %i2 : i32
        %oph = arith.andi %olap, %i1 : i32
        mbarrier.wait %outputs_finished[%os], %oph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %ooff0 = arith.muli %os32, %i4096 : i32
        %oo4 = arith.muli %ctid, %i4 : i32
        %ooff = arith.addi %ooff0, %oo4 : i32
        %q = llvm.getelementptr %out_base[%ooff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %r#1, %q : f32, !llvm.ptr<3> // BUG-ALT
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        nvvm.bar.warp.sync %all : i32
        mbarrier.arrive %outputs_arrived[%os] if %lane0 : !mbarrier.group<2>
        %t2 = arith.addi %t, %i1 : i32
        scf.yield %r#0, %t2 : i32, i32
      }
    }
    gpu.return
  }
}
}
