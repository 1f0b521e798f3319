// Class 12: the wait-for graph across named barriers and mbarriers
// (docs/checker.md). A cycle of warps that wait before they arrive, in
// every schedule, is an error; a phase of arrivals that no bar.sync waits
// for (an arrive where a sync was needed, vllm-project/vllm#26026) a warning.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A ping-pong of two warp groups without the first turn (FA3's mma_init
// arrive left out): each waits for the other's arrive, which comes after
// the other's wait.
mbarrier.named_barrier @turn0 id 9
mbarrier.named_barrier @turn1 id 10
func.func @pingpong_without_first_turn() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %wg0 {
      // expected-error @+1 {{deadlock: a cycle in the wait-for graph: warps 0-3 wait here on named barrier @turn0 (id 9) for warps 4-7, which wait on named barrier @turn1 (id 10) for the first ones, before arriving on it}}
      mbarrier.bar_sync @turn0 threads 256
      mbarrier.bar_arrive @turn1 threads 256
    } else {
      // expected-note @+1 {{warps 4-7 wait here}}
      mbarrier.bar_sync @turn1 threads 256
      mbarrier.bar_arrive @turn0 threads 256
    }
  }
  return
}

// -----

// The same cycle through an mbarrier: warp group 1 waits on an mbarrier
// that warp group 0 arrives on only after its bar.sync, which needs warp
// group 1's arrival after the wait.
mbarrier.named_barrier @turn id 4
func.func @cycle_through_an_mbarrier_and_a_named_barrier() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %i0 = arith.constant 0 : i32
  %i128 = arith.constant 128 : i32
  %g = mbarrier.alloc : !mbarrier.group<1>
  %t0 = arith.cmpi eq, %tid, %c0 : index
  scf.if %t0 {
    mbarrier.init %g[%c0], %i128 : !mbarrier.group<1>
  }
  gpu.barrier
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    // expected-error @+1 {{deadlock: a cycle in the wait-for graph: warps 0-3 wait here on named barrier @turn (id 4) for warps 4-7, which wait on an mbarrier for the first ones, before arriving on it}}
    mbarrier.bar_sync @turn threads 256
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
  } else {
    // expected-note @+1 {{warps 4-7 wait here}}
    mbarrier.wait %g[%c0], %i0 : !mbarrier.group<1>
    mbarrier.bar_arrive @turn threads 256
  }
  return
}

// -----

// Warp groups 0 and 1 meet on @a; warp group 1 then syncs on @a again (in
// a loop of one trip, which class 11's balance of syncs does not follow),
// and no warp is left to arrive (enough arrivals in all).
mbarrier.named_barrier @a id 7
func.func @sync_that_no_warp_can_still_reach() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    mbarrier.bar_sync @a threads 256
  } else {
    mbarrier.bar_sync @a threads 256
    scf.for %i = %c0 to %c1 step %c1 {
      // expected-error @+1 {{deadlock: warps 4-7 wait here on named barrier @a (id 7) for 256 threads, but its phase gets 128 and no warp can still arrive on it}}
      mbarrier.bar_sync @a threads 256
    }
  }
  return
}

// -----

// vllm#26026: the consumer arrives where it had to wait (arrive_and_wait):
// the producer's and the consumer's arrivals complete the phase, and
// nobody waits for it.
mbarrier.named_barrier @full id 6
func.func @arrive_where_a_sync_was_needed() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %producer = arith.cmpi ult, %tid, %c128 : index
  scf.if %producer {
    mbarrier.bar_arrive @full threads 256
  } else {
    // expected-warning @+1 {{arrives on named barrier @full (id 6) in a phase that completes with bar.arrive alone: no thread waits for it (an arrive never matched by a sync: was a bar.sync meant here?)}}
    mbarrier.bar_arrive @full threads 256
  }
  return
}

// -----

// A phase left incomplete at the end (the last turn of a ping-pong, handed
// to nobody) is silent.
mbarrier.named_barrier @half id 6
func.func @last_turn_left_incomplete_is_silent() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %producer = arith.cmpi ult, %tid, %c128 : index
  scf.if %producer {
    mbarrier.bar_arrive @half threads 256
  }
  return
}

// -----

// The correct ping-pong (FA3's WarpScheduler): warp group 0 takes the
// first turn, then each syncs on its own id and arrives on the other's.
mbarrier.named_barrier @turn0
mbarrier.named_barrier @turn1
func.func @pingpong_with_first_turn_is_silent() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    mbarrier.bar_arrive @turn0 threads 256
  }
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %wg0 {
      mbarrier.bar_sync @turn0 threads 256
      mbarrier.bar_arrive @turn1 threads 256
    } else {
      mbarrier.bar_sync @turn1 threads 256
      mbarrier.bar_arrive @turn0 threads 256
    }
  }
  return
}
