// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cuda_samples_async_copy(
// Follows NVIDIA/cuda-samples Samples/3_CUDA_Features/globalToShmemAsyncCopy/
// globalToShmemAsyncCopy.cu (MatrixMulAsyncCopyMultiStageLargeChunk:
// cuda::pipeline<cuda::thread_scope_thread>, a rotating buffer of
// maxPipelineStages = 4 sub-tiles; per k-tile i the inner loop issues the
// batches iStage up to a bound with producer_acquire / memcpy_async (only
// for sub-tiles <= aEnd) / producer_commit, then pipe.consumer_wait(),
// __syncthreads(), the product from As[i % 4], pipe.consumer_release(), and
// no second __syncthreads ("next iteration is loading to a different
// buffer")) with the fix of NVIDIA/cuda-samples pull request #263 ("five
// tasks were submitted to pipeline at the same time and task 4 conflicts
// with task 0"): here the batches run up to i + maxPipelineStages - 2, so
// the buffer a batch fills was last read two k-tiles back, before the
// __syncthreads() of the previous k-tile. consumer_wait() of the thread-scope
// pipeline is cp.async.wait_group with the younger batches (2) left pending.
// 128 threads; each copies one 16-byte chunk of the 2048-byte sub-tile and
// reads the chunk of another warp. %k_tiles = wA / BLOCK_SIZE >= 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @as() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @cuda_samples_async_copy(%a: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
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
    scf.for %st = %i0 to %i2 step %i1 : i32 {
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
      %st = arith.addi %i, %i2 : i32
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
      nvvm.cp.async.wait.group 2
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
