// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cuda_samples_async_copy.mlir (same public source: cuda-samples
// globalToShmemAsyncCopy.cu MatrixMulAsyncCopyMultiStageLargeChunk, as it
// was before pull request #263).
// BUG: the inner loop's bound `aStage <= a + aStep * maxPipelineStages`
// issues the batches up to i + maxPipelineStages: five batches in flight on
// four buffers, and batch i + 4 fills As[i % 4], the buffer k-tile i is
// about to read (task 4 conflicts with task 0), while other threads may be
// reading it. One bug, on two lines (the prologue's bound and the loop's
// batch index, both marked); consumer_wait() then leaves the 4 younger
// batches pending (wait_group 4), as the pipeline does.
// Some launches fail: only where %k_tiles >= 5 (batch i + 4 exists), and
// then as a race.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @as() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @cuda_samples_async_copy(%a: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %as = llvm.mlir.addressof @as : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t2 = arith.addi %tid, %i32 : i32
    %t3 = arith.andi %t2, %i127 : i32
    %theirs = arith.muli %t3, %i16 : i32
    %row = arith.muli %bid, %k_tiles : i32
    // The first two batches (iStage 0, 1).
    scf.for %st = %i0 to %i4 step %i1 : i32 { // BUG
      %exists = arith.cmpi ult, %st, %k_tiles : i32
      scf.if %exists {
        %j = arith.andi %st, %i3 : i32
        %bo = arith.muli %j, %i2048 : i32
        %o = arith.addi %bo, %mine : i32
        %dst = llvm.getelementptr %as[%o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g0 = arith.addi %row, %st : i32
        %g1 = arith.muli %g0, %i128 : i32
        %g = arith.addi %g1, %tid : i32
        %src = llvm.getelementptr %a[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %csub = scf.for %i = %i0 to %k_tiles step %i1 iter_args(%acc = %zero) -> (vector<4xf32>) : i32 {
      // The inner loop's batch for this k-tile: iStage = i + maxPipelineStages - 2.
      %st = arith.addi %i, %i4 : i32 // BUG
      %exists = arith.cmpi ult, %st, %k_tiles : i32
      scf.if %exists {
        %j = arith.andi %st, %i3 : i32
        %bo = arith.muli %j, %i2048 : i32
        %o = arith.addi %bo, %mine : i32
        %dst = llvm.getelementptr %as[%o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g0 = arith.addi %row, %st : i32
        %g1 = arith.muli %g0, %i128 : i32
        %g = arith.addi %g1, %tid : i32
        %src = llvm.getelementptr %a[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // pipe.consumer_wait(): batch i is complete, the two younger ones may not be.
      nvvm.cp.async.wait.group 4
      gpu.barrier
      %j = arith.andi %i, %i3 : i32
      %bo = arith.muli %j, %i2048 : i32
      %ro = arith.addi %bo, %theirs : i32
      %rp = llvm.getelementptr %as[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> vector<4xf32>
      %acc2 = arith.addf %acc, %x : vector<4xf32>
      scf.yield %acc2 : vector<4xf32>
    }
    nvvm.cp.async.wait.group 0
    %co0 = arith.muli %bid, %i128 : i32
    %co = arith.addi %co0, %tid : i32
    %cp = llvm.getelementptr %c[%co] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %csub, %cp : vector<4xf32>, !llvm.ptr<1>
    gpu.return
  }
}
}
