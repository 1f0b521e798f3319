// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of cluster_splitk_reduce.mlir (same public sources: the CUDA
// programming guide's distributed shared memory section, cutlass
// arch/barrier.h ClusterBarrier::arrive(cta_id)).
// BUG: rank 1 names its root by blockIdx (blockIdx.x & ~1, the grid index
// of the pair's first CTA) instead of cluster rank 0: in every cluster but
// the first that "rank" (2, 4, 6) is outside the 2-CTA cluster, so the mapa
// store and the remote arrive go to no CTA of it, and the root waits
// forever. A diagnostic on the remote store or arrive (BUG-ALT) is accepted.
// Every launch of the declared shape (8 CTAs, clusters of 2) fails.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @partial() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
  gpu.func @cluster_splitk_reduce(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %k_steps: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>,
                  known_grid_size = array<i32: 8, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i128 = arith.constant 128 : i32
    %zero = arith.constant 0.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %tile = arith.divui %bid, %i2 : i32
    %half = arith.divui %k_steps, %i2 : i32
    %kbeg = arith.muli %rank, %half : i32
    %is_last = arith.cmpi eq, %rank, %i1 : i32
    %kend = arith.select %is_last, %k_steps, %half : i32
    %row0 = arith.muli %tile, %i128 : i32
    %row = arith.addi %row0, %tid : i32
    %sum = scf.for %k = %kbeg to %kend step %i1 iter_args(%s = %zero) -> (f32) : i32 {
      %ix0 = arith.muli %row, %k_steps : i32
      %ix = arith.addi %ix0, %k : i32
      %ap = llvm.getelementptr %a[%ix] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %av = llvm.load %ap : !llvm.ptr<1> -> f32
      %s2 = arith.addf %s, %av : f32
      scf.yield %s2 : f32
    }
    %partial = llvm.mlir.addressof @partial : !llvm.ptr<3>
    %mine = llvm.getelementptr %partial[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
    scf.if %is_last {
      // The pair's first CTA is the root.
      %pair_mask = arith.constant -2 : i32
      %root = arith.andi %bid, %pair_mask : i32 // BUG
      %theirs = nvvm.mapa %mine, %root : !llvm.ptr<3> -> !llvm.ptr<7> // BUG-ALT
      llvm.store %sum, %theirs : f32, !llvm.ptr<7>
      %rb = mbarrier.remote_view %bar, %root : !mbarrier.group<1> // BUG-ALT
      mbarrier.arrive %rb[%c0] : !mbarrier.remote<1> // BUG-ALT
    } else {
      mbarrier.wait %bar[%c0], %i0 {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %other = llvm.load %mine : !llvm.ptr<3> -> f32
      %total = arith.addf %sum, %other : f32
      %op = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %total, %op : f32, !llvm.ptr<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
