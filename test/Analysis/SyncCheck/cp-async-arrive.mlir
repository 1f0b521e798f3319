// cp.async.mbarrier.arrive in the counts (classes 3 and 4): with .noinc it
// is one arrival of each executing thread (CUTLASS's
// cpasync_barrier_arrive_noinc, counted in the barrier's arrival count);
// without, it increments the pending count before arriving: a net zero
// (cpasync_barrier_arrive, which only makes the phase wait for the copies).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// CUTLASS's PipelineAsync with a cp.async producer warp (full barriers of
// count 32: producer_commit(state, cpasync_barrier_arrive_noinc)); every
// consumer thread releases the stage. Silent.
gpu.module @m {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @noinc_producer(%src: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i64 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      %mine = arith.muli %tid, %i16 : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%s], %pph : !mbarrier.group<2>
        %soff = arith.muli %s32, %i1024 : i32
        %d = arith.addi %soff, %mine : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = llvm.getelementptr %src[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        %fp = mbarrier.ptr %full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
        nvvm.cp.async.mbarrier.arrive %fp {noinc = true} : !llvm.ptr<3>
      }
    }
    %is_consumer = arith.cmpi uge, %warp, %i1 : i32
    scf.if %is_consumer {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The producer commits with cpasync_barrier_arrive (no .noinc) and nothing
// else arrives on the full barriers: every arrival is a net zero, the
// consumers' first wait never returns, on every launch (k_tiles >= 1).
gpu.module @m {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @inc_producer(%src: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i64 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      %mine = arith.muli %tid, %i16 : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%s], %pph : !mbarrier.group<2>
        %soff = arith.muli %s32, %i1024 : i32
        %d = arith.addi %soff, %mine : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = llvm.getelementptr %src[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        %fp = mbarrier.ptr %full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
        // expected-error @+1 {{arrives with cp.async.mbarrier.arrive without .noinc, which increments the barrier's pending count before its arrival (a net zero), and nothing else arrives on the barrier (initialized with arrival count 32): its phase never completes, so the wait for its first phase waits forever; use .noinc (cpasync_barrier_arrive_noinc: the arrival counted in the init count)}}
        nvvm.cp.async.mbarrier.arrive %fp : !llvm.ptr<3>
      }
    }
    %is_consumer = arith.cmpi uge, %warp, %i1 : i32
    scf.if %is_consumer {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        // expected-note @+1 {{the wait for a phase that never completes}}
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// cpasync_barrier_arrive (no .noinc) next to the producer's own arrival:
// the copies hold the phase until they land, the arrivals are the regular
// ones (32 per trip, the count). Silent.
gpu.module @m {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @inc_and_arrive(%src: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i64 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      %mine = arith.muli %tid, %i16 : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%s], %pph : !mbarrier.group<2>
        %soff = arith.muli %s32, %i1024 : i32
        %d = arith.addi %soff, %mine : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = llvm.getelementptr %src[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        %fp = mbarrier.ptr %full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
        nvvm.cp.async.mbarrier.arrive %fp : !llvm.ptr<3>
        mbarrier.arrive %full[%s] : !mbarrier.group<2>
      }
    }
    %is_consumer = arith.cmpi uge, %warp, %i1 : i32
    scf.if %is_consumer {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}
