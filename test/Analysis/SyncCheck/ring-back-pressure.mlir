// Class 5, for a ring: a producer loop that arrives on the stages of a
// multi-stage ring every trip and never waits (no wait on the stages' empty
// barriers) can lap the consumers and reuse a stage they have not released,
// once it takes more trips than the ring has stages. A warning (a run-time
// trip count may stay within the ring).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A 2-stage ring (full barriers 0-1, empty 2-3): the producer never waits
// on the empty barriers.
gpu.module @producer_never_waits {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %producer = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi eq, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %producer {
      mbarrier.init %g[%c0], %one : !mbarrier.group<4>
      mbarrier.init %g[%c1], %one : !mbarrier.group<4>
      mbarrier.init %g[%c2], %one : !mbarrier.group<4>
      mbarrier.init %g[%c3], %one : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %zero to %n step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %s = arith.index_cast %stage : i32 to index
        // expected-warning @+1 {{arrives on the stages of a ring in every trip of a loop that never waits, and the loop can take more trips than the ring has stages: nothing keeps it from lapping the threads that wait on these barriers and reusing a stage they have not released (wait on the stage's empty barrier before reusing it)}}
        mbarrier.arrive %g[%s] : !mbarrier.group<4>
      }
    }
    scf.if %consumer {
      scf.for %i = %zero to %n step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %ph = arith.andi %round, %one : i32
        %s = arith.index_cast %stage : i32 to index
        mbarrier.wait %g[%s], %ph : !mbarrier.group<4>
        %e = arith.addi %s, %c2 : index
        mbarrier.arrive %g[%e] : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: the producer waits on the stage's empty barrier
// (phase_offset 1: the first round passes on a fresh barrier).
gpu.module @producer_waits_on_empty {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %producer = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi eq, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %producer {
      mbarrier.init %g[%c0], %one : !mbarrier.group<4>
      mbarrier.init %g[%c1], %one : !mbarrier.group<4>
      mbarrier.init %g[%c2], %one : !mbarrier.group<4>
      mbarrier.init %g[%c3], %one : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %zero to %n step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %ph = arith.andi %round, %one : i32
        %s = arith.index_cast %stage : i32 to index
        %e = arith.addi %s, %c2 : index
        mbarrier.wait %g[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        mbarrier.arrive %g[%s] : !mbarrier.group<4>
      }
    }
    scf.if %consumer {
      scf.for %i = %zero to %n step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %ph = arith.andi %round, %one : i32
        %s = arith.index_cast %stage : i32 to index
        mbarrier.wait %g[%s], %ph : !mbarrier.group<4>
        %e = arith.addi %s, %c2 : index
        mbarrier.arrive %g[%e] : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}

// -----

// A loop of as many trips as the ring has stages, arriving on each stage
// once: it cannot lap. Silent.
gpu.module @one_arrival_per_stage {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %producer = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi eq, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %producer {
      mbarrier.init %g[%c0], %one : !mbarrier.group<4>
      mbarrier.init %g[%c1], %one : !mbarrier.group<4>
      mbarrier.init %g[%c2], %one : !mbarrier.group<4>
      mbarrier.init %g[%c3], %one : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %zero to %two step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %s = arith.index_cast %stage : i32 to index
        mbarrier.arrive %g[%s] : !mbarrier.group<4>
      }
    }
    scf.if %consumer {
      scf.for %i = %zero to %two step %one : i32 {
        %stage = arith.remui %i, %two : i32
        %s = arith.index_cast %stage : i32 to index
        mbarrier.wait %g[%s], %zero : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}
