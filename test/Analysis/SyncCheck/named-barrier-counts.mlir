// Class 11: named-barrier ids and thread counts (docs/checker.md). A
// bar.sync that waits for more threads than ever use its id is an error
// (every launch hangs); one id with two counts used by groups that share no
// warp (the id of two roles, flashinfer-ai/flashinfer#4533) a warning.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

mbarrier.named_barrier @b id 3
// A warp group syncs for 256 threads, and only its own 128 use id 3.
func.func @sync_count_above_the_threads_that_reach_it() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    // expected-error @+1 {{waits on named barrier @b (id 3) for 256 threads, but only 128 arrivals (warps 0-3) ever arrive on it: the barrier never completes}}
    mbarrier.bar_sync @b threads 256
  }
  return
}

// -----

// The same through upstream nvvm.barrier, whose id and count are values.
func.func @upstream_sync_count_above_the_threads_that_reach_it() attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c64 = arith.constant 64 : index
  %id = arith.constant 5 : i32
  %n = arith.constant 128 : i32
  %w01 = arith.cmpi ult, %tid, %c64 : index
  scf.if %w01 {
    // expected-error @+1 {{waits on named barrier id 5 for 128 threads, but only 64 arrivals (warps 0-1) ever arrive on it}}
    nvvm.barrier id = %id number_of_threads = %n
  }
  return
}

// -----

// flashinfer#4533: one id for two roles. Warp group 0 meets on @shared
// with 128 threads while warp groups 1 and 2 hand off on it with 256.
mbarrier.named_barrier @shared id 2
func.func @one_id_two_roles() attributes {known_block_size = array<i32: 384, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %wg0 = arith.cmpi ult, %tid, %c128 : index
  scf.if %wg0 {
    // expected-note @+1 {{the other group's use of the id}}
    mbarrier.bar_sync @shared threads 128
  } else {
    // expected-warning @+1 {{uses named barrier @shared (id 2) with 256 threads (warps 4-11), which warps 0-3 use with 128 threads: one id for two groups that share no warp, whose arrivals count toward each other's phases (give each role its own named barrier)}}
    mbarrier.bar_sync @shared threads 256
  }
  return
}

// -----

// Two counts on one id by overlapping groups, one after the other (FA3's
// epilogue: 256 math threads sync, then 288 = them + one warp): silent.
mbarrier.named_barrier @epilogue id 1
func.func @two_counts_in_order_by_overlapping_groups() attributes {known_block_size = array<i32: 384, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %c352 = arith.constant 352 : index
  %math = arith.cmpi uge, %tid, %c128 : index
  scf.if %math {
    mbarrier.bar_sync @epilogue threads 256
    mbarrier.bar_arrive @epilogue threads 288
    %last = arith.cmpi uge, %tid, %c352 : index
    scf.if %last {
      mbarrier.bar_sync @epilogue threads 288
    }
  }
  return
}

// -----

// Unknown points (a condition on a parameter): silent.
mbarrier.named_barrier @b id 3
func.func @unknown_points_are_silent(%x: index) attributes {known_block_size = array<i32: 256, 1, 1>} {
  %tid = gpu.thread_id x
  %c = arith.cmpi ult, %tid, %x : index
  scf.if %c {
    mbarrier.bar_sync @b threads 256
  }
  return
}

// -----

// In the main loop (trips from a parameter): warp group 0 syncs for 256
// threads each trip and no other warp uses the id. A warp that syncs arrives
// once per phase, so a phase gets 128 arrivals at most: every launch hangs.
gpu.module @sync_in_a_loop_above_the_threads_that_reach_it_m {
  mbarrier.named_barrier @b id 3
  gpu.func @sync_in_a_loop_above_the_threads_that_reach_it(%n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %wg0 {
        // expected-error @+1 {{waits on named barrier @b (id 3) for 256 threads, but only 128 arrivals (warps 0-3) ever arrive on it in a phase (in a loop, a warp that syncs on it arrives once per phase): the barrier never completes}}
        mbarrier.bar_sync @b threads 256
      }
    }
    gpu.return
  }
}

// -----

// Its correct twin: both warp groups sync on the id every trip.
gpu.module @sync_in_a_loop_by_both_groups_m {
  mbarrier.named_barrier @b id 3
  gpu.func @sync_in_a_loop_by_both_groups(%n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %wg0 {
        mbarrier.bar_sync @b threads 256
      } else {
        mbarrier.bar_sync @b threads 256
      }
    }
    gpu.return
  }
}

// -----

// A bar.arrive in a loop: a warp may arrive on the id several times in
// one phase, so the arrivals of a phase are not bounded by the warps (the
// rule is silent); here warps 4-7 bring the other 128 in the loop's trip.
gpu.module @arrive_in_a_loop_is_not_bounded_m {
  mbarrier.named_barrier @b id 3
  gpu.func @arrive_in_a_loop_is_not_bounded() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.if %wg0 {
      mbarrier.bar_sync @b threads 256
    } else {
      scf.for %i = %c0 to %c1 step %c1 {
        mbarrier.bar_arrive @b threads 256
      }
    }
    gpu.return
  }
}

// -----

// The balance of syncs (FA3's warp scheduler, named_barrier.hpp): @done
// waits for 256 threads, the 8 warps that use it, so each phase takes one
// sync of every warp; warp group 0 syncs twice per trip (once in its role
// branch), warp group 1 once: warp group 0 outruns it and hangs, for every
// trip count of at least one.
gpu.module @unbalanced_m {
  mbarrier.named_barrier @done id 4
  gpu.func @unbalanced_syncs(%n: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.for %i = %i0 to %n step %i1 : i32 {
      scf.if %wg0 {
        // expected-error @+1 {{syncs on named barrier @done (id 4) for 256 threads, every warp that uses the id (warps 0-7), but only warps 0-3 reach this sync: each phase takes one sync of every one of them, and warps 0-3 sync on the id 2 time(s) per trip where warps 4-7 sync 1 time(s): their syncs beyond the others' never complete}}
        mbarrier.bar_sync @done threads 256
      }
      mbarrier.bar_sync @done threads 256
    }
    gpu.return
  }
}

// -----

// Its correct twin: both warp groups reach both syncs of a trip.
gpu.module @balanced_m {
  mbarrier.named_barrier @done id 4
  gpu.func @balanced_syncs(%n: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.for %i = %i0 to %n step %i1 : i32 {
      scf.if %wg0 {
        mbarrier.bar_sync @done threads 256
      } else {
        mbarrier.bar_sync @done threads 256
      }
      mbarrier.bar_sync @done threads 256
    }
    gpu.return
  }
}
