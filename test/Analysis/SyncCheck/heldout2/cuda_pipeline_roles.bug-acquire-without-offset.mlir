// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cuda_pipeline_roles.mlir (same public source: the CUDA C++
// Programming Guide, cuda::pipeline with partitioned roles; libcudacxx
// <cuda/pipeline>).
// BUG: producer_acquire waits for consumed[s] with the lap's own parity, not
// one phase behind (the hand-written pipeline's startup deadlock): phase 0 of
// consumed[0] completes only after the consumers release stage 0, which they
// do only after the producers commit it, which they do only after this wait.
// Every launch fails (a hang on the first batch; batch_sz >= 1).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x i32>
  gpu.func @cuda_pipeline_roles(%global_out: !llvm.ptr<1>, %global_in: !llvm.ptr<1>, %batch_sz: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %produced = mbarrier.alloc : !mbarrier.group<2>
    %consumed = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %produced[%c0], %i64 : !mbarrier.group<2>
      mbarrier.init %produced[%c1], %i64 : !mbarrier.group<2>
      mbarrier.init %consumed[%c0], %i64 : !mbarrier.group<2>
      mbarrier.init %consumed[%c1], %i64 : !mbarrier.group<2>
    }
    gpu.barrier
    %shared = llvm.mlir.addressof @shared : !llvm.ptr<3>
    %thread_idx = arith.divui %tid, %i2 : i32
    %parity = arith.remui %tid, %i2 : i32
    %is_producer = arith.cmpi eq, %parity, %i0 : i32
    %blk0 = arith.muli %bid, %i64 : i32
    %elem = arith.addi %blk0, %thread_idx : i32
    scf.if %is_producer {
      scf.for %b = %i0 to %batch_sz step %i1 : i32 {
        %s32 = arith.remui %b, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %b, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        // producer_acquire()
        mbarrier.wait %consumed[%s], %ph : !mbarrier.group<2> // BUG
        %gb = arith.muli %b, %i64 : i32
        %g = arith.addi %gb, %elem : i32
        %src = llvm.getelementptr %global_in[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %v = llvm.load %src : !llvm.ptr<1> -> i32
        %o0 = arith.muli %s32, %i64 : i32
        %o = arith.addi %o0, %thread_idx : i32
        %dst = llvm.getelementptr %shared[0, %o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x i32>
        llvm.store %v, %dst : i32, !llvm.ptr<3>
        // producer_commit()
        mbarrier.arrive %produced[%s] : !mbarrier.group<2>
      }
    } else {
      scf.for %b = %i0 to %batch_sz step %i1 : i32 {
        %s32 = arith.remui %b, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %b, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        // consumer_wait()
        mbarrier.wait %produced[%s], %ph : !mbarrier.group<2>
        %o0 = arith.muli %s32, %i64 : i32
        %o = arith.addi %o0, %thread_idx : i32
        %src = llvm.getelementptr %shared[0, %o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x i32>
        %v = llvm.load %src : !llvm.ptr<3> -> i32
        // consumer_release()
        mbarrier.arrive %consumed[%s] : !mbarrier.group<2>
        %v2 = arith.muli %v, %i2 : i32
        %gb = arith.muli %b, %i64 : i32
        %g = arith.addi %gb, %elem : i32
        %dst = llvm.getelementptr %global_out[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v2, %dst : i32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
}
