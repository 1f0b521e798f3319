// Class 6 with byte counts from a kernel parameter (cccl#8800: the byte
// offsets of cub's bulk-copy transform, where the expected count also took
// the 128-byte tile padding that is never copied): the expect-tx and the
// copies run once each in one block, so each thread's expected bytes less
// its copies' bytes compare as linear forms over the parameter.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The expect-tx counts 2 x (n + 128) bytes, the copies bring 2 x n: the
// phase never completes for any n.
gpu.module @padding_expected {
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %pad = arith.constant 128 : i32
    %four = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %size = arith.muli %n, %four : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
      %padded = arith.addi %size, %pad : i32
      %total = arith.addi %padded, %padded : i32
      // expected-error @+1 {{expects 256 transaction bytes more than the bulk copies that complete on the barrier bring, for every value of the kernel parameters: the phase never completes}}
      mbarrier.arrive_expect_tx %g[%c0], %total : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
}

// -----

// Fewer expected than copied (one copy's bytes less a 16-byte header the
// count leaves out): the phase can complete before the data has landed.
gpu.module @header_left_out {
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %hdr = arith.constant 16 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      %size = arith.addi %n, %hdr : i32
      // expected-error @+1 {{expects 16 transaction bytes fewer than the bulk copies that complete on the barrier bring, for every value of the kernel parameters: the phase can complete before all the data has landed}}
      mbarrier.arrive_expect_tx %g[%c0], %n : !mbarrier.group<1>
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
}

// -----

// Correct: the expect-tx sums the two copies' parameter-sized bytes.
gpu.module @sum_of_copies {
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %four = arith.constant 4 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %size = arith.muli %n, %four : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
      %total = arith.muli %size, %two : i32
      mbarrier.arrive_expect_tx %g[%c0], %total : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
}

// -----

// Silent: the bytes differ by a parameter (%m against %n), which the
// analysis cannot decide.
gpu.module @two_parameters {
  gpu.func @k(%src: !llvm.ptr<1>, %n: i32, %m: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      mbarrier.arrive_expect_tx %g[%c0], %m : !mbarrier.group<1>
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %n : !llvm.ptr<3>, !llvm.ptr<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<32768 x i8>
}
