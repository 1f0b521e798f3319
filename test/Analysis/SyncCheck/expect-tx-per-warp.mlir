// Class 6 with a barrier index that differs between the threads: lane 0 of
// each warp runs its own ring (DeepEP's dispatch/combine warps: tma_load_1d
// and mbarrier_arrive_and_expect_tx on the warp's stage). Each thread
// expects bytes and copies onto the barrier of the same index value; where
// every thread's expected bytes differ from its copies' in the same way,
// every barrier does.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// 2048 expected bytes for a 1024-byte copy: the phase never completes.
gpu.module @expect_more_than_copied {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i1024 = arith.constant 1024 : i32
    %bytes = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %lane = arith.remui %t, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c2], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    scf.if %lane0 {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %w2 = arith.muli %warp, %i2 : i32
        %b32 = arith.addi %s, %w2 : i32
        %b = arith.index_cast %b32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %soff = arith.muli %b32, %i1024 : i32
        %stage = llvm.getelementptr %ring[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bar = mbarrier.ptr %full[%b] : !mbarrier.group<4> -> !llvm.ptr<3>
        // expected-error @+1 {{expects 2048 transaction bytes on the barrier each of its threads addresses, but the bulk copies that complete on it bring 1024 bytes: the phase never completes}}
        mbarrier.arrive_expect_tx %full[%b], %bytes : !mbarrier.group<4>
        nvvm.cp.async.bulk.shared.cluster.global %stage, %src, %bar, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
        mbarrier.wait %full[%b], %ph : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: 1024 and 1024. Silent.
gpu.module @expect_what_is_copied {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i1024 = arith.constant 1024 : i32
    %bytes = arith.constant 1024 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %lane = arith.remui %t, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c2], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    scf.if %lane0 {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %w2 = arith.muli %warp, %i2 : i32
        %b32 = arith.addi %s, %w2 : i32
        %b = arith.index_cast %b32 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %soff = arith.muli %b32, %i1024 : i32
        %stage = llvm.getelementptr %ring[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bar = mbarrier.ptr %full[%b] : !mbarrier.group<4> -> !llvm.ptr<3>
        mbarrier.arrive_expect_tx %full[%b], %bytes : !mbarrier.group<4>
        nvvm.cp.async.bulk.shared.cluster.global %stage, %src, %bar, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
        mbarrier.wait %full[%b], %ph : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}
