// Class 10 between threads: the issuing thread releases a bulk store's
// staging buffer (an mbarrier arrival on the barrier of the store's stage)
// before cp.async.bulk.wait_group.read frees the store's group, and the
// threads that wait on that barrier write the buffer next
// (ThunderKittens' lcsf storer arriving outputs_finished before
// tma::store_async_read_wait()): they may overwrite what the store has not
// read yet, in some launches (a warning at the arrival).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The storer (thread 32) stores stage s, commits, and arrives finished[s]
// before its read wait; the consumers (warp 4) wait finished[s] and write
// the stage.
gpu.module @released_before_the_read_wait {
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %arrived = mbarrier.alloc : !mbarrier.group<2>
    %finished = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %arrived[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %arrived[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %finished[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %finished[%c1], %i1 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    gpu.barrier
    %out = llvm.mlir.addressof @out_s : !llvm.ptr<3>
    %is_storer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_storer {
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %arrived[%s], %ph : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %src = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %src, box[%i0, %t] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        // expected-warning @+1 {{releases the staging buffer of a bulk store that may still be reading it: no cp.async.bulk.wait_group.read between them frees the store's group (0 group(s) were committed after its own), and the threads that wait on this barrier write the buffer next, on some launches before the store has read it (wait with cp.async.bulk.wait_group.read 0 before the arrival: ThunderKittens' tma::store_async_read_wait())}}
        mbarrier.arrive %finished[%s] : !mbarrier.group<2>
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      nvvm.cp.async.bulk.wait_group 0
    }
    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %finished[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %o4 = arith.muli %ctid, %i4 : i32
        %off = arith.addi %off0, %o4 : i32
        %q = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = arith.constant 1.0 : f32
        llvm.store %v, %q : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.arrive %arrived[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The read wait before the arrival (ThunderKittens' order): silent.
gpu.module @released_after_the_read_wait {
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %arrived = mbarrier.alloc : !mbarrier.group<2>
    %finished = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %arrived[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %arrived[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %finished[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %finished[%c1], %i1 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    gpu.barrier
    %out = llvm.mlir.addressof @out_s : !llvm.ptr<3>
    %is_storer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_storer {
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %arrived[%s], %ph : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %src = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %src, box[%i0, %t] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0 {read}
        mbarrier.arrive %finished[%s] : !mbarrier.group<2>
      }
      nvvm.cp.async.bulk.wait_group 0
    }
    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %finished[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %o4 = arith.muli %ctid, %i4 : i32
        %off = arith.addi %off0, %o4 : i32
        %q = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = arith.constant 1.0 : f32
        llvm.store %v, %q : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.arrive %arrived[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// A single output buffer released before the store is even committed: the
// consumer writes the next tile after its wait. A warning.
gpu.module @released_before_the_commit {
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %finished = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %finished[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %out = llvm.mlir.addressof @out_s : !llvm.ptr<3>
    scf.if %is_tid0 {
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %out, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      // expected-warning @+1 {{releases the staging buffer of a bulk store that may still be reading it: the store's bulk async-group is not committed (cp.async.bulk.commit_group), so no wait_group.read frees it}}
      mbarrier.arrive %finished[%c0] : !mbarrier.group<1>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0
    }
    %is_writer = arith.cmpi uge, %tid, %i32 : i32
    scf.if %is_writer {
      mbarrier.wait %finished[%c0], %i0 : !mbarrier.group<1>
      %v = arith.constant 1.0 : f32
      llvm.store %v, %out : f32, !llvm.ptr<3>
    }
    gpu.return
  }
}

// -----

// The waiters of the released barrier only read other memory: nothing
// overwrites the buffer. Silent.
gpu.module @released_to_threads_that_do_not_write_it {
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @other() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %done = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %done[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %out = llvm.mlir.addressof @out_s : !llvm.ptr<3>
    %other = llvm.mlir.addressof @other : !llvm.ptr<3>
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %out, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      mbarrier.arrive %done[%c0] : !mbarrier.group<1>
      nvvm.cp.async.bulk.wait_group 0
    }
    %is_writer = arith.cmpi uge, %tid, %i32 : i32
    scf.if %is_writer {
      mbarrier.wait %done[%c0], %i0 : !mbarrier.group<1>
      %v = arith.constant 1.0 : f32
      llvm.store %v, %other : f32, !llvm.ptr<3>
    }
    gpu.return
  }
}

// -----

// A ring of two staging buffers: the storer frees the previous trip's
// store (wait_group.read 1) and releases that stage, not the one it just
// stored. Silent.
gpu.module @ring_releases_the_previous_stage {
  llvm.mlir.global internal @out_s() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %arrived = mbarrier.alloc : !mbarrier.group<2>
    %finished = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %arrived[%c0], %i32 : !mbarrier.group<2>
      mbarrier.init %arrived[%c1], %i32 : !mbarrier.group<2>
      mbarrier.init %finished[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %finished[%c1], %i1 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    gpu.barrier
    %out = llvm.mlir.addressof @out_s : !llvm.ptr<3>
    %is_storer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_storer {
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %arrived[%s], %ph : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %src = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %src, box[%i0, %t] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 1 {read}
        %t1 = arith.addi %t, %i1 : i32
        %p32 = arith.remui %t1, %i2 : i32
        %p = arith.index_cast %p32 : i32 to index
        mbarrier.arrive %finished[%p] : !mbarrier.group<2>
      }
      nvvm.cp.async.bulk.wait_group 0
    }
    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      scf.for %t = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %t, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %t, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %finished[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %o4 = arith.muli %ctid, %i4 : i32
        %off = arith.addi %off0, %o4 : i32
        %q = llvm.getelementptr %out[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = arith.constant 1.0 : f32
        llvm.store %v, %q : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.arrive %arrived[%s] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}
