// Class 5: parity misuse. A wait in a loop whose barrier and parity stay the
// same in every trip while the barrier's phases advance: from the second
// trip on, try_wait.parity sees the phase with that parity as completed and
// returns at once (tile-ai/tilelang#3087: the stage is overwritten, wrong
// results at >= 3 stages).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// One phase per trip, and every trip waits for parity 0.
gpu.module @constant_parity {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %n step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      // expected-error @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance by an odd number per trip: from the second trip on the wait can return at once, for a phase that completed earlier (carry the parity in an iter_arg and flip it each phase)}}
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// The consumer loop waits for a parity fixed before the loop while the
// producer loop completes a phase every trip; and nothing holds the producer
// back, so it can also run phases ahead of the consumer (triton#10669).
gpu.module @parity_fixed_before_the_loop {
  gpu.func @k(%n: index, %start: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %full[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %c0 to %n step %c1 {
        // expected-warning @+1 {{arrives on the barrier in every trip of a loop that never waits: nothing keeps it from running two or more phases ahead of the threads that wait on the barrier, whose parity then aliases (give the loop a back-pressure barrier to wait on)}}
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
      }
    } else {
      scf.for %i = %c0 to %n step %c1 {
        // expected-warning @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance while the loop runs: from the second trip on the wait can return at once, for a phase that completed earlier (carry the parity in an iter_arg and flip it each phase)}}
        mbarrier.wait %full[%c0], %start : !mbarrier.group<1>
      }
    }
    gpu.return
  }
}

// -----

// Correct: the parity is carried and flipped each trip; two phases per trip
// with a fixed parity also repeat exactly.
gpu.module @carried_parity {
  gpu.func @flipped(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
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
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      nvvm.barrier0
      %next = arith.xori %phase, %one : i32
      scf.yield %next : i32
    }
    gpu.return
  }
  gpu.func @two_phases_per_trip(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
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
    scf.for %i = %c0 to %n step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      nvvm.barrier0
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %one : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// Correct: a producer/consumer ring with back-pressure: the producer waits
// on `empty` before each `full` arrival, the consumer flips its parity.
gpu.module @back_pressure {
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
    %producer = arith.cmpi eq, %warp, %zero : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %full[%c0], %c32 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %producer {
      %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
        mbarrier.wait %empty[%c0], %phase {phase_offset = 1 : i32} : !mbarrier.group<1>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
        %next = arith.xori %phase, %one : i32
        scf.yield %next : i32
      }
    } else {
      %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
        mbarrier.wait %full[%c0], %phase : !mbarrier.group<1>
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %next = arith.xori %phase, %one : i32
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}
