// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of ptx_isa_test_wait_loop.mlir (same public source: the PTX ISA,
// mbarrier.test_wait / try_wait producer-consumer example).
// BUG: the full barrier is initialized with the block's 64 threads
// (init(bar, blockDim.x), as for a barrier every thread arrives on), but only
// the producer warp's 32 threads arrive: phase 0 never completes and the
// consumer's test_wait loop spins forever. A diagnostic on that test_wait
// (BUG-ALT) is accepted.
// Every launch fails (a hang in the first round; rounds >= 1).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @data() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i32>
  gpu.func @ptx_isa_test_wait_loop(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %rounds: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %true = arith.constant true
    %sleep = arith.constant 20 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      %i64 = arith.constant 64 : i32
      mbarrier.init %full[%c0], %i64 : !mbarrier.group<1> // BUG
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<1>
    }
    gpu.barrier
    %data = llvm.mlir.addressof @data : !llvm.ptr<3>
    %slot = llvm.getelementptr %data[0, %lane] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x i32>
    %is_producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        %ph = arith.andi %r, %i1 : i32
        mbarrier.wait %empty[%c0], %ph {phase_offset = 1 : i32} : !mbarrier.group<1>
        %g0 = arith.muli %r, %i32 : i32
        %g = arith.addi %g0, %lane : i32
        %src = llvm.getelementptr %in[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %v = llvm.load %src : !llvm.ptr<1> -> i32
        llvm.store %v, %slot : i32, !llvm.ptr<3>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
      }
    } else {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        %ph = arith.andi %r, %i1 : i32
        // waitLoop: test_wait, nanosleep while the phase is still pending.
        scf.while : () -> () {
          %done = mbarrier.test_wait %full[%c0], %ph : !mbarrier.group<1> // BUG-ALT
          %pending = arith.xori %done, %true : i1
          scf.condition(%pending)
        } do {
          nvvm.nanosleep %sleep
          scf.yield
        }
        %v = llvm.load %slot : !llvm.ptr<3> -> i32
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %g0 = arith.muli %r, %i32 : i32
        %g = arith.addi %g0, %lane : i32
        %dst = llvm.getelementptr %out[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %dst : i32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
}
