// Class 5, with the parity computed inside the loop: a value is the same in
// every trip when it is defined outside the loop, or computed in it by ops
// without side effects from such values (not from the induction variable or
// an iter_arg). The pipe lowering computes its parity this way (stage =
// count mod D, parity = (count div D) & 1), so a state that a loop does not
// carry waits on the same barrier and parity every trip (repro s2i, s1a).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// s2i: the parity is `0 & 1`, computed in the loop.
gpu.module @parity_computed_in_the_loop {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    scf.for %k = %c0 to %n step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      %ph = arith.andi %zero, %one : i32
      // expected-error @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance by an odd number per trip}}
      mbarrier.wait %g[%c0], %ph : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// The correct twin: the parity is carried and flipped every trip.
gpu.module @parity_carried {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    %last = scf.for %k = %c0 to %n step %c1 iter_args(%ph = %zero) -> i32 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %ph : !mbarrier.group<1>
      %flip = arith.xori %ph, %one : i32
      scf.yield %flip : i32
    }
    gpu.return
  }
}

// -----

// A parity computed from the induction variable changes every trip: silent.
gpu.module @parity_of_the_induction_variable {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    scf.for %k = %c0 to %n step %c1 {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      %i = arith.index_cast %k : index to i32
      %ph = arith.andi %i, %one : i32
      mbarrier.wait %g[%c0], %ph : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// s1a as mbarrier-lower-pipes lowers it: the producer's state (a count of
// 0) is taken in the loop but not carried, so every trip computes stage 0
// and parity 0 from it and waits on the same empty barrier. The consumer's
// releases arrive in another loop: a warning.
gpu.module @pipe_state_not_carried {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %prod = arith.cmpi eq, %tid, %c0 : index
    %cons = arith.cmpi eq, %tid, %c32 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %prod {
      mbarrier.init %g[%c0], %one : !mbarrier.group<4>
      mbarrier.init %g[%c1], %one : !mbarrier.group<4>
      %c3 = arith.constant 3 : index
      mbarrier.init %g[%c2], %one : !mbarrier.group<4>
      mbarrier.init %g[%c3], %one : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %prod {
      %count = arith.constant 0 : i32
      scf.for %i = %c0 to %n step %c1 {
        %stage = arith.remui %count, %two : i32
        %round = arith.divui %count, %two : i32
        %ph = arith.andi %round, %one : i32
        %s = arith.index_cast %stage : i32 to index
        %empty = arith.addi %s, %c2 : index
        // expected-warning @+1 {{waits on the same barrier and parity in every trip of the loop, but the barrier's phases advance while the loop runs}}
        mbarrier.wait %g[%empty], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        mbarrier.arrive %g[%s] : !mbarrier.group<4>
      }
    }
    scf.if %cons {
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%count = %zero) -> i32 {
        %stage = arith.remui %count, %two : i32
        %round = arith.divui %count, %two : i32
        %ph = arith.andi %round, %one : i32
        %s = arith.index_cast %stage : i32 to index
        mbarrier.wait %g[%s], %ph : !mbarrier.group<4>
        %empty = arith.addi %s, %c2 : index
        mbarrier.arrive %g[%empty] : !mbarrier.group<4>
        %next = arith.addi %count, %one : i32
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}
