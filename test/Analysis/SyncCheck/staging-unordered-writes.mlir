// Class 10 between threads: a bulk store's source written by other threads
// of the CTA before the store with no barrier in between (the CUDA guide's
// "Using TMA to transfer one-dimensional arrays" add_one_kernel without the
// __syncthreads() before thread 0's cp.async.bulk store). The issuing
// thread may copy the buffer before another thread's write is done: a
// warning at the store. A barrier (CTA, named, an mbarrier hand-off)
// between the writes and the store, writes by the issuing thread only, or
// writes outside the bytes the store reads stay silent.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Every thread adds to its strided elements (a loop from its thread id),
// fences, and thread 0 stores the whole buffer: no __syncthreads().
gpu.module @strided_writes_without_barrier {
  llvm.mlir.global internal @smem_data() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i32>
  gpu.func @k(%data: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %i1024 = arith.constant 1024 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_data : !llvm.ptr<3>
    scf.for %i = %tid to %i1024 step %i128 : i32 {
      %p = llvm.getelementptr %smem[0, %i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x i32>
      %v = llvm.load %p : !llvm.ptr<3> -> i32
      %v1 = arith.addi %v, %i1 : i32
      // expected-note @+1 {{the write into the buffer}}
      llvm.store %v1, %p : i32, !llvm.ptr<3>
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    scf.if %is_tid0 {
      // expected-warning @+1 {{reads a buffer that thread 1 writes before it with no barrier in between: the bulk store may copy the buffer before that write is done, on some launches (synchronize the writing threads with the issuing one, __syncthreads() or a named barrier, after their writes and their fence.proxy.async, before the store)}}
      nvvm.cp.async.bulk.global.shared.cta %data, %smem, %i4096 : !llvm.ptr<1>, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// The same with the __syncthreads() after the fence: silent.
gpu.module @strided_writes_then_barrier {
  llvm.mlir.global internal @smem_data() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i32>
  gpu.func @k(%data: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %i1024 = arith.constant 1024 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_data : !llvm.ptr<3>
    scf.for %i = %tid to %i1024 step %i128 : i32 {
      %p = llvm.getelementptr %smem[0, %i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x i32>
      %v = llvm.load %p : !llvm.ptr<3> -> i32
      %v1 = arith.addi %v, %i1 : i32
      llvm.store %v1, %p : i32, !llvm.ptr<3>
    }
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.global.shared.cta %data, %smem, %i4096 : !llvm.ptr<1>, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// An epilogue warpgroup writes a tile into the staging buffer (4 bytes per
// thread: threads 1 to 3 write into the smallest box) and thread 0
// issues the TMA store with no named barrier between (the EpilogueBarrier
// sync left out): a warning at the store.
gpu.module @tile_written_then_tensor_store_without_named_barrier {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %off = arith.muli %tid, %i4 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant 1.0 : f32
    // expected-note @+1 {{the write into the buffer}}
    llvm.store %v, %dst : f32, !llvm.ptr<3>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    scf.if %is_tid0 {
      // expected-warning @+1 {{reads a buffer that thread 1 writes before it with no barrier in between}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// The same with the named barrier of the 128 epilogue threads: silent.
gpu.module @tile_written_then_named_barrier {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  mbarrier.named_barrier @epilogue_barrier
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %off = arith.muli %tid, %i4 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant 1.0 : f32
    llvm.store %v, %dst : f32, !llvm.ptr<3>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    mbarrier.bar_sync @epilogue_barrier threads 128
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// The writers hand the buffer to the issuing thread through an mbarrier
// (arrive after the fence, thread 0 waits): silent.
gpu.module @tile_handed_off_by_mbarrier {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %ready = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %ready[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %off = arith.muli %tid, %i4 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant 1.0 : f32
    llvm.store %v, %dst : f32, !llvm.ptr<3>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    mbarrier.arrive %ready[%c0] : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.wait %ready[%c0], %i0 : !mbarrier.group<1>
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// Only the issuing thread writes the buffer (program order orders its own
// writes; the fence orders the proxies): silent.
gpu.module @issuing_thread_writes_alone {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    scf.if %is_tid0 {
      %v = arith.constant dense<1.0> : vector<4xf32>
      llvm.store %v, %smem : vector<4xf32>, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// The other threads write the second half of the buffer; thread 0's plain
// bulk store reads the first 1024 bytes only: silent (no fence is needed
// either, class 19: the store reads none of the written bytes).
gpu.module @writes_outside_the_stored_bytes {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%data: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i16 = arith.constant 16 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %o = arith.muli %tid, %i16 : i32
    %off = arith.addi %o, %i1024 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant dense<1.0> : vector<4xf32>
    llvm.store %v, %dst : vector<4xf32>, !llvm.ptr<3>
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.global.shared.cta %data, %smem, %i1024 : !llvm.ptr<1>, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}
