// A bulk store's shared source written again before the wait_group.read
// that frees it (docs/checker.md, "Staging buffers"): an error where the
// store is still reading on every path, a warning where only on some (a
// loop that may run no trip), silence where a branch cannot be decided or
// the write lands elsewhere.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Thread 0 stores the staging buffer and commits; every thread writes the
// next tile into it at once: the store may not have read it yet.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @staging_buffer_written_before_the_wait(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.if %leader {
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
    }
    nvvm.barrier0
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-error @+1 {{writes shared memory that a bulk store may still be reading (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0 by the thread that issued it before the buffer is written again (0 group(s) were committed after the store's own)}}
    llvm.store %t, %p : i32, !llvm.ptr<3>
    gpu.return
  }
}

// -----

// The wait is there, but the store was never committed: wait_group.read
// does not wait for the thread's open group.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @store_never_committed(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.if %leader {
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-error @+1 {{the store's bulk async-group is not committed (cp.async.bulk.commit_group), so no wait_group.read waits for it}}
    llvm.store %t, %p : i32, !llvm.ptr<3>
    gpu.return
  }
}

// -----

// Two stores from one buffer, one group each; `wait_group.read 1` frees
// only the first store's group: the second still reads the buffer.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @wait_leaves_the_newest_group_pending(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    %other = llvm.getelementptr %buf[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    scf.if %leader {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %other, box[%i0, %i32] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 1 {read}
    }
    nvvm.barrier0
    // The first store's buffer is free: no report.
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %t, %p : i32, !llvm.ptr<3>
    %q = llvm.getelementptr %other[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-error @+1 {{writes shared memory that a bulk store may still be reading (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0}}
    llvm.store %t, %q : i32, !llvm.ptr<3>
    gpu.return
  }
}

// -----

// The wait in a loop that may run no trip (%n = 0): on those launches the
// buffer is written while the store reads it.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @wait_in_a_loop_that_may_not_run(%map: !llvm.ptr, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.if %leader {
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      scf.for %i = %c0 to %n step %c1 {
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
    }
    nvvm.barrier0
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-warning @+1 {{writes shared memory that a bulk store may still be reading on some launches (thread 0 writes into its source)}}
    llvm.store %t, %p : i32, !llvm.ptr<3>
    gpu.return
  }
}

// -----

// One staging buffer reused every trip with `wait_group.read 1`: the
// previous trip's store (the newest group) may still read it. A warning:
// the loop may run fewer than two trips.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @single_buffer_reused_with_a_lax_wait(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %k = %i0 to %n step %i1 : i32 {
      scf.if %leader {
        nvvm.cp.async.bulk.wait_group 1 {read}
      }
      nvvm.barrier0
      %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      // expected-warning @+1 {{writes shared memory that a bulk store may still be reading on some launches (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0}}
      llvm.store %k, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %k] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    gpu.return
  }
}

// -----

// Correct uses: silent. The wait before the barrier, then the writes; a
// write into another buffer of the allocation; a two-buffer ring whose
// stage the checker cannot evaluate (an iter-dependent offset); a wait
// under a condition the model cannot decide.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @correct_waits_are_silent(%map: !llvm.ptr, %n: i32, %c: i1) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    %other = llvm.getelementptr %buf[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    scf.if %leader {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
    }
    nvvm.barrier0
    %q = llvm.getelementptr %other[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %t, %q : i32, !llvm.ptr<3>
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %t, %p : i32, !llvm.ptr<3>
    scf.for %k = %i0 to %n step %i1 : i32 {
      %s = arith.remui %k, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.if %leader {
        nvvm.cp.async.bulk.wait_group 1 {read}
      }
      nvvm.barrier0
      %e = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      llvm.store %k, %e : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %k] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      scf.if %c {
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
    }
    nvvm.barrier0
    llvm.store %t, %p : i32, !llvm.ptr<3>
    gpu.return
  }
}

// -----

// The other bulk copies that read shared memory into global memory: a
// plain cp.async.bulk store and a tensor reduction (add), each its own
// group; one wait_group.read 1 frees the first only.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @plain_bulk_store_and_reduction(%map: !llvm.ptr, %dst: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %size = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    %other = llvm.getelementptr %buf[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    scf.if %leader {
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.global.shared.cta %dst, %buf, %size : !llvm.ptr<1>, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      // expected-note @+1 {{the bulk store that reads the buffer}}
      nvvm.cp.async.bulk.tensor.reduce %map, %other, box[%i0, %i0] {redKind = #nvvm.tma_redux_kind<add>, mode = #nvvm.tma_store_mode<tile>} : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
    }
    nvvm.barrier0
    %p = llvm.getelementptr %buf[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-error @+1 {{writes shared memory that a bulk store may still be reading (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 1}}
    llvm.store %t, %p : i32, !llvm.ptr<3>
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 1 {read}
    }
    nvvm.barrier0
    llvm.store %t, %p : i32, !llvm.ptr<3>
    %q = llvm.getelementptr %other[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // expected-error @+1 {{writes shared memory that a bulk store may still be reading (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0}}
    llvm.store %t, %q : i32, !llvm.ptr<3>
    gpu.return
  }
}
