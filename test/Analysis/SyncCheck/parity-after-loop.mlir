// Class 5: a wait after a loop of a constant trip count that completes an odd
// number of phases, with the parity the barrier had before the loop. The
// phase the wait is for has the other parity: it returns for a phase that
// completed in the loop, or (once that phase has completed too) waits for
// one that never does. An error: every launch of the declared shape runs the
// same trips (issue 20).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Three trips, one phase each (32 arrivals, count 32), then one more phase
// waited with parity 0, the parity of before the loop: phase 3 has parity 1.
gpu.module @wait_after_odd_loop_keeps_the_old_parity {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    // expected-error @+1 {{waits with parity 0 after a loop of 3 trip(s) that completes 3 phase(s) of the barrier, an odd number: the phase this wait is for has parity 1, so it returns for a phase that completed in the loop (or, once that phase has completed, waits for one that never does); flip the parity once per phase the loop completes}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct twin: the wait after the loop takes the parity the loop carried
// out (phase 3, parity 1).
gpu.module @wait_after_odd_loop_with_the_carried_parity {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %one : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: an even number of phases in the loop (two trips) leaves the
// parity of before.
gpu.module @wait_after_even_loop_keeps_the_old_parity {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %c2 step %c1 iter_args(%p = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// A trip count known at run time only (a parameter): the counting's
// after-loop rule does not decide the parity, but the protocol model runs
// the sampled trip counts: after an odd one the straight-line wait is for a
// phase that no arrival starts (class 12, a warning: even trip counts are
// right).
gpu.module @wait_after_loop_of_unknown_trips {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      %q = arith.xori %p, %one : i32
      scf.yield %q : i32
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    // expected-warning @+1 {{waits with parity 0 for phase 2 of an mbarrier that no warp can still arrive on}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
