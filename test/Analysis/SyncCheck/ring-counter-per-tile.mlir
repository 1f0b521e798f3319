// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync -o /dev/null
// Class 5, ring counters across tiles (issue 30, CheckRingCounters.cpp): two
// accesses of one ring of mbarriers whose stage counters restart at
// different loop depths (one carried across the tile loop, the other
// restarted at every tile) walk the same (stage, phase) sequence in the
// first tile only: a warning at the restart (a fresh start's op; a carried
// counter started from a value of outside the tile loop, the restarted loop;
// else the access). Silent where both sides carry, both restart, the restarted loop
// walks whole laps of both parities, or the counter is not one loop value.
// 64 threads: thread 32 produces, warp 0 consumes.

// The consumer takes its stage and parity from the k-loop index, restarted
// per tile, while the producer carries its counter across tiles (Triton's
// grouped GEMM with the counter per tile): from the second tile on, after
// a tile of k-steps not a multiple of 8, the two sides disagree.
gpu.module @consumer_index_per_tile {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          // expected-note @+1 {{an access of the same ring whose counter is carried across the enclosing loop}}
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %k, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %k, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          // expected-warning @+1 {{ring counter restarted in every trip of an enclosing loop: this side of a ring of 4 stages takes its stage and parity from a counter that starts again at each entry of its loop, while another access of the same ring carries its counter across the enclosing loop; after a trip whose steps are not a multiple of 8 the two sides address different stages and phases (a wait returns at once for a stale phase, or waits for one that never comes)}}
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// The fix: the consumer's counter is carried across tiles too. Silent.
gpu.module @counter_carried_across_tiles {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// A fresh counter at every tile (a state declared inside the tile loop)
// while the producer carries its own: reported at the fresh start.
gpu.module @fresh_counter_per_tile {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          // expected-note @+1 {{an access of the same ring whose counter is carried across the enclosing loop}}
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        // expected-warning @+1 {{ring counter restarted in every trip of an enclosing loop: this side of a ring of 4 stages takes its stage and parity from a counter that starts again at each entry of its loop, while another access of the same ring carries its counter across the enclosing loop; after a trip whose steps are not a multiple of 8 the two sides address different stages and phases (a wait returns at once for a stale phase, or waits for one that never comes)}}
        %fresh = arith.addi %i0, %i0 : i32
        %r = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %fresh) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          // expected-note @+1 {{the access whose counter restarts}}
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// Both sides restart their counters per tile: they agree with each other
// (whether the phases carry over is not this rule's). Silent.
gpu.module @both_per_tile {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %k, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %k, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %k, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %k, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// A constant 8 k-steps per tile on a 4-stage ring: each tile walks whole
// laps of both parities, so the restarted index agrees. Silent.
gpu.module @whole_laps_per_tile {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %c8 = arith.constant 8 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %c8 step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %c8 step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %k, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %k, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// The consumer's counter from the tile and k indices (t * ksteps + k):
// not one loop value, it runs across tiles. Silent.
gpu.module @counter_from_tile_and_k {
  gpu.func @k(%tiles: i32, %ksteps: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %ksteps step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %tk = arith.muli %t, %ksteps : i32
          %g = arith.addi %tk, %k : i32
          %s32 = arith.remui %g, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %g, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// A pipe read state made afresh at every tile (FA3's smem_pipe_read
// declared inside the tile loop) while the producer carries its write
// state across tiles: reported at the fresh state.
!P = !mbarrier.pipe<2, arrive>
gpu.module @pipe_state_per_tile {
  gpu.func @k(%tiles: index, %ksteps: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %i0 : i32
    %is_load = arith.cmpi eq, %t, %i32 : i32
    %consumer = arith.cmpi ult, %t, %i32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !P
    scf.if %first {
      mbarrier.pipe.init %p : !P
    }
    nvvm.barrier0
    scf.if %is_load {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin = scf.for %tile = %c0 to %tiles step %c1 iter_args(%ts = %st) -> !mbarrier.pipe_state<producer> {
        %end = scf.for %i = %c0 to %ksteps step %c1 iter_args(%s = %ts) -> !mbarrier.pipe_state<producer> {
          // expected-note @+1 {{an access of the same ring whose counter is carried across the enclosing loop}}
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          mbarrier.pipe.commit %p[%slot] : !P
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        scf.yield %end : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin : !P
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %fin = scf.for %tile = %c0 to %tiles step %c1 iter_args(%ts = %st) -> !mbarrier.pipe_state<consumer> {
        // expected-warning @+1 {{ring counter restarted in every trip of an enclosing loop: this side of a ring of 2 stages takes its stage and parity from a counter that starts again at each entry of its loop, while another access of the same ring carries its counter across the enclosing loop; after a trip whose steps are not a multiple of 4 the two sides address different stages and phases (a wait returns at once for a stale phase, or waits for one that never comes)}}
        %fresh = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %end = scf.for %i = %c0 to %ksteps step %c1 iter_args(%s = %fresh) -> !mbarrier.pipe_state<consumer> {
          // expected-note @+1 {{the access whose counter restarts}}
          %slot, %next = mbarrier.pipe.wait %p, %s : !P
          mbarrier.pipe.release %p[%slot] if %first : !P
          scf.yield %next : !mbarrier.pipe_state<consumer>
        }
        scf.yield %end : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// -----

// The fix: the read state carried across tiles (FA3 as written). Silent.
!P = !mbarrier.pipe<2, arrive>
gpu.module @pipe_state_carried {
  gpu.func @k(%tiles: index, %ksteps: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %i0 : i32
    %is_load = arith.cmpi eq, %t, %i32 : i32
    %consumer = arith.cmpi ult, %t, %i32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !P
    scf.if %first {
      mbarrier.pipe.init %p : !P
    }
    nvvm.barrier0
    scf.if %is_load {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin = scf.for %tile = %c0 to %tiles step %c1 iter_args(%ts = %st) -> !mbarrier.pipe_state<producer> {
        %end = scf.for %i = %c0 to %ksteps step %c1 iter_args(%s = %ts) -> !mbarrier.pipe_state<producer> {
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          mbarrier.pipe.commit %p[%slot] : !P
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        scf.yield %end : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin : !P
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %fin = scf.for %tile = %c0 to %tiles step %c1 iter_args(%ts = %st) -> !mbarrier.pipe_state<consumer> {
        %end = scf.for %i = %c0 to %ksteps step %c1 iter_args(%s = %ts) -> !mbarrier.pipe_state<consumer> {
          %slot, %next = mbarrier.pipe.wait %p, %s : !P
          mbarrier.pipe.release %p[%slot] if %first : !P
          scf.yield %next : !mbarrier.pipe_state<consumer>
        }
        scf.yield %end : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// -----

// The counter carried through the subtile loop but started at each tile
// from a constant of outside the tile loop (CUTLASS's epilogue C-load
// pipeline with the consumer state made per tile, 3 subtiles on 4 stages):
// the restart is the subtile loop's `iter_args(%n = %i0)`, reported there.
gpu.module @carried_counter_started_from_constant {
  gpu.func @k(%tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %i3 step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          // expected-note @+1 {{an access of the same ring whose counter is carried across the enclosing loop}}
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        // expected-warning @+1 {{ring counter restarted in every trip of an enclosing loop: this side of a ring of 4 stages}}
        %r = scf.for %k = %i0 to %i3 step %i1 iter_args(%n = %i0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          // expected-note @+1 {{the access whose counter restarts}}
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}

// -----

// Its fix: the subtile loop starts from the tile loop's carried counter
// (the state the previous tile returned). Silent.
gpu.module @carried_counter_started_from_tile_state {
  gpu.func @k(%tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %is_load = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_load {
      %pend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %itk = scf.for %k = %i0 to %i3 step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive %full[%s] : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %itk : i32
      }
    }
    %is_mma = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_mma {
      %cend = scf.for %t = %i0 to %tiles step %i1 iter_args(%it0 = %i0) -> (i32) : i32 {
        %r = scf.for %k = %i0 to %i3 step %i1 iter_args(%n = %it0) -> (i32) : i32 {
          %s32 = arith.remui %n, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %n, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<4>
          %n2 = arith.addi %n, %i1 : i32
          scf.yield %n2 : i32
        }
        scf.yield %r : i32
      }
    }
    gpu.return
  }
}
