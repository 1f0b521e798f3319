// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of cutlass_tma_store.mlir): a staging buffer rewritten before
// the wait_group.read that frees it: producer_acquire waits with N = 2
// (tma_store_wait<Stages>) instead of Stages - 1 = 1, which leaves the store
// that read the buffer two subtiles ago among the newest 2 groups.
// The op: the nvvm.cp.async.bulk.wait_group 2 {read} (marked // BUG).
// Some launches (expected: a warning): with %n_sub >= 3, subtile i's writes may
// overwrite buffer i % 2 while store i - 2 still reads it (a race).
//
// Follows NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaStore: producer_commit = tma_store_arrive (commit_group),
// producer_acquire = tma_store_wait<Stages - 1> (wait_group.read), producer_tail
// = tma_store_wait<0>) as used by include/cutlass/epilogue/collective/
// sm90_epilogue_tma_warpspecialized.hpp (store(): each epilogue subtile goes
// through a ring of StagesD staging buffers; the writes of subtile i into
// buffer i % 2 wait until store i - 2 has read it; a named barrier before the
// issuing thread's store and after its wait).
// 128 threads; the C tile is loaded by TMA on an mbarrier first (the source
// operand), then %n_sub subtiles (a parameter) are written and stored.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  mbarrier.named_barrier @epilogue
  gpu.func @cutlass_tma_store(%map_c: !llvm.ptr, %map_d: !llvm.ptr, %n_sub: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %cbuf = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    %stg = llvm.mlir.addressof @staging : !llvm.ptr<3>
    %row0 = arith.muli %bid, %i32 : i32
    scf.if %is_tid0 {
      mbarrier.arrive_expect_tx %bar[%c0], %i4096 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %bar[%c0], %cbuf, %map_c[%i0, %row0], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
    }
    mbarrier.wait %bar[%c0], %i0 : !mbarrier.group<1>
    %w = arith.muli %tid, %i4 : i32
    %cin = llvm.getelementptr %cbuf[%w] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %c = llvm.load %cin : !llvm.ptr<3> -> f32
    scf.for %i = %i0 to %n_sub step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %boff = arith.muli %s, %i2048 : i32
      %buf = llvm.getelementptr %stg[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // producer_acquire: the store that read this buffer two subtiles ago is done.
      scf.if %is_tid0 {
        nvvm.cp.async.bulk.wait_group 2 {read} // BUG
      }
      mbarrier.bar_sync @epilogue threads 128
      %mine = llvm.getelementptr %buf[%w] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %fi = arith.sitofp %i : i32 to f32
      %v = arith.addf %c, %fi : f32
      llvm.store %v, %mine : f32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      mbarrier.bar_sync @epilogue threads 128
      scf.if %is_tid0 {
        %sub = arith.muli %i, %i4 : i32
        %row = arith.addi %row0, %sub : i32
        nvvm.cp.async.bulk.tensor.global.shared.cta %map_d, %buf, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
}
