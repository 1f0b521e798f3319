// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// Class 12, a wait for a phase that no arrival starts (issue 30): the
// protocol model evaluates each wait's parity per trip through the loop's
// carried values (a phase bitfield shifted, masked and flipped with xor, as
// Mosaic GPU's BarrierRef carries it; Triton's pipeliner (i / stages) & 1),
// and its run finds a warp blocked on a barrier whose every arrival has come
// and completed whole phases, at the next phase of its parity after the
// last one it saw, in both schedules: the parity does not follow the
// barrier's phases. An error where every sampled instance has it, a warning
// where some do. And tcgen05.commit is an arrival of the model (Blackwell's
// MMA warp completes tmem_full with it): a wait-for cycle through it at
// start-up is found.

// Mosaic GPU's phases bitfield (jax mosaic/gpu/utils.py BarrierRef.wait:
// one parity bit per barrier, flipped at each wait) yielded without its
// flip: at the third step the wait on slot 0 is for phase 2, which no fetch
// starts (4 steps, 2 slots: the last fetch is step 3). Every launch.
gpu.module @bitfield_not_flipped {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %bars[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %bars[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %bars[%c0] : !mbarrier.group<2>
    }
    %r = scf.for %step = %c0 to %c4 step %c1 iter_args(%phases = %i0) -> (i32) {
      %s = arith.index_cast %step : index to i32
      %slot32 = arith.remui %s, %i2 : i32
      %slot = arith.index_cast %slot32 : i32 to index
      %sh = arith.shrui %phases, %slot32 : i32
      %par = arith.andi %sh, %i1 : i32
      // expected-error @+1 {{waits with parity 0 for phase 2 of an mbarrier that no warp can still arrive on: warp 0 wait here after every arrival on the barrier has come and completed its 2 earlier phase(s), so the wait hangs, or, while the last phase's copies are still landing, returns at once for the phase before it and reads its data again (the parity does not follow the barrier's phases: a phase bit not flipped, a pipeline state restarted while the arriving threads carry theirs)}}
      mbarrier.wait %bars[%slot], %par : !mbarrier.group<2>
      %bit = arith.shli %i1, %slot32 : i32
      %flipped = arith.xori %phases, %bit : i32
      %fetch = arith.addi %s, %i1 : i32
      %more = arith.cmpi slt, %fetch, %i4 : i32
      %go = arith.andi %more, %leader : i1
      scf.if %go {
        %fs32 = arith.remui %fetch, %i2 : i32
        %fs = arith.index_cast %fs32 : i32 to index
        mbarrier.arrive %bars[%fs] : !mbarrier.group<2>
      }
      scf.yield %phases : i32
    }
    gpu.return
  }
}

// -----

// The same with the step count a kernel parameter: 1 or 2 steps are right,
// 3 or more are not (some launches: a warning).
gpu.module @bitfield_not_flipped_run_time_steps {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %bars[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %bars[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %bars[%c0] : !mbarrier.group<2>
    }
    %r = scf.for %s = %i0 to %n step %i1 iter_args(%phases = %i0) -> (i32) : i32 {
      %slot32 = arith.remui %s, %i2 : i32
      %slot = arith.index_cast %slot32 : i32 to index
      %sh = arith.shrui %phases, %slot32 : i32
      %par = arith.andi %sh, %i1 : i32
      // expected-warning @+1 {{waits with parity 0 for phase 2 of an mbarrier that no warp can still arrive on}}
      mbarrier.wait %bars[%slot], %par : !mbarrier.group<2>
      %fetch = arith.addi %s, %i1 : i32
      %more = arith.cmpi slt, %fetch, %n : i32
      %go = arith.andi %more, %leader : i1
      scf.if %go {
        %fs32 = arith.remui %fetch, %i2 : i32
        %fs = arith.index_cast %fs32 : i32 to index
        mbarrier.arrive %bars[%fs] : !mbarrier.group<2>
      }
      scf.yield %phases : i32
    }
    gpu.return
  }
}

// -----

// Correct: the bitfield flipped at each wait (BarrierRef.wait), with the
// step count a kernel parameter: silent.
gpu.module @bitfield_flipped {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %bars[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %bars[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %bars[%c0] : !mbarrier.group<2>
    }
    %r = scf.for %s = %i0 to %n step %i1 iter_args(%phases = %i0) -> (i32) : i32 {
      %slot32 = arith.remui %s, %i2 : i32
      %slot = arith.index_cast %slot32 : i32 to index
      %sh = arith.shrui %phases, %slot32 : i32
      %par = arith.andi %sh, %i1 : i32
      mbarrier.wait %bars[%slot], %par : !mbarrier.group<2>
      %bit = arith.shli %i1, %slot32 : i32
      %flipped = arith.xori %phases, %bit : i32
      %fetch = arith.addi %s, %i1 : i32
      %more = arith.cmpi slt, %fetch, %n : i32
      %go = arith.andi %more, %leader : i1
      scf.if %go {
        %fs32 = arith.remui %fetch, %i2 : i32
        %fs = arith.index_cast %fs32 : i32 to index
        mbarrier.arrive %bars[%fs] : !mbarrier.group<2>
      }
      scf.yield %flipped : i32
    }
    gpu.return
  }
}

