// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cccl_transform_ublkcp.mlir (same public source: NVIDIA/cccl
// cub/cub/device/dispatch/dispatch_transform.cuh, transform_kernel_ublkcp /
// bulk_copy_tile).
// BUG: total_copied also counts the bulk_copy_alignment (128 bytes) that
// bulk_copy_tile adds to smem_offset after each tile, which is shared-memory
// padding for the next tile's head and is never copied: the expect-tx asks
// for 256 bytes more than the two bulk copies complete. The transaction
// count never drains, phase 0 of bar never completes, and every thread
// spins in mbarrier_try_wait_parity(&bar, 0) forever (the byte-offset
// arithmetic of these lines is where cccl#8800 had its bug).
// Every launch fails (for every %elem_per_thread: 2 x 1024 x n bytes land,
// 2 x 1024 x n + 256 are expected).
// BUG-ALT: the expect-tx that carries the count, and the spinning wait.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
  gpu.func @cccl_transform_ublkcp(%in_a: !llvm.ptr<1>, %in_b: !llvm.ptr<1>, %out: !llvm.ptr<1>, %elem_per_thread: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i256 = arith.constant 256 : i32
    %true = arith.constant true
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %elected = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %tile_stride = arith.muli %elem_per_thread, %i256 : i32
    %offset = arith.muli %bid, %tile_stride : i32
    %tile_bytes = arith.muli %tile_stride, %i4 : i32
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %b_smem = llvm.getelementptr %smem[%tile_bytes] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %elected {
      mbarrier.init %bar[%c0], %i1 : !mbarrier.group<1>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      %bp = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      // bulk_copy_tile for each input.
      %ga = llvm.getelementptr %in_a[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      nvvm.cp.async.bulk.shared.cluster.global %smem, %ga, %bp, %tile_bytes : !llvm.ptr<3>, !llvm.ptr<1>
      %gb = llvm.getelementptr %in_b[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      nvvm.cp.async.bulk.shared.cluster.global %b_smem, %gb, %bp, %tile_bytes : !llvm.ptr<3>, !llvm.ptr<1>
      %i128 = arith.constant 128 : i32
      %padded = arith.addi %tile_bytes, %i128 : i32
      %total_copied = arith.addi %padded, %padded : i32 // BUG
      mbarrier.arrive_expect_tx %bar[%c0], %total_copied {sem = #mbarrier.sem<release>, scope = #mbarrier.scope<cta>} : !mbarrier.group<1> // BUG-ALT
    }
    gpu.barrier
    // while (!mbarrier_try_wait_parity(&bar, 0));
    scf.while : () -> () {
      %done = mbarrier.try_wait %bar[%c0], %i0 : !mbarrier.group<1> // BUG-ALT
      %spin = arith.xori %done, %true : i1
      scf.condition(%spin)
    } do {
      scf.yield
    }
    scf.for %j = %i0 to %elem_per_thread step %i1 : i32 {
      %jj = arith.muli %j, %i256 : i32
      %idx = arith.addi %jj, %tid : i32
      %pa = llvm.getelementptr %smem[%idx] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      %pb = llvm.getelementptr %b_smem[%idx] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      %va = llvm.load %pa : !llvm.ptr<3> -> f32
      %vb = llvm.load %pb : !llvm.ptr<3> -> f32
      %sum = arith.addf %va, %vb : f32
      %gidx = arith.addi %offset, %idx : i32
      %po = llvm.getelementptr %out[%gidx] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %sum, %po : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
