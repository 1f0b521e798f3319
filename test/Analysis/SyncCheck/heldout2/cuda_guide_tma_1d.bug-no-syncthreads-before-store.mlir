// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cuda_guide_tma_1d.mlir (same public source: the CUDA C++
// Programming Guide, "Using TMA to transfer one-dimensional arrays").
// BUG: the __syncthreads() between the element updates (and their proxy
// fence) and thread 0's cp.async.bulk store is left out: the bulk copy reads
// the whole 4096-byte buffer while the other 127 threads may still be adding 1
// to their elements (a race between the threads' generic writes and the
// async-proxy read that only thread 0's own writes are ordered before). A
// diagnostic on the store (BUG-ALT) is accepted.
// Some launches fail (wrong values in global memory when thread 0 gets ahead
// of another warp; a launch where every warp finished first is right).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_data() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i32>
  gpu.func @cuda_guide_tma_1d(%data: !llvm.ptr<1>, %offset: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %i1024 = arith.constant 1024 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i128 : !mbarrier.group<1>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier
    %smem = llvm.mlir.addressof @smem_data : !llvm.ptr<3>
    %gsrc = llvm.getelementptr %data[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    scf.if %is_tid0 {
      %b = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %smem, %gsrc, %b, %i4096 : !llvm.ptr<3>, !llvm.ptr<1>
      mbarrier.arrive_expect_tx %bar[%c0], %i4096 : !mbarrier.group<1>
    } else {
      mbarrier.arrive %bar[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %bar[%c0], %i0 : !mbarrier.group<1>
    // for (int i = threadIdx.x; i < buf_len; i += blockDim.x) smem_data[i] += 1;
    scf.for %i = %tid to %i1024 step %i128 : i32 {
      %p = llvm.getelementptr %smem[0, %i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x i32>
      %v = llvm.load %p : !llvm.ptr<3> -> i32
      %v1 = arith.addi %v, %i1 : i32
      llvm.store %v1, %p : i32, !llvm.ptr<3>
    }
    // The generic-proxy writes are made visible to the async proxy, then
    // every thread's writes are done before thread 0 issues the store.
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>} // BUG
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.global.shared.cta %gsrc, %smem, %i4096 : !llvm.ptr<1>, !llvm.ptr<3> // BUG-ALT
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
      mbarrier.inval %bar[%c0] : !mbarrier.group<1>
    }
    gpu.return
  }
}
}
