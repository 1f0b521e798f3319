// Class 3 in a loop whose trip count is loaded from memory (CUTLASS's
// grouped / ptr-array GEMM: the k-tiles of the work tile's group, read from
// its problem shape in device memory by every thread). The executing set of
// the loop body is unknown, but where every thread loads from the same
// address its threads run the same trips (SPMDModel::mayExecSet): one
// release by the leader of each of two warp groups brings two arrivals.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The empty barrier counts both warp groups' releases. Silent.
gpu.module @m {
  gpu.func @two_consumers(%problem_k: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %empty[%c0], %i2 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %k_tiles = llvm.load %problem_k : !llvm.ptr<1> -> i32
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      mbarrier.arrive %empty[%c0] if %leader : !mbarrier.group<1>
      %ph = arith.andi %k, %i1 : i32
      mbarrier.wait %empty[%c0], %ph : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// The pipe typed with one consumer while both warp groups release: a
// warning (the trips are the same only where the memory says so).
gpu.module @m {
  gpu.func @one_consumer(%problem_k: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %k_tiles = llvm.load %problem_k : !llvm.ptr<1> -> i32
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      // expected-warning @+1 {{arrives 2 times on a barrier initialized with arrival count 1 where the threads that reach its loop run the same trips (its trip count is loaded from memory at an address that does not differ between them): they complete the phase and arrive again on the next one, so the phase completes before the last of them has arrived (more arrivals per phase than the count)}}
      mbarrier.arrive %empty[%c0] if %leader : !mbarrier.group<1>
      %ph = arith.andi %k, %i1 : i32
      mbarrier.wait %empty[%c0], %ph : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// Each thread loads its own trip count (an address of the thread id): the
// threads may run different trips, and nothing is claimed. Silent.
gpu.module @m {
  gpu.func @own_trip_counts(%problem_k: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %kp = llvm.getelementptr %problem_k[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %k_tiles = llvm.load %kp : !llvm.ptr<1> -> i32
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      mbarrier.arrive %empty[%c0] if %leader : !mbarrier.group<1>
      %ph = arith.andi %k, %i1 : i32
      mbarrier.wait %empty[%c0], %ph : !mbarrier.group<1>
    }
    gpu.return
  }
}
