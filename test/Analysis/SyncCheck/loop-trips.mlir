// Loops whose trips depend on the thread: `for i = tid to 64 step 128` is
// run once by threads 0..63 and never by 64..127, so the executing set of
// its body is not the enclosing one (the reproducer: the barrier
// ops of a kernel in such a strided loop). Where a
// loop's bounds (scf.for) or its condition (scf.while) may differ between
// threads, nothing in its body is counted; a loop with uniform bounds (a
// kernel parameter) is counted per trip as before.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct (s2c): 64 threads arrive once on a count-64 barrier, through a
// loop strided by the block size.
gpu.module @strided_loop {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %n = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %n : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %tid to %c64 step %c128 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: the same with an scf.while over `i = tid; i < 64; i += 128`.
gpu.module @while_on_the_thread {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %n = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %n : !mbarrier.group<1>
    }
    nvvm.barrier0
    %end = scf.while (%i = %tid) : (index) -> index {
      %more = arith.cmpi ult, %i, %c64 : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%j: index):
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      %next = arith.addi %j, %c128 : index
      scf.yield %next : index
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: the trip count comes from a value loaded by each thread (a
// per-thread work list): the trips may differ, nothing is counted.
gpu.module @loaded_bound {
  gpu.func @k(%work: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %n = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %t = arith.index_cast %tid : index to i32
    %slot = llvm.getelementptr %work[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %mine = llvm.load %slot : !llvm.ptr<1> -> i32
    %trips = arith.index_cast %mine : i32 to index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %n : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %trips step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Buggy: a loop whose bounds are the same for every thread (a kernel
// parameter) is still counted: all 128 threads arrive in each trip on a
// count-64 barrier.
gpu.module @uniform_loop_over_arrives {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
      // expected-error @+1 {{arrives 128 times on a barrier initialized with arrival count 64}}
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      %next = arith.xori %phase, %one : i32
      scf.yield %next : i32
    }
    gpu.return
  }
}
