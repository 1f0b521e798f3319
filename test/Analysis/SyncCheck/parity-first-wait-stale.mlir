// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// Class 12, a wait for a phase that no arrival starts, in a warp's first wait
// on a barrier (issue 30): parity 1 asks for the phase before the barrier's
// first (it passes on a fresh barrier), though the barrier's first phase has
// completed when the warp comes to the wait and no warp can still arrive on
// it: the protocol model's run leaves the warps blocked there in both
// schedules. A warning where some sampled instances have it (an error where
// all do). 64 threads: thread 0 also issues the copies (their bytes are taken
// to land: thread 0's arrive completes the stage's phase).

// tilelang's T.Pipelined(num_stages=3) with the parity of two stages
// kept: k % 2 where (k / 3) % 2 is meant. In step 1 the wait on stage 1
// (its first) has parity 1 though the stage's first phase has completed:
// on the GPU it returns at once before the copy lands, or waits for a
// phase no arrival starts. One step is right: some launches, a warning.
gpu.module @parity_of_trip_three_stages {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cD = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %iD = arith.constant 3 : i32
    %iP = arith.constant 2 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %cD step %c1 {
        mbarrier.init %bar[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // Prologue: stages 0 .. 2 - 1.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %iP step %i1 : i32 {
        %live = arith.cmpi slt, %k, %k_tiles : i32
        scf.if %live {
          %s32 = arith.remui %k, %iD : i32
          %s = arith.index_cast %s32 : i32 to index
          mbarrier.arrive %bar[%s] : !mbarrier.group<3>
        }
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %nk = arith.addi %k, %iP : i32
      %issue0 = arith.cmpi slt, %nk, %k_tiles : i32
      %issue = arith.andi %issue0, %is_tid0 : i1
      scf.if %issue {
        %ns32 = arith.remui %nk, %iD : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.arrive %bar[%ns] : !mbarrier.group<3>
      }
      %s32 = arith.remui %k, %iD : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %iD : i32
      %ph = arith.remui %k, %i2 : i32
      // expected-warning @+1 {{waits with parity 1 on an mbarrier whose first phase has completed, in the first wait of warps 0-1 on it: parity 1 asks for the phase before the barrier's first, so the wait returns at once, before the first phase's arrivals and copies have come, and reads the data early, or, once they have, waits for phase 1, which no warp can still arrive on (the parity does not follow the barrier's phases: a parity of the trip where the ring's lap was meant)}}
      mbarrier.wait %bar[%s], %ph : !mbarrier.group<3>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// The fix: parity (k / 3) % 2. Silent.
gpu.module @parity_of_lap_three_stages {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cD = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %iD = arith.constant 3 : i32
    %iP = arith.constant 2 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %cD step %c1 {
        mbarrier.init %bar[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // Prologue: stages 0 .. 2 - 1.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %iP step %i1 : i32 {
        %live = arith.cmpi slt, %k, %k_tiles : i32
        scf.if %live {
          %s32 = arith.remui %k, %iD : i32
          %s = arith.index_cast %s32 : i32 to index
          mbarrier.arrive %bar[%s] : !mbarrier.group<3>
        }
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %nk = arith.addi %k, %iP : i32
      %issue0 = arith.cmpi slt, %nk, %k_tiles : i32
      %issue = arith.andi %issue0, %is_tid0 : i1
      scf.if %issue {
        %ns32 = arith.remui %nk, %iD : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.arrive %bar[%ns] : !mbarrier.group<3>
      }
      %s32 = arith.remui %k, %iD : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %iD : i32
      %ph = arith.remui %lap, %i2 : i32
      mbarrier.wait %bar[%s], %ph : !mbarrier.group<3>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Two stages, parity (k / 2) % 2: silent.
gpu.module @parity_of_lap_two_stages {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cD = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %iD = arith.constant 2 : i32
    %iP = arith.constant 1 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %cD step %c1 {
        mbarrier.init %bar[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // Prologue: stages 0 .. 1 - 1.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %iP step %i1 : i32 {
        %live = arith.cmpi slt, %k, %k_tiles : i32
        scf.if %live {
          %s32 = arith.remui %k, %iD : i32
          %s = arith.index_cast %s32 : i32 to index
          mbarrier.arrive %bar[%s] : !mbarrier.group<2>
        }
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %nk = arith.addi %k, %iP : i32
      %issue0 = arith.cmpi slt, %nk, %k_tiles : i32
      %issue = arith.andi %issue0, %is_tid0 : i1
      scf.if %issue {
        %ns32 = arith.remui %nk, %iD : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.arrive %bar[%ns] : !mbarrier.group<2>
      }
      %s32 = arith.remui %k, %iD : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %iD : i32
      %ph = arith.remui %lap, %i2 : i32
      mbarrier.wait %bar[%s], %ph : !mbarrier.group<2>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// One barrier (a ring of one stage): k % 2 is its lap's parity. Silent.
gpu.module @parity_of_trip_one_stage {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cD = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %iD = arith.constant 1 : i32
    %iP = arith.constant 0 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %cD step %c1 {
        mbarrier.init %bar[%s], %i1 : !mbarrier.group<1>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // Prologue: stages 0 .. 0 - 1.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %iP step %i1 : i32 {
        %live = arith.cmpi slt, %k, %k_tiles : i32
        scf.if %live {
          %s32 = arith.remui %k, %iD : i32
          %s = arith.index_cast %s32 : i32 to index
          mbarrier.arrive %bar[%s] : !mbarrier.group<1>
        }
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %nk = arith.addi %k, %iP : i32
      %issue0 = arith.cmpi slt, %nk, %k_tiles : i32
      %issue = arith.andi %issue0, %is_tid0 : i1
      scf.if %issue {
        %ns32 = arith.remui %nk, %iD : i32
        %ns = arith.index_cast %ns32 : i32 to index
        mbarrier.arrive %bar[%ns] : !mbarrier.group<1>
      }
      %s32 = arith.remui %k, %iD : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %k, %iD : i32
      %ph = arith.remui %k, %i2 : i32
      mbarrier.wait %bar[%s], %ph : !mbarrier.group<1>
      gpu.barrier
    }
    gpu.return
  }
}
