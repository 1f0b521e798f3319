// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cuda_samples_awbarrier(
// Follows NVIDIA/cuda-samples Samples/0_Introduction/simpleAWBarrier/
// simpleAWBarrier.cu (normVecByDotProductAWBarrier / reduceBlockData: thread 0
// init(&barrier, blockDim.x), cg::sync(cta); a grid-stride dot product; a
// warp shfl_down reduction; lane 0 of each warp stores its sum into
// tmp[meta_group_rank]; every thread `auto token = barrier.arrive();
// barrier.wait(std::move(token));`; warp 0 reduces tmp and its lane 0 adds
// the block's sum to partialResults) with libcudacxx <cuda/barrier>
// (arrive / wait(token) = mbarrier.arrive + a wait for the token's phase).
// The grid-wide cg::sync and the normalization that follow it are left out
// (no mbarrier in them). 256 threads (8 warps); %size elements.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @tmp() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x f32>
  gpu.func @cuda_samples_awbarrier(%vec_a: !llvm.ptr<1>, %vec_b: !llvm.ptr<1>, %partial: !llvm.ptr<1>, %size: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i5 = arith.constant 5 : i32
    %i8 = arith.constant 8 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i256 = arith.constant 256 : i32
    %full_mask = arith.constant -1 : i32
    %clamp = arith.constant 31 : i32
    %zero = arith.constant 0.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %is_lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %barrier = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %barrier[%c0], %i256 : !mbarrier.group<1>
    }
    gpu.barrier
    // Grid-stride dot product.
    %g0 = arith.muli %bid, %i256 : i32
    %gi = arith.addi %g0, %tid : i32
    %gs = arith.muli %grid, %i256 : i32
    %sum = scf.for %i = %gi to %size step %gs iter_args(%s = %zero) -> (f32) : i32 {
      %pa = llvm.getelementptr %vec_a[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %pb = llvm.getelementptr %vec_b[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %a = llvm.load %pa : !llvm.ptr<1> -> f32
      %b = llvm.load %pb : !llvm.ptr<1> -> f32
      %ab = arith.mulf %a, %b : f32
      %s2 = arith.addf %s, %ab : f32
      scf.yield %s2 : f32
    }
    // reduceBlockData: warp shfl_down, offsets 16, 8, 4, 2, 1.
    %ws = scf.for %k = %i0 to %i5 step %i1 iter_args(%acc = %sum) -> (f32) : i32 {
      %sh = arith.shrui %i16, %k : i32
      %o = nvvm.shfl.sync down %full_mask, %acc, %sh, %clamp : f32 -> f32
      %a2 = arith.addf %acc, %o : f32
      scf.yield %a2 : f32
    }
    %tmp = llvm.mlir.addressof @tmp : !llvm.ptr<3>
    scf.if %is_lane0 {
      %tp = llvm.getelementptr %tmp[0, %warp] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8 x f32>
      llvm.store %ws, %tp : f32, !llvm.ptr<3>
    }
    // auto token = barrier.arrive(); barrier.wait(std::move(token));
    mbarrier.arrive %barrier[%c0] : !mbarrier.group<1>
    mbarrier.wait %barrier[%c0], %i0 : !mbarrier.group<1>
    %is_warp0 = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_warp0 {
      %in = arith.cmpi ult, %lane, %i8 : i32
      %l8 = arith.andi %lane, %i3 : i32
      %l = arith.select %in, %lane, %l8 : i32
      %tp = llvm.getelementptr %tmp[0, %l] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<8 x f32>
      %t = llvm.load %tp : !llvm.ptr<3> -> f32
      %beta = arith.select %in, %t, %zero : f32
      %bs = scf.for %k = %i0 to %i5 step %i1 iter_args(%acc = %beta) -> (f32) : i32 {
        %sh = arith.shrui %i16, %k : i32
        %o = nvvm.shfl.sync down %full_mask, %acc, %sh, %clamp : f32 -> f32
        %a2 = arith.addf %acc, %o : f32
        scf.yield %a2 : f32
      }
      scf.if %is_lane0 {
        %pp = llvm.getelementptr %partial[%bid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %bs, %pp : f32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
}
