// Class 5 needs a second trip that sees the first trip's phase: a loop of
// one trip has none (the reproducer: an arrive and a wait on parity 0 in an
// scf.for of one trip), and a barrier
// initialized again in every trip (Triton's per-trip TMA barrier: init,
// arrive_expect_tx + copy, wait(parity 0), inval) starts each trip at
// phase 0, so parity 0 is the right parity in every trip.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct (s2h): one trip, one phase, parity 0.
gpu.module @one_trip {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    scf.for %k = %c0 to %c1 step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// Buggy twin: two trips; the second waits for parity 0 again, which the
// first trip's phase already completed.
gpu.module @two_trips {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    scf.for %k = %c0 to %c2 step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      // expected-error @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance by an odd number per trip}}
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// Correct: Triton's per-trip lowering of a TMA load. Thread 0 initializes
// the barrier, a CTA barrier publishes the init, thread 0 posts the bytes
// and starts the copy, everyone waits for parity 0, and thread 0
// invalidates the barrier after a second CTA barrier.
gpu.module @triton_per_trip_barrier {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %d = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.for %k = %c0 to %n step %c1 {
      scf.if %leader {
        mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      }
      nvvm.barrier0
      scf.if %leader {
        mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
        %bp = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
      }
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      nvvm.barrier0
      scf.if %leader {
        mbarrier.inval %g[%c0] : !mbarrier.group<1>
      }
    }
    gpu.return
  }
}

// -----

// Buggy twin: the same loop with the init and the inval hoisted out of it;
// the barrier's phases now carry from trip to trip and parity 0 is stale
// from the second trip on.
gpu.module @hoisted_init {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %d = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %k = %c0 to %n step %c1 {
      scf.if %leader {
        mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
        %bp = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
      }
      // expected-error @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance by an odd number per trip}}
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      nvvm.barrier0
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
    }
    gpu.return
  }
}
