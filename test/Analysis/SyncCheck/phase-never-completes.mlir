// Class 12 on phases that never complete (issue 30, heldout2's three hangs),
// each buggy kernel followed by its correct neighbours:
// - an up-front arrival made by lane 0 of each consumer warp only, on a
//   barrier that counts every thread: the phase gets 3 + 32 of its 128
//   arrivals; reported at that arrival (with all lanes the count is met);
// - a full barrier of count 64 that only the producer warp's 32 threads
//   arrive on, waited on in a test_wait spin loop (scf.while until the
//   test_wait holds: the protocol model takes the loop as a wait);
//   reported at the init (the count is the bug);
// - a 256-thread bar.sync that thread 0 alone reaches (in its branch):
//   32 threads arrive (a warp arrives for its 32); class 11 does not know
//   the executing sets (they depend on the CTA's id), the model's CTA 0
//   hangs.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// %n / %len trips: warp 0 arrives on ready and waits for it, then arrives on
// filled; warps 1-3 arrive on ready[0] (lane 0 only) and ready[1] up front,
// then per trip arrive on filled, wait for it and arrive on ready (the
// stage i % 2, parity (i / 2) & 1). Threads 0-3 initialize one barrier
// each.
gpu.module @elected_m {
  gpu.func @elected(%n: i32, %len: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i96 = arith.constant 96 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %ready = mbarrier.alloc : !mbarrier.group<2>
    %filled = mbarrier.alloc : !mbarrier.group<2>
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %four = arith.cmpi ult, %tid, %i4 : i32
    scf.if %four {
      %b32 = arith.remui %tid, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %r = arith.cmpi ult, %tid, %i2 : i32
      scf.if %r {
        mbarrier.init %ready[%b], %i128 : !mbarrier.group<2>
      } else {
        mbarrier.init %filled[%b], %i128 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    %trips = arith.divui %n, %len : i32
    %producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %producer {
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
        // expected-note @+1 {{the wait that never completes}}
        mbarrier.wait %ready[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
      }
    } else {
      %lane0 = arith.cmpi eq, %lane, %i0 : i32
      // expected-error @+1 {{deadlock: a phase of this barrier (initialized with arrival count 128) gets 35 arrival(s), of which this arrival brings 3 (some lanes of warps 1-3 only); warps 0-3 arrive on it once each, and warp 0 wait on it for the phase to complete (with every lane of those warps arriving here the phase would get its 128)}}
      mbarrier.arrive %ready[%c0] if %lane0 : !mbarrier.group<2>
      mbarrier.arrive %ready[%c1] : !mbarrier.group<2>
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
        mbarrier.wait %filled[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// Its correct neighbour: every consumer thread arrives up front.
gpu.module @every_lane_m {
  gpu.func @every_lane(%n: i32, %len: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %ready = mbarrier.alloc : !mbarrier.group<2>
    %filled = mbarrier.alloc : !mbarrier.group<2>
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %four = arith.cmpi ult, %tid, %i4 : i32
    scf.if %four {
      %b32 = arith.remui %tid, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %r = arith.cmpi ult, %tid, %i2 : i32
      scf.if %r {
        mbarrier.init %ready[%b], %i128 : !mbarrier.group<2>
      } else {
        mbarrier.init %filled[%b], %i128 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    %trips = arith.divui %n, %len : i32
    %producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %producer {
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
        mbarrier.wait %ready[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
      }
    } else {
      mbarrier.arrive %ready[%c0] : !mbarrier.group<2>
      mbarrier.arrive %ready[%c1] : !mbarrier.group<2>
      scf.for %i = %i0 to %trips step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.arrive %filled[%s] : !mbarrier.group<2>
        mbarrier.wait %filled[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %ready[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// An elected arrival on a barrier that counts the warps (CUTLASS's
// per-warp releases): lane 0 of warps 1-3 and of warp 0 make its 4.
// Threads 0 and 1 initialize one barrier each (per-lane inits).
gpu.module @elected_per_warp_m {
  gpu.func @elected_per_warp(%n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    %init = arith.cmpi ult, %tid, %i2 : i32
    scf.if %init {
      %b = arith.index_cast %tid : i32 to index
      mbarrier.init %bars[%b], %i4 : !mbarrier.group<2>
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %producer {
      mbarrier.arrive %bars[%c0] if %lane0 : !mbarrier.group<2>
      mbarrier.wait %bars[%c0], %i0 : !mbarrier.group<2>
      mbarrier.arrive %bars[%c1] if %lane0 : !mbarrier.group<2>
    } else {
      mbarrier.arrive %bars[%c0] if %lane0 : !mbarrier.group<2>
      mbarrier.arrive %bars[%c1] if %lane0 : !mbarrier.group<2>
      mbarrier.wait %bars[%c1], %i0 : !mbarrier.group<2>
    }
    gpu.return
  }
}

// -----

// The full barrier counts the block's 64 threads; only warp 0 arrives on
// it, and warp 1 spins on test_wait until its phase completes.
gpu.module @spin_short_m {
  gpu.func @spin_short(%rounds: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %true = arith.constant true
    %nap = arith.constant 20 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    scf.if %t0 {
      // expected-error @+1 {{deadlock: initialized with arrival count 64, but a phase of the barrier gets 32 arrival(s): warp 0 arrive on it once each and end, while warp 1 wait on it for the phase to complete (the count is more than the arrivals of a phase)}}
      mbarrier.init %full[%c0], %i64 : !mbarrier.group<1>
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %producer {
      // expected-note @+1 {{an arrival on the barrier}}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      scf.while : () -> () {
        // expected-note @+1 {{the wait that never completes}}
        %done = mbarrier.test_wait %full[%c0], %i0 : !mbarrier.group<1>
        %pending = arith.xori %done, %true : i1
        scf.condition(%pending)
      } do {
        nvvm.nanosleep %nap
        scf.yield
      }
    }
    gpu.return
  }
}

// -----

// Its correct neighbour: the count is the producer warp's 32; the spin
// loop as a try_wait (`cmpi eq %ok, false`), in a loop of %rounds rounds
// with an empty barrier that the producer waits on.
gpu.module @spin_right_m {
  gpu.func @spin_right(%rounds: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %false = arith.constant false
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    scf.if %t0 {
      mbarrier.init %full[%c0], %i32 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %i32 : !mbarrier.group<1>
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %producer {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        %ph = arith.andi %r, %i1 : i32
        mbarrier.wait %empty[%c0], %ph {phase_offset = 1 : i32} : !mbarrier.group<1>
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
      }
    } else {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        %ph = arith.andi %r, %i1 : i32
        scf.while : () -> () {
          %ok = mbarrier.try_wait %full[%c0], %ph : !mbarrier.group<1>
          %again = arith.cmpi eq, %ok, %false : i1
          scf.condition(%again)
        } do {
          scf.yield
        }
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
      }
    }
    gpu.return
  }
}

// -----

// A 256-thread bar.sync that thread 0 alone reaches, in CTAs of an even
// id (CTA 0 among them); the odd CTAs sync with every thread first.
gpu.module @sync_in_thread0_m {
  mbarrier.named_barrier @step
  gpu.func @sync_in_thread0(%k: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i2 = arith.constant 2 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %odd = arith.remui %bid, %i2 : i32
    %first = arith.cmpi eq, %odd, %i0 : i32
    scf.if %first {
      scf.if %t0 {
        // expected-error @+1 {{deadlock: warp 0 wait here on named barrier @step for 256 threads, but its phase gets 32 and no warp can still arrive on it}}
        mbarrier.bar_sync @step threads 256
      }
    } else {
      mbarrier.bar_sync @step threads 256
    }
    gpu.return
  }
}

// -----

// Its correct neighbours: every warp syncs (outside thread 0's branch);
// a branch on the warp that holds every participant (warp 0, 32 threads).
gpu.module @sync_all_m {
  mbarrier.named_barrier @step
  mbarrier.named_barrier @warp0
  gpu.func @sync_all(%k: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %w0 = arith.cmpi ult, %tid, %i32 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %odd = arith.remui %bid, %i2 : i32
    %first = arith.cmpi eq, %odd, %i0 : i32
    scf.if %first {
      mbarrier.bar_sync @step threads 256
      scf.if %w0 {
        mbarrier.bar_sync @warp0 threads 32
      }
    } else {
      mbarrier.bar_sync @step threads 256
    }
    gpu.return
  }
}
