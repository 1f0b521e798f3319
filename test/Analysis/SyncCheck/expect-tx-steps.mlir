// Class 6 across contexts, per k-step (triton python/tutorials/gluon/
// 07-persistence.py: a persistent tile loop that issues each tile's first
// k-step before its k loop, and each next one in the k loop under a
// condition on the k index): every barrier of the ring counts one arrival,
// every arrival is an arrive_expect_tx with the bulk copies of its step in
// its block, so each phase is one step; a step whose expected bytes differ
// from its copies' never completes its phase (more) or completes it before
// the data has landed (fewer), in every launch that waits for it (every
// CTA waits its first tile's first k-step: an error). And class 6's
// severity where the wait runs in some launches only (a warning).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The first k-step expects a 128-row A block plus B (12288) where its
// copies bring 8192.
gpu.module @first_step_expects_more {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %first_bytes = arith.constant 12288 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %pid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %nprog = arith.index_cast %grid_x : index to i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %fin = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
      %row = arith.muli %tile, %i64 : i32
      // The tile's first k-step, issued before its k loop.
      scf.if %t0 {
        %idx = arith.remui %cnt0, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %off = arith.muli %idx, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        // expected-error @+1 {{expects 12288 transaction bytes on the barrier, but the bulk copies of its step (its block) bring 8192 bytes, and every phase of the barrier is one such step (one arrive_expect_tx, the only arrival its count of 1 takes, and the copies issued with it): the phase never completes}}
        mbarrier.arrive_expect_tx %bars[%s], %first_bytes : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      %r = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
        gpu.barrier
        // The next k-step, where there is one (a condition on the k index).
        %kn = arith.addi %kt, %i1 : i32
        %more = arith.cmpi ult, %kn, %k_tiles : i32
        %issue = arith.andi %t0, %more : i1
        scf.if %issue {
          %cn = arith.addi %cnt, %i1 : i32
          %nidx = arith.remui %cn, %i2 : i32
          %ns = arith.index_cast %nidx : i32 to index
          %noff = arith.muli %nidx, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kn, %i64 : i32
          mbarrier.arrive_expect_tx %bars[%ns], %i8192 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %bars[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bars[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %idx = arith.remui %cnt, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %lap = arith.divui %cnt, %i2 : i32
        %phase = arith.andi %lap, %i1 : i32
        mbarrier.wait %bars[%s], %phase : !mbarrier.group<2>
        %cnt2 = arith.addi %cnt, %i1 : i32
        scf.yield %cnt2 : i32
      }
      scf.yield %r : i32
    }
    gpu.return
  }
}

// -----

// The same step expecting the A block only (4096).
gpu.module @first_step_expects_fewer {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %first_bytes = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %pid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %nprog = arith.index_cast %grid_x : index to i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %fin = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
      %row = arith.muli %tile, %i64 : i32
      // The tile's first k-step, issued before its k loop.
      scf.if %t0 {
        %idx = arith.remui %cnt0, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %off = arith.muli %idx, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        // expected-error @+1 {{expects 4096 transaction bytes on the barrier, but the bulk copies of its step (its block) bring 8192 bytes, and every phase of the barrier is one such step (one arrive_expect_tx, the only arrival its count of 1 takes, and the copies issued with it): the phase can complete before all the data has landed}}
        mbarrier.arrive_expect_tx %bars[%s], %first_bytes : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      %r = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
        gpu.barrier
        // The next k-step, where there is one (a condition on the k index).
        %kn = arith.addi %kt, %i1 : i32
        %more = arith.cmpi ult, %kn, %k_tiles : i32
        %issue = arith.andi %t0, %more : i1
        scf.if %issue {
          %cn = arith.addi %cnt, %i1 : i32
          %nidx = arith.remui %cn, %i2 : i32
          %ns = arith.index_cast %nidx : i32 to index
          %noff = arith.muli %nidx, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kn, %i64 : i32
          mbarrier.arrive_expect_tx %bars[%ns], %i8192 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %bars[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bars[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %idx = arith.remui %cnt, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %lap = arith.divui %cnt, %i2 : i32
        %phase = arith.andi %lap, %i1 : i32
        mbarrier.wait %bars[%s], %phase : !mbarrier.group<2>
        %cnt2 = arith.addi %cnt, %i1 : i32
        scf.yield %cnt2 : i32
      }
      scf.yield %r : i32
    }
    gpu.return
  }
}

// -----

// The correct kernel: every step expects its copies' 8192 bytes. Silent.
gpu.module @steps_that_match {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %first_bytes = arith.constant 8192 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %pid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %nprog = arith.index_cast %grid_x : index to i32
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %t0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %fin = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
      %row = arith.muli %tile, %i64 : i32
      // The tile's first k-step, issued before its k loop.
      scf.if %t0 {
        %idx = arith.remui %cnt0, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %off = arith.muli %idx, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %bars[%s], %first_bytes : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      %r = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
        gpu.barrier
        // The next k-step, where there is one (a condition on the k index).
        %kn = arith.addi %kt, %i1 : i32
        %more = arith.cmpi ult, %kn, %k_tiles : i32
        %issue = arith.andi %t0, %more : i1
        scf.if %issue {
          %cn = arith.addi %cnt, %i1 : i32
          %nidx = arith.remui %cn, %i2 : i32
          %ns = arith.index_cast %nidx : i32 to index
          %noff = arith.muli %nidx, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kn, %i64 : i32
          mbarrier.arrive_expect_tx %bars[%ns], %i8192 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %bars[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bars[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %idx = arith.remui %cnt, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %lap = arith.divui %cnt, %i2 : i32
        %phase = arith.andi %lap, %i1 : i32
        mbarrier.wait %bars[%s], %phase : !mbarrier.group<2>
        %cnt2 = arith.addi %cnt, %i1 : i32
        scf.yield %cnt2 : i32
      }
      scf.yield %r : i32
    }
    gpu.return
  }
}

// -----

// Fewer bytes expected than copied, in one context, where only the launches
// with %n >= 2 wait for the phase: a launch of %n = 1 reads nothing, and the
// report is a warning (with a wait in every launch, an error:
// expect-tx.mlir).
gpu.module @fewer_bytes_waited_in_some_launches {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_a: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %t0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %t0 {
      mbarrier.init %bar[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %a = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    scf.if %t0 {
      // expected-warning @+1 {{expects 4096 transaction bytes on the barrier, but the bulk copies that complete on it bring 8192 bytes: the phase can complete before all the data has landed}}
      mbarrier.arrive_expect_tx %bar[%c0], %i4096 : !mbarrier.group<1>
      mbarrier.cp_async_bulk_tensor %bar[%c0], %a, %map_a[%i0, %i0], bytes 8192 : !mbarrier.group<1>, !llvm.ptr
    }
    // Only launches with %n >= 2 read the tile.
    %reads = arith.cmpi uge, %n, %i2 : i32
    scf.if %reads {
      mbarrier.wait %bar[%c0], %i0 : !mbarrier.group<1>
    }
    gpu.return
  }
}
