// Correct-kernel corpus (issue 20): the CUDA C++ Programming Guide's split
// arrive/wait with a block-scoped cuda::barrier: the arrival count is the
// block's size, read from blockDim (block.size()), thread 0 by its linear
// rank in a 2-D block; every thread arrives, computes, and waits for the
// phase by polling (the sm_80 path of cuda::barrier::wait_parity: a
// test_wait loop with back-off). The checker must say nothing about it.
//
// Source: the CUDA C++ Programming Guide, "Asynchronous Barrier",
// split_arrive_wait (`if (block.thread_rank() == 0) init(&bar,
// block.size()); block.sync(); for (...) { token = bar.arrive();
// compute(data, i); bar.wait(std::move(token)); }`), and NVIDIA/cccl,
// libcudacxx/include/cuda/__barrier/barrier_block_scope.h
// (barrier<thread_scope_block>: init = mbarrier_init(count), arrive =
// mbarrier_arrive, wait_parity -> __try_wait_parity_sm80 =
// mbarrier_test_wait_parity polled by __cccl_thread_poll_with_backoff).
// The parity of iteration i's phase is i & 1.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: %ntid.y
// CHECK: mbarrier.test_wait.parity.shared.b64
// CHECK: nanosleep.u32

gpu.module @cuda_barrier_split_arrive_wait {
  gpu.func @k(%data: !llvm.ptr<1>, %iteration_count: index) kernel attributes {known_block_size = array<i32: 32, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %backoff = arith.constant 32 : i32
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %tz = gpu.thread_id z
    %bx = gpu.block_dim x
    %by = gpu.block_dim y
    %bz = gpu.block_dim z
    // block.thread_rank() and block.size()
    %zy = arith.muli %tz, %by : index
    %yz = arith.addi %ty, %zy : index
    %row = arith.muli %yz, %bx : index
    %rank = arith.addi %tx, %row : index
    %bxy = arith.muli %bx, %by : index
    %size = arith.muli %bxy, %bz : index
    %count = arith.index_cast %size : index to i32
    %r32 = arith.index_cast %rank : index to i32
    %first = arith.cmpi eq, %r32, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %first {
      mbarrier.init %bar[%c0], %count : !mbarrier.group<1>
    }
    gpu.barrier
    scf.for %i = %c0 to %iteration_count step %c1 {
      // token = bar.arrive()
      mbarrier.arrive %bar[%c0] : !mbarrier.group<1>
      // compute(data, i)
      %p = llvm.getelementptr %data[%r32] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %w = arith.addf %v, %v : f32
      llvm.store %w, %p : f32, !llvm.ptr<1>
      // bar.wait: poll the phase of parity i & 1
      %i32v = arith.index_cast %i : index to i32
      %parity = arith.andi %i32v, %i1 : i32
      scf.while : () -> () {
        %done = mbarrier.test_wait %bar[%c0], %parity : !mbarrier.group<1>
        %again = arith.xori %done, %true : i1
        scf.condition(%again)
      } do {
        nvvm.nanosleep %backoff
        scf.yield
      }
    }
    gpu.return
  }
}
