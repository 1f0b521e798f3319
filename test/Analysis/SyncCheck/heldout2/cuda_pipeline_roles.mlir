// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cuda_pipeline_roles(
// Follows the CUDA C++ Programming Guide, "Asynchronous Data Copies using
// cuda::pipeline" -> "Pipeline Interface" with partitioned producer and
// consumer roles (with_specialized_staging_unified: thread_role = even thread
// rank ? producer : consumer; thread_idx = block.thread_rank() / 2;
// cuda::make_pipeline(block, &shared_state, thread_role) with
// pipeline_shared_state<thread_scope_block, stages_count = 2>; the producer
// producer_acquire() / memcpy_async of one int / producer_commit(), the
// consumer consumer_wait() / compute / consumer_release()) with libcudacxx's
// <cuda/pipeline> for thread_scope_block, which keeps two mbarriers per stage:
// produced[s] counting the producers, consumed[s] counting the consumers
// (thread 0 initializes them in make_pipeline, then block.sync()).
// producer_acquire waits for consumed[s] one phase behind (the first lap
// passes); a one-int memcpy_async is a plain copy made before the commit.
// 128 threads: 64 producers (even), 64 consumers (odd), in the same warps.
// %batch_sz batches (a parameter).
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
        mbarrier.wait %consumed[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
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