// -----

// Correct: Triton's software pipeliner, the parity of step i on a ring of 2
// stages is (i / 2) & 1 (no carried phase at all): silent.
gpu.module @triton_pipeliner_phase {
  gpu.func @k(%n: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %bars[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %bars[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive %bars[%c0] : !mbarrier.group<2>
    }
    scf.for %s = %i0 to %n step %i1 : i32 {
      %slot32 = arith.remui %s, %i2 : i32
      %slot = arith.index_cast %slot32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %par = arith.andi %lap, %i1 : i32
      mbarrier.wait %bars[%slot], %par : !mbarrier.group<2>
      %fetch = arith.addi %s, %i1 : i32
      %more = arith.cmpi slt, %fetch, %n : i32
      %go = arith.andi %more, %leader : i1
      scf.if %go {
        %fs32 = arith.remui %fetch, %i2 : i32
        %fs = arith.index_cast %fs32 : i32 to index
        mbarrier.arrive %bars[%fs] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// Blackwell (DeepGEMM sm100_fp8_gemm_1d1d.cuh, cutlass PipelineUmmaAsync):
// the MMA warp's elected lane completes tmem_full with tcgen05.commit, the
// epilogue warp releases tmem_empty; the MMA warp waits tmem_empty with the
// tile's own parity, not the phase one ahead (the accumulator starts free):
// at its first tile it waits for phase 0, which only the epilogue's arrival
// after its tmem_full wait completes, which only the MMA's commit after that
// wait completes: a cycle in every launch that has a tile.
gpu.module @tmem_empty_without_offset {
  gpu.func @k(%n_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %epilogue = arith.cmpi uge, %t, %i32 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %tfull = mbarrier.alloc : !mbarrier.group<1>
    %tempty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %tfull[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %tempty[%c0], %i32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %leader {
      %f:2 = scf.while (%tile = %bid, %n = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %n : i32, i32
      } do {
      ^bb0(%tile: i32, %n: i32):
        %ph = arith.andi %n, %i1 : i32
        // expected-error @+1 {{deadlock: a cycle in the wait-for graph: warp 0 wait here on an mbarrier for warp 1}}
        mbarrier.wait %tempty[%c0], %ph : !mbarrier.group<1>
        mbarrier.tcgen05_commit %tfull[%c0] : !mbarrier.group<1>
        %next = arith.addi %tile, %grid : i32
        %n1 = arith.addi %n, %i1 : i32
        scf.yield %next, %n1 : i32, i32
      }
    }
    scf.if %epilogue {
      %f:2 = scf.while (%tile = %bid, %n = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %n : i32, i32
      } do {
      ^bb0(%tile: i32, %n: i32):
        %ph = arith.andi %n, %i1 : i32
        // expected-note @+1 {{warp 1 wait here}}
        mbarrier.wait %tfull[%c0], %ph : !mbarrier.group<1>
        mbarrier.arrive %tempty[%c0] : !mbarrier.group<1>
        %next = arith.addi %tile, %grid : i32
        %n1 = arith.addi %n, %i1 : i32
        scf.yield %next, %n1 : i32, i32
      }
    }
    gpu.return
  }
}

// -----

// Correct: the MMA warp waits tmem_empty with the phase one ahead (xor 1,
// PipelineUmmaAsync's producer start state): silent.
gpu.module @tmem_empty_with_offset {
  gpu.func @k(%n_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %epilogue = arith.cmpi uge, %t, %i32 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %tfull = mbarrier.alloc : !mbarrier.group<1>
    %tempty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %tfull[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %tempty[%c0], %i32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %leader {
      %f:2 = scf.while (%tile = %bid, %n = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %n : i32, i32
      } do {
      ^bb0(%tile: i32, %n: i32):
        %ph = arith.andi %n, %i1 : i32
        %ahead = arith.xori %ph, %i1 : i32
        mbarrier.wait %tempty[%c0], %ahead : !mbarrier.group<1>
        mbarrier.tcgen05_commit %tfull[%c0] : !mbarrier.group<1>
        %next = arith.addi %tile, %grid : i32
        %n1 = arith.addi %n, %i1 : i32
        scf.yield %next, %n1 : i32, i32
      }
    }
    scf.if %epilogue {
      %f:2 = scf.while (%tile = %bid, %n = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %n : i32, i32
      } do {
      ^bb0(%tile: i32, %n: i32):
        %ph = arith.andi %n, %i1 : i32
        mbarrier.wait %tfull[%c0], %ph : !mbarrier.group<1>
        mbarrier.arrive %tempty[%c0] : !mbarrier.group<1>
        %next = arith.addi %tile, %grid : i32
        %n1 = arith.addi %n, %i1 : i32
        scf.yield %next, %n1 : i32, i32
      }
    }
    gpu.return
  }
}
