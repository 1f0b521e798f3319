// Class 5 in warp-specialized code (issue 30, item 4): a producer warp and a
// consumer warp hand stages over through full and empty barriers.
// - The wait after the loops keeps the parity of before the loop while the
//   producer's loop of three trips completes three phases: an error, also
//   where the consumer's own loop waits on the barrier every trip.
// - A startup deadlock: the producer's first wait on a fresh empty barrier
//   with parity 0 (without the phase offset of a barrier that starts
//   released) waits for a phase that only the consumer's arrivals complete,
//   and the consumer arrives only after its wait on the full barrier, which
//   only the producer's arrivals after that wait complete: an error.
// - A producer throttled only by a named barrier (FA3's Q hand-off: the
//   producer's bar.sync on QueryEmpty, the consumers' bar.arrive) waits every
//   trip: no "loop that never waits" warning.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Three trips, one phase of `full` each, then one more phase that the
// consumer waits for with parity 0 after its own loop: phase 3 has parity 1.
gpu.module @after_loop_consumer_loop_waits {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
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
      %p = scf.for %i = %c0 to %c3 step %c1 iter_args(%e = %one) -> (i32) {
        mbarrier.wait %empty[%c0], %e : !mbarrier.group<1>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
        %f = arith.xori %e, %one : i32
        scf.yield %f : i32
      }
      mbarrier.wait %empty[%c0], %p : !mbarrier.group<1>
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      %p = scf.for %i = %c0 to %c3 step %c1 iter_args(%f = %zero) -> (i32) {
        mbarrier.wait %full[%c0], %f : !mbarrier.group<1>
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %e = arith.xori %f, %one : i32
        scf.yield %e : i32
      }
      // expected-error @+1 {{waits with parity 0 after a loop of 3 trip(s) that completes 3 phase(s) of the barrier, an odd number: the phase this wait is for has parity 1}}
      mbarrier.wait %full[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// The correct twin: the consumer waits with the parity its loop carried out.
gpu.module @after_loop_consumer_carried_parity {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
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
      %p = scf.for %i = %c0 to %c3 step %c1 iter_args(%e = %one) -> (i32) {
        mbarrier.wait %empty[%c0], %e : !mbarrier.group<1>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
        %f = arith.xori %e, %one : i32
        scf.yield %f : i32
      }
      mbarrier.wait %empty[%c0], %p : !mbarrier.group<1>
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      %p = scf.for %i = %c0 to %c3 step %c1 iter_args(%f = %zero) -> (i32) {
        mbarrier.wait %full[%c0], %f : !mbarrier.group<1>
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %e = arith.xori %f, %one : i32
        scf.yield %e : i32
      }
      mbarrier.wait %full[%c0], %p : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// A ring of two stages; the producer's wait on `empty` takes the round's
// parity, (i / 2) & 1, without the phase offset: 0 in the first round, the
// parity of the fresh barrier's pending phase 0. A run-time trip count (at
// least one trip in every launch).
gpu.module @startup_deadlock_no_phase_offset {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        // expected-error @+2 {{waits for phase 0 of a fresh barrier in the first trip (parity 0), and every arrival on it comes after another first-trip wait for phase 0, on a barrier whose every arrival comes after this wait: neither phase can complete, and every launch deadlocks at start-up (the barrier that starts released, the empty barrier of a ring, is waited on with the producer's phase offset: parity 1 in the first round, phase_offset=1 in lang)}}
        // expected-note @+10 {{the other wait of the hand-off}}
        mbarrier.wait %empty[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    } else {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: the empty barriers start released (phase_offset = 1,
// lang's MBarrier(..., phase_offset=1)): the producer's first round passes.
gpu.module @startup_with_phase_offset {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    } else {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// Correct too: the consumer releases every stage once before its loop (the
// other way to start the empty barriers released), so the parity-0 wait of
// the first round passes. Silent.
gpu.module @startup_consumer_prearrives {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 iter_args(%e = %i0) -> (i32) : i32 {
        mbarrier.wait %empty[%c0], %e : !mbarrier.group<1>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
        %f = arith.xori %e, %i1 : i32
        scf.yield %f : i32
      }
    } else {
      mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
      scf.for %i = %i0 to %n step %i1 iter_args(%f = %i0) -> (i32) : i32 {
        mbarrier.wait %full[%c0], %f : !mbarrier.group<1>
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %e = arith.xori %f, %i1 : i32
        scf.yield %e : i32
      }
    }
    gpu.return
  }
}

// -----

// FA3's Q hand-off (hopper/flash_fwd_kernel.h, mainloop load: the producer
// waits on NamedBarrier QueryEmpty, sync(NumMmaThreads + NumProducerThreads),
// before loading the next tile's Q; the consumers arrive on it once they are
// done with Q): the producer's loop arrives on barrier_Q every tile and has
// no mbarrier wait, only the named barrier. Silent.
gpu.module @fa3_query_handoff {
  mbarrier.named_barrier @query_empty
  gpu.func @k(%tiles: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %producer = arith.cmpi ult, %t, %i32 : i32
    %q = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %q[%c0], %i1 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %tile = %i0 to %tiles step %i1 : i32 {
        mbarrier.bar_sync @query_empty threads 160
        scf.if %leader {
          mbarrier.arrive %q[%c0] : !mbarrier.group<1>
        }
      }
    } else {
      mbarrier.bar_arrive @query_empty threads 160
      scf.for %tile = %i0 to %tiles step %i1 iter_args(%p = %i0) -> (i32) : i32 {
        mbarrier.wait %q[%c0], %p : !mbarrier.group<1>
        mbarrier.bar_arrive @query_empty threads 160
        %next = arith.xori %p, %i1 : i32
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}

// -----

// Its buggy twin: the producer has no bar.sync, nothing throttles it.
gpu.module @query_handoff_without_throttle {
  gpu.func @k(%tiles: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %producer = arith.cmpi ult, %t, %i32 : i32
    %q = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %q[%c0], %i1 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %tile = %i0 to %tiles step %i1 : i32 {
        scf.if %leader {
          // expected-warning @+1 {{arrives on the barrier in every trip of a loop that never waits}}
          mbarrier.arrive %q[%c0] : !mbarrier.group<1>
        }
      }
    } else {
      scf.for %tile = %i0 to %tiles step %i1 iter_args(%p = %i0) -> (i32) : i32 {
        // expected-warning @+1 {{waits with parity 1 for phase 3 of an mbarrier that no warp can still arrive on}}
        mbarrier.wait %q[%c0], %p : !mbarrier.group<1>
        %next = arith.xori %p, %i1 : i32
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}

// -----

// DeepGEMM's persistent shape: the ring initialized in a loop of its own,
// a tile loop (scf.while from blockIdx.x) around the k-block loops, the
// trip counter carried across tiles; the producer's empty wait takes the
// lap's parity without the phase offset. Its first wait, in the first tile
// of every CTA that has one, waits for phase 0 of a fresh barrier: an
// error.
gpu.module @startup_deadlock_persistent {
  gpu.func @k(%tiles: i32, %kb: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %grid = nvvm.read.ptx.sreg.nctaid.x : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<2>
      }
    }
    nvvm.barrier0
    scf.if %producer {
      %fin:2 = scf.while (%tile = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %tiles : i32
        scf.condition(%more) %tile, %it0 : i32, i32
      } do {
      ^bb0(%tile: i32, %it0: i32):
        %itn = scf.for %k = %i0 to %kb step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s = arith.remui %it, %i2 : i32
          %stage = arith.index_cast %s : i32 to index
          %round = arith.divui %it, %i2 : i32
          %parity = arith.andi %round, %i1 : i32
          // expected-error @+2 {{waits for phase 0 of a fresh barrier in the first trip (parity 0)}}
          // expected-note @+20 {{the other wait of the hand-off}}
          mbarrier.wait %empty[%stage], %parity : !mbarrier.group<2>
          mbarrier.arrive %full[%stage] : !mbarrier.group<2>
          %next = arith.addi %it, %i1 : i32
          scf.yield %next : i32
        }
        %nt = arith.addi %tile, %grid : i32
        scf.yield %nt, %itn : i32, i32
      }
    } else {
      %fin:2 = scf.while (%tile = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %tiles : i32
        scf.condition(%more) %tile, %it0 : i32, i32
      } do {
      ^bb0(%tile: i32, %it0: i32):
        %itn = scf.for %k = %i0 to %kb step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s = arith.remui %it, %i2 : i32
          %stage = arith.index_cast %s : i32 to index
          %round = arith.divui %it, %i2 : i32
          %parity = arith.andi %round, %i1 : i32
          mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
          mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
          %next = arith.addi %it, %i1 : i32
          scf.yield %next : i32
        }
        %nt = arith.addi %tile, %grid : i32
        scf.yield %nt, %itn : i32, i32
      }
    }
    gpu.return
  }
}

// -----

// ThunderKittens' consumer (prototype/lcf: the input slot's phase bit
// flipped once per lap) with the flip forgotten: parity 0 on a ring of
// three stages in every trip. From the second lap on, a stage's wait
// returns for the lap before. A warning (the load may have landed).
gpu.module @ring_constant_parity {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %producer = arith.cmpi eq, %warp, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<3>
    %empty = mbarrier.alloc : !mbarrier.group<3>
    scf.if %leader {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<3>
        mbarrier.init %empty[%s], %i32 : !mbarrier.group<3>
      }
    }
    nvvm.barrier0
    scf.if %producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i3 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i3 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<3>
        mbarrier.arrive %full[%stage] : !mbarrier.group<3>
      }
    } else {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i3 : i32
        %stage = arith.index_cast %s : i32 to index
        // expected-warning @+1 {{waits on the stages of a ring of 3 with the same parity in every trip of a loop that can take more trips than the ring has stages: each stage's barrier completes a phase per lap, so from the second lap on the wait returns at once, for the phase of the lap before (flip the parity once per lap: (trip / stages) & 1)}}
        mbarrier.wait %full[%stage], %i0 : !mbarrier.group<3>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<3>
      }
    }
    gpu.return
  }
}
