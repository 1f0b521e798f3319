// Class 10 on rings of staging buffers (DeepEP#657; CUTLASS's
// PipelineTmaStore): buffer (t + c) mod D written in trip t while the store
// of an earlier trip from that buffer may still be reading. One commit per
// trip; the issuing thread's wait_group.read N before the trip's writes
// frees every store but those of the last N trips.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A ring of two staging buffers indexed by the trip (t mod 2), four trips,
// and the issuing thread's wait_group.read 2 before each trip's writes: it
// leaves both of the last two stores pending, and trip 2 writes the buffer
// of trip 0's store (DeepEP#657: the ring's wait must leave at most D - 1
// groups pending). An error.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_wait_too_weak(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %i = %i0 to %i4 step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.if %leader {
        // expected-error @+1 {{frees too few bulk async-groups for the write after it, which writes a staging buffer of a ring of 2 that the bulk store of 2 trip(s) earlier may still be reading: the loop commits one bulk async-group per trip, and the cp.async.bulk.wait_group.read 2 before the write keeps the newest 2 group(s) pending; wait with cp.async.bulk.wait_group.read 1 (StorePipeline.acquire()) by the issuing thread before the buffer is written again}}
        nvvm.cp.async.bulk.wait_group 2 {read}
      }
      nvvm.barrier0
      %p = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      // expected-note @+1 {{the write into the buffer}}
      llvm.store %t, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// The same wait_group.read 2 with a run-time trip count (CUTLASS's
// epilogue over %n subtiles with tma_store_wait<Stages> for <Stages - 1>):
// a launch of three trips or more races; reported at the wait, whose N is
// the bug, with a note at the write. A warning.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_wait_too_weak_runtime_trips(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %i = %i0 to %n step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.if %leader {
        // expected-warning @+1 {{frees too few bulk async-groups for the write after it, which writes a staging buffer of a ring of 2 that the bulk store of 2 trip(s) earlier may still be reading (in a launch of more than 2 trips): the loop commits one bulk async-group per trip, and the cp.async.bulk.wait_group.read 2 before the write keeps the newest 2 group(s) pending; wait with cp.async.bulk.wait_group.read 1 (StorePipeline.acquire()) by the issuing thread before the buffer is written again}}
        nvvm.cp.async.bulk.wait_group 2 {read}
      }
      nvvm.barrier0
      %p = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      // expected-note @+1 {{the write into the buffer}}
      llvm.store %t, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// No wait in the loop at all, a run-time trip count: a launch of more than
// two trips rewrites trip 0's buffer under its store. A warning.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_without_wait(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %i = %i0 to %n step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      nvvm.barrier0
      %p = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      // expected-warning @+1 {{writes a staging buffer of a ring of 2 that the bulk store of 2 trip(s) earlier may still be reading (in a launch of more than 2 trips): the loop commits one bulk async-group per trip, and no cp.async.bulk.wait_group.read precedes the write in the trip; wait with cp.async.bulk.wait_group.read 1 (StorePipeline.acquire()) by the issuing thread before the buffer is written again}}
      llvm.store %t, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// The correct twin (CUTLASS's PipelineTmaStore: producer_acquire is
// tma_store_wait<Stages - 1>): wait_group.read 1 frees the store of two
// trips before. Silent.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_wait_depth_minus_one(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %i = %i0 to %n step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.if %leader {
        nvvm.cp.async.bulk.wait_group 1 {read}
      }
      nvvm.barrier0
      %p = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      llvm.store %t, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// Two trips only: the ring's second buffer is fresh. Silent.
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_two_trips(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %tid, %c0 : index
    %buf = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %i = %i0 to %i2 step %i1 : i32 {
      %s = arith.remui %i, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %stage = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      nvvm.barrier0
      %p = llvm.getelementptr %stage[%t] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      llvm.store %t, %p : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %stage, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    nvvm.barrier0
    gpu.return
  }
}
