// Class 3: each loop trip brings exactly k times the arrival count (k >= 2)
// to a barrier that is waited on once per trip. The arrivals divide evenly,
// but k phases complete per trip while the waiter consumes one: from the
// second trip on its wait is for a phase of an earlier trip (issue 20). An
// error where the loop runs a constant number of trips, at least two; a
// warning where the trip count is known at run time only (one trip is
// correct).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Each of two warps arrives each trip (64 arrivals, by two ops of 32 each,
// neither above the count) on a barrier of count 32: two phases per trip,
// one wait per trip.
gpu.module @two_phases_per_trip_waited_once {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %first = arith.cmpi eq, %warp, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %c8 step %c1 iter_args(%p = %zero) -> (i32) {
      scf.if %first {
        // expected-error @+1 {{each trip of the loop makes 64 arrival(s) on the barrier, 2 times its arrival count 32, but the barrier is waited on once per trip: 2 phases complete per trip, so from the second trip on the wait is for a phase of an earlier trip (more arrivals per phase than the count)}}
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      } else {
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    gpu.return
  }
}

// -----

// The same with a trip count known at run time only: a warning (with one
// trip the kernel is correct).
gpu.module @two_phases_per_trip_unknown_trips {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %first = arith.cmpi eq, %warp, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %zero) -> (i32) {
      scf.if %first {
        // expected-warning @+1 {{each trip of the loop makes 64 arrival(s) on the barrier, 2 times its arrival count 32, but the barrier is waited on once per trip}}
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      } else {
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    gpu.return
  }
}

// -----

// Correct twin: the count is the 64 arrivals of a trip.
gpu.module @one_phase_per_trip {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %c8 step %c1 iter_args(%p = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    gpu.return
  }
}

// -----

// Correct: two phases per trip, each waited (parity 0 then 1 every trip).
gpu.module @two_phases_per_trip_waited_twice {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %first = arith.cmpi eq, %warp, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %c8 step %c1 {
      scf.if %first {
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      nvvm.barrier0
      scf.if %first {
      } else {
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %one : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}
