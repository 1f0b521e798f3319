// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// A producer's wait on the consumers' release one lap ahead (class 12, a
// warp's first wait of parity 1 on a barrier whose first phase completed
// before it: CheckDeadlock.cpp): the producer loads block i + 1 into stage
// (i + 1) % 2 and then waits done[i % 2] for the consumers' release of block
// i, at parity (i / 2) % 2 (ThunderKittens' H100 attention, compute_done);
// at ((i / 2) + 1) % 2 the wait asks for the phase before the barrier's
// first. Where the consumers release the prologue's block 0 before the
// producer comes to its first wait (the protocol model's run in ascending
// warp order), the wait is for phase 1, which, with one or two blocks, no
// arrival starts: a hang; where it comes first, it passes at once and the
// next trip's load overwrites the stage the consumers still read. Some
// launches (timing): a warning. 64 threads: warp 0 consumes (lane 0
// releases), thread 32 produces.

gpu.module @producer_wait_one_lap_ahead {
  llvm.mlir.global internal @kv() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %done = mbarrier.alloc : !mbarrier.group<2>
    %kv = llvm.mlir.addressof @kv : !llvm.ptr<3>
    scf.if %is_tid0 {
      scf.for %j = %c0 to %c2 step %c1 {
        mbarrier.init %full[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %done[%j], %i1 : !mbarrier.group<2>
      }
      mbarrier.fence_init
      // The prologue: block 0 into stage 0.
      mbarrier.arrive_expect_tx %full[%c0], %i4096 : !mbarrier.group<2>
      mbarrier.cp_async_bulk_tensor %full[%c0], %kv, %map[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %nxt = arith.addi %i, %i1 : i32
        %exists = arith.cmpi ult, %nxt, %n : i32
        scf.if %exists {
          %ns32 = arith.remui %nxt, %i2 : i32
          %ns = arith.index_cast %ns32 : i32 to index
          %off = arith.muli %ns32, %i4096 : i32
          %dst = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.arrive_expect_tx %full[%ns], %i4096 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %full[%ns], %dst, %map[%i0, %nxt], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %lap1 = arith.addi %lap, %i1 : i32
        %ahead = arith.andi %lap1, %i1 : i32
        // expected-warning @+1 {{waits with parity 1 on an mbarrier whose first phase has completed, in the first wait of warp 1 on it: parity 1 asks for the phase before the barrier's first}}
        mbarrier.wait %done[%s], %ahead : !mbarrier.group<2>
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %lane0 = arith.cmpi eq, %tid, %i0 : i32
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %done[%s] if %lane0 : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The fix: the producer waits the release of the block it just let the
// consumers have, at the lap's parity (i / 2) % 2. Silent.
gpu.module @producer_wait_at_lap_parity {
  llvm.mlir.global internal @kv() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %done = mbarrier.alloc : !mbarrier.group<2>
    %kv = llvm.mlir.addressof @kv : !llvm.ptr<3>
    scf.if %is_tid0 {
      scf.for %j = %c0 to %c2 step %c1 {
        mbarrier.init %full[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %done[%j], %i1 : !mbarrier.group<2>
      }
      mbarrier.fence_init
      mbarrier.arrive_expect_tx %full[%c0], %i4096 : !mbarrier.group<2>
      mbarrier.cp_async_bulk_tensor %full[%c0], %kv, %map[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %nxt = arith.addi %i, %i1 : i32
        %exists = arith.cmpi ult, %nxt, %n : i32
        scf.if %exists {
          %ns32 = arith.remui %nxt, %i2 : i32
          %ns = arith.index_cast %ns32 : i32 to index
          %off = arith.muli %ns32, %i4096 : i32
          %dst = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.arrive_expect_tx %full[%ns], %i4096 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %full[%ns], %dst, %map[%i0, %nxt], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %done[%s], %ph : !mbarrier.group<2>
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %lane0 = arith.cmpi eq, %tid, %i0 : i32
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %done[%s] if %lane0 : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// CUTLASS's producer on a ring whose empty barriers start released: it
// waits empty[s] one lap back (phase offset 1: parity 1 in the first lap)
// before it fills stage s; the consumers can release a stage only after its
// fill, so no phase of it completes before the first wait. Silent.
gpu.module @producer_wait_empty_before_fill {
  llvm.mlir.global internal @kv() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %kv = llvm.mlir.addressof @kv : !llvm.ptr<3>
    scf.if %is_tid0 {
      scf.for %j = %c0 to %c2 step %c1 {
        mbarrier.init %full[%j], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%j], %i1 : !mbarrier.group<2>
      }
      mbarrier.fence_init
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %dst = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%i0, %i], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %lane0 = arith.cmpi eq, %tid, %i0 : i32
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] if %lane0 : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}
