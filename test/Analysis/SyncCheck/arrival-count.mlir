// Classes 3 and 4: more, or fewer, arrivals per phase than the barrier's
// init count. Over-arrival: triton#9498 (threads tid < 32 arrive on a
// count-1 barrier), deepseek-ai/DeepEP#293 (count 1, the whole warp
// arrives). Under-arrival: NVIDIA/cutlass#2418 (the signalling thread fixed
// to threadIdx 0 with the count of a warp group: warp-specialized kernels
// deadlock), deepseek-ai/DeepGEMM#51 (the empty barrier's count must be
// multicast CTAs x math warps; it hangs otherwise).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The whole warp arrives on a count-1 barrier (DeepEP#293).
gpu.module @warp_on_count_one {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    // expected-error @+1 {{arrives 32 times on a barrier initialized with arrival count 1: the threads that execute it complete the phase and arrive again on the next one (more arrivals per phase than the count)}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Threads tid < 32 of 128 arrive on a count-1 barrier (triton#9498), in a
// 2-CTA cluster: the count is per CTA.
gpu.module @first_warp_on_count_one {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %first_warp = arith.cmpi ult, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first_warp {
      // expected-error @+1 {{arrives 32 times on a barrier of CTA 0 initialized with arrival count 1}}
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// One signalling thread (thread 0) on a barrier that counts one arrival per
// warp (cutlass#2418): phase 0 never completes and every thread hangs.
gpu.module @one_signal_for_four_warps {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %four = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %four : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    // expected-error @+1 {{waits for a phase that never completes: the barrier receives 1 arrival(s) in the whole kernel but is initialized with arrival count 4}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// DeepGEMM#51: the consumers' empty barrier counts 2 math warps x 2
// multicast CTAs, but each trip only this CTA's math warps release it.
gpu.module @empty_count_misses_multicast {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 96, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %four = arith.constant 4 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %lane = arith.remui %t, %c32 : i32
    %lane0 = arith.cmpi eq, %lane, %zero : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %empty[%c0], %four : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %producer {
      %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %one) -> (i32) {
        // expected-warning @+1 {{waits with parity 0 for phase 2 of an mbarrier that no warp can still arrive on}}
        mbarrier.wait %empty[%c0], %phase : !mbarrier.group<1>
        %next = arith.xori %phase, %one : i32
        scf.yield %next : i32
      }
    } else {
      scf.for %i = %c0 to %n step %c1 {
        // expected-warning @+2 {{each trip of the loop makes 2 arrival(s) on the barrier of CTA 0, initialized with arrival count 4: fewer arrivals than the count, so a phase needs several trips (or never completes)}}
        // expected-warning @+1 {{arrives on the barrier in every trip of a loop that never waits}}
        mbarrier.arrive %empty[%c0] if %lane0 : !mbarrier.group<1>
      }
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Three arrivals per trip on a count-2 barrier waited every trip, from one
// arrive (lane 0 of each of three warps): one execution of the op brings
// more arrivals than the count. A warning: a launch of one trip (%n = 1) is
// right, its wait for phase 0 returning once two have come, and the third
// arrival only starts a phase nobody waits for; from the second trip on the
// waits are for phases the extra arrivals complete early (the error where
// every launch runs two trips, next).
gpu.module @loop_over_arrival {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %lane = arith.remui %t, %c32 : i32
    %lane0 = arith.cmpi eq, %lane, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
      // expected-warning @+1 {{arrives 3 times on a barrier initialized with arrival count 2}}
      mbarrier.arrive %g[%c0] if %lane0 : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      nvvm.barrier0
      %next = arith.xori %phase, %one : i32
      scf.yield %next : i32
    }
    gpu.return
  }
}

// -----

// The same in a loop of two trips: every launch waits, in the second trip,
// for phase 1, which the first trip's third arrival has started, so it
// completes before the second trip's arrivals are all made (an error).
gpu.module @loop_over_arrival_two_trips {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %lane = arith.remui %t, %c32 : i32
    %lane0 = arith.cmpi eq, %lane, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
      // expected-error @+1 {{arrives 3 times on a barrier initialized with arrival count 2}}
      mbarrier.arrive %g[%c0] if %lane0 : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      nvvm.barrier0
      %next = arith.xori %phase, %one : i32
      scf.yield %next : i32
    }
    gpu.return
  }
}

// -----

// Three arrivals per trip from three ops of one thread each, on a count-2
// barrier waited once per trip. With a run-time trip count, a launch of one
// trip completes its phase: a warning.
gpu.module @loop_three_ops_run_time {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %p = arith.andi %ii, %one : i32
      scf.if %leader {
        // expected-warning @+1 {{each trip of the loop makes 3 arrival(s) on the barrier, initialized with arrival count 2: more arrivals per phase than the count, so the phases drift from the trips}}
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// The same in a loop of four trips: every launch runs the second trip,
// whose phase completes with its first arrival (the fourth in all), before
// the trip's other two; the leader, which waits after all of them, finds
// the barrier two phases on and waits for one that never completes. An
// error (docs/checker.md, class 3).
gpu.module @loop_three_ops_constant {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %p = arith.andi %ii, %one : i32
      scf.if %leader {
        // expected-error @+1 {{each trip of the loop makes 3 arrival(s) on the barrier, initialized with arrival count 2: more arrivals per phase than the count, so the phases drift from the trips; the barrier is waited on once per trip of a loop of 4 trips, so from the second trip on the wait is for a phase that completes before the trip's arrivals are made}}
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// The correct twin: two arrivals per trip on the count-2 barrier, and a
// CTA barrier after each trip's wait (no thread runs a phase ahead). Silent.
gpu.module @loop_two_ops_constant {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %p = arith.andi %ii, %one : i32
      scf.if %leader {
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
        mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %g[%c0], %p : !mbarrier.group<1>
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// Correct: lane 0 of each of 4 warps arrives with count 32 on a barrier of
// 128; elect.sync picks one thread per warp for a count-4 barrier; every
// CTA of the cluster arrives once on CTA 0's count-2 barrier.
gpu.module @counts_match {
  gpu.func @counted() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %c128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %lane = arith.remui %t, %c32 : i32
    %lane0 = arith.cmpi eq, %lane, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c128 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0], count %c32 if %lane0 : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  gpu.func @elected() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %four = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %four : !mbarrier.group<1>
    }
    nvvm.barrier0
    %elected = nvvm.elect.sync -> i1
    scf.if %elected {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  gpu.func @all_to_one() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %owner = arith.cmpi eq, %rank, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %to0 = mbarrier.remote_view %g, cta_rank 0 : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %to0[%c0] : !mbarrier.remote<1>
    }
    scf.if %owner {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Upstream nvgpu's matmul ring (mbarTMA / mbarDONE), raised: the producer
// waits on the done barriers only from the second lap on (under a condition
// on the trip, an executing set the model does not know), and the 96
// consumer threads arrive on a done barrier of count 128 each trip: a phase
// needs more than one trip. A warning of class 4; the protocol model runs the
// six constant trips and finds the producer's second-lap wait blocked for
// good, with one arrival of each consumer warp in the phase it waits for
// (class 12), an error at the init: the count is more than a phase gets.
gpu.module @done_count_above_the_consumers {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c32 = arith.constant 32 : index
    %i1 = arith.constant 1 : i32
    %count = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %consumer = arith.cmpi uge, %tid, %c32 : index
    %full = mbarrier.alloc : !mbarrier.group<3>
    %done = mbarrier.alloc : !mbarrier.group<3>
    scf.if %leader {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<3>
        // expected-error @+1 {{deadlock: initialized with arrival count 128, but a phase of the barrier gets 96 arrival(s): warps 1-3 arrive on it once each and then wait for warp 0, which wait on it for the phase to complete}}
        mbarrier.init %done[%s], %count : !mbarrier.group<3>
      }
    }
    gpu.barrier
    scf.if %leader {
      scf.for %i = %c0 to %c6 step %c1 {
        %s = arith.remui %i, %c3 : index
        %lap = arith.divui %i, %c3 : index
        %again = arith.cmpi uge, %i, %c3 : index
        scf.if %again {
          %prev = arith.subi %lap, %c1 : index
          %b = arith.index_cast %prev : index to i1
          %p = arith.extui %b : i1 to i32
          // expected-note @+1 {{the wait that never completes}}
          mbarrier.wait %done[%s], %p : !mbarrier.group<3>
        }
        mbarrier.arrive %full[%s] : !mbarrier.group<3>
      }
    }
    scf.if %consumer {
      scf.for %i = %c0 to %c6 step %c1 {
        %s = arith.remui %i, %c3 : index
        %lap = arith.divui %i, %c3 : index
        %b = arith.index_cast %lap : index to i1
        %p = arith.extui %b : i1 to i32
        mbarrier.wait %full[%s], %p : !mbarrier.group<3>
        // The trip's 96 arrivals short of the count are the init's error,
        // not a class 4 warning beside it (one bug, one diagnostic).
        // expected-note @+1 {{an arrival on the barrier}}
        mbarrier.arrive %done[%s] : !mbarrier.group<3>
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: count 96, the consumer threads. Silent.
gpu.module @done_count_of_the_consumers {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c32 = arith.constant 32 : index
    %i1 = arith.constant 1 : i32
    %count = arith.constant 96 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %consumer = arith.cmpi uge, %tid, %c32 : index
    %full = mbarrier.alloc : !mbarrier.group<3>
    %done = mbarrier.alloc : !mbarrier.group<3>
    scf.if %leader {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %done[%s], %count : !mbarrier.group<3>
      }
    }
    gpu.barrier
    scf.if %leader {
      scf.for %i = %c0 to %c6 step %c1 {
        %s = arith.remui %i, %c3 : index
        %lap = arith.divui %i, %c3 : index
        %again = arith.cmpi uge, %i, %c3 : index
        scf.if %again {
          %prev = arith.subi %lap, %c1 : index
          %b = arith.index_cast %prev : index to i1
          %p = arith.extui %b : i1 to i32
          mbarrier.wait %done[%s], %p : !mbarrier.group<3>
        }
        mbarrier.arrive %full[%s] : !mbarrier.group<3>
      }
    }
    scf.if %consumer {
      scf.for %i = %c0 to %c6 step %c1 {
        %s = arith.remui %i, %c3 : index
        %lap = arith.divui %i, %c3 : index
        %b = arith.index_cast %lap : index to i1
        %p = arith.extui %b : i1 to i32
        mbarrier.wait %full[%s], %p : !mbarrier.group<3>
        mbarrier.arrive %done[%s] : !mbarrier.group<3>
      }
    }
    gpu.return
  }
}

// -----

// CUTLASS's cooperative kernel: thread 0 of each of the two math warp groups
// releases a stage (two arrivals per trip), but three of the four empty
// barriers are initialized with count 3: the ring's counts differ, and a
// trip brings fewer arrivals than a count its index may name. A warning.
gpu.module @ring_counts_differ {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 288, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %count = arith.constant 3 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %math = arith.cmpi uge, %t, %i32 : i32
    %m = arith.subi %t, %i32 : i32
    %wl = arith.remui %m, %i128 : i32
    %wg_leader = arith.cmpi eq, %wl, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %count : !mbarrier.group<4>
      }
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
      mbarrier.init %empty[%c3], %i2 : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i4 : i32
        %stage = arith.index_cast %s : i32 to index
        %lap = arith.divui %i, %i4 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%stage], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        mbarrier.arrive %full[%stage] : !mbarrier.group<4>
      }
    }
    scf.if %math {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i4 : i32
        %stage = arith.index_cast %s : i32 to index
        %lap = arith.divui %i, %i4 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%stage], %ph : !mbarrier.group<4>
        scf.if %wg_leader {
          // expected-warning @+1 {{each trip of the loop makes 2 arrival(s) on a barrier of the group, some of whose barriers it may name are initialized with arrival count 3: fewer arrivals than the count}}
          mbarrier.arrive %empty[%stage] : !mbarrier.group<4>
        }
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: count 2 on every stage. Silent.
gpu.module @ring_counts_agree {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 288, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %count = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %math = arith.cmpi uge, %t, %i32 : i32
    %m = arith.subi %t, %i32 : i32
    %wl = arith.remui %m, %i128 : i32
    %wg_leader = arith.cmpi eq, %wl, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %count : !mbarrier.group<4>
      }
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
      mbarrier.init %empty[%c3], %i2 : !mbarrier.group<4>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i4 : i32
        %stage = arith.index_cast %s : i32 to index
        %lap = arith.divui %i, %i4 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%stage], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        mbarrier.arrive %full[%stage] : !mbarrier.group<4>
      }
    }
    scf.if %math {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i4 : i32
        %stage = arith.index_cast %s : i32 to index
        %lap = arith.divui %i, %i4 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%stage], %ph : !mbarrier.group<4>
        scf.if %wg_leader {
          mbarrier.arrive %empty[%stage] : !mbarrier.group<4>
        }
      }
    }
    gpu.return
  }
}
