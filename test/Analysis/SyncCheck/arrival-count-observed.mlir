// Class 3's severity: an op that brings more arrivals than the count is an
// error only where, in every launch, a wait observes the phases its extra
// arrivals complete early (in every instance of the protocol model: a wait
// for a later phase than the op's, or a wait after the op by the warps that
// make twice the count); where a launch waits for none of them it is right,
// and the report is a warning. The CuTe Hopper TMA tutorial's shape
// (NVIDIA/cutlass examples/cute/tutorial/hopper/wgmma_tma_sm90.cu): every
// thread arrives on consumer_mbar, thread 0 waits on it to refill a stage.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// consumer_mbar initialized with 1 (producer_mbar's count) while the 128
// threads arrive: thread 0 waits on it only to refill a stage with k-tile
// k + 2, which exists where %k_tiles > 2. A launch of one or two k-tiles
// never waits on it and is right: a warning.
gpu.module @refill_in_some_launches {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    %npre = arith.minui %k_tiles, %i2 : i32
    scf.if %t0 {
      scf.for %p = %i0 to %npre step %i1 : i32 {
        %s = arith.index_cast %p : i32 to index
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %p = arith.remui %k, %i2 : i32
      %s = arith.index_cast %p : i32 to index
      %lap = arith.divui %k, %i2 : i32
      %phase = arith.andi %lap, %i1 : i32
      mbarrier.wait %full[%s], %phase : !mbarrier.group<2>
      // expected-warning @+1 {{arrives 128 times on a barrier initialized with arrival count 1: the threads that execute it complete the phase and arrive again on the next one (more arrivals per phase than the count)}}
      mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      %next = arith.addi %k, %i2 : i32
      %more = arith.cmpi ult, %next, %k_tiles : i32
      %refill = arith.andi %t0, %more : i1
      scf.if %refill {
        mbarrier.wait %empty[%s], %phase : !mbarrier.group<2>
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The same with 6 k-tiles in every launch: thread 0's first refill waits on
// the barrier after its own warp's 32 arrivals, which have taken it 32
// phases on, so the wait is for a phase those arrivals completed (it returns
// before the other warps have released the stage, or waits for a phase that
// only later arrivals complete): an error.
gpu.module @refill_in_every_launch {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %k_tiles = arith.constant 6 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    scf.if %t0 {
      scf.for %p = %i0 to %i2 step %i1 : i32 {
        %s = arith.index_cast %p : i32 to index
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %p = arith.remui %k, %i2 : i32
      %s = arith.index_cast %p : i32 to index
      %lap = arith.divui %k, %i2 : i32
      %phase = arith.andi %lap, %i1 : i32
      mbarrier.wait %full[%s], %phase : !mbarrier.group<2>
      // expected-error @+1 {{arrives 128 times on a barrier initialized with arrival count 1: the threads that execute it complete the phase and arrive again on the next one (more arrivals per phase than the count)}}
      mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      %next = arith.addi %k, %i2 : i32
      %more = arith.cmpi ult, %next, %k_tiles : i32
      %refill = arith.andi %t0, %more : i1
      scf.if %refill {
        mbarrier.wait %empty[%s], %phase : !mbarrier.group<2>
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The correct kernel: consumer_mbar counts the 128 threads. Silent.
gpu.module @count_of_the_threads {
  gpu.func @k(%k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i128 : !mbarrier.group<2>
      }
    }
    gpu.barrier
    %npre = arith.minui %k_tiles, %i2 : i32
    scf.if %t0 {
      scf.for %p = %i0 to %npre step %i1 : i32 {
        %s = arith.index_cast %p : i32 to index
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    scf.for %k = %i0 to %k_tiles step %i1 : i32 {
      %p = arith.remui %k, %i2 : i32
      %s = arith.index_cast %p : i32 to index
      %lap = arith.divui %k, %i2 : i32
      %phase = arith.andi %lap, %i1 : i32
      mbarrier.wait %full[%s], %phase : !mbarrier.group<2>
      mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      %next = arith.addi %k, %i2 : i32
      %more = arith.cmpi ult, %next, %k_tiles : i32
      %refill = arith.andi %t0, %more : i1
      scf.if %refill {
        mbarrier.wait %empty[%s], %phase : !mbarrier.group<2>
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}
