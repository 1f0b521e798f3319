// Barriers made with mbarrier.view (a frontend's own shared-memory pool):
// views of one pointer are one group, and a view whose memory is also
// reached otherwise (its pointer handed to a bulk copy as the barrier, a
// pointer into it used as a barrier address, another view that may
// overlap it) is neither counted nor followed
// (the reproducers: a view's barrier handed to a raw bulk copy, its correct
// twin, and two views of the same shared memory).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct (s2f): the copy completes on the pool pointer itself, not on an
// mbarrier.ptr of the view: its 1024 bytes land on the barrier unseen, so
// the view is not counted.
gpu.module @view_raw_copy {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %p = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %d = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %p, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct (s2f-ok): the copy completes on mbarrier.ptr of the view, which
// is counted: 1024 bytes expected, 1024 copied.
gpu.module @view_ptr_copy {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %p = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %d = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
    %bp = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Buggy twin of s2f-ok: the view is counted, and 512 bytes are expected
// where 1024 land: the phase completes before all the data has.
gpu.module @view_ptr_copy_short {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %half = arith.constant 512 : i32
    %bytes = arith.constant 1024 : i32
    %p = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %d = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    // expected-error @+1 {{expects 512 transaction bytes on the barrier, but the bulk copies that complete on it bring 1024 bytes: the phase can complete before all the data has landed}}
    mbarrier.arrive_expect_tx %g[%c0], %half : !mbarrier.group<1>
    %bp = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct (s2g): two views of one pointer are one barrier: thread 0
// arrives through one, thread 1 through the other, count 2.
gpu.module @two_views {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  gpu.func @k() kernel attributes {known_block_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %two = arith.constant 2 : i32
    %tid = gpu.thread_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %t1 = arith.cmpi eq, %tid, %c1 : index
    %p = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %a = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    %b = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    scf.if %t0 {
      mbarrier.init %a[%c0], %two : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %a[%c0] if %t0 : !mbarrier.group<1>
    mbarrier.arrive %b[%c0] if %t1 : !mbarrier.group<1>
    mbarrier.wait %a[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Buggy twin of s2g: still one barrier, but only thread 0 arrives (once
// through each view): 2 of a count of 3.
gpu.module @two_views_short {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  gpu.func @k() kernel attributes {known_block_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %three = arith.constant 3 : i32
    %tid = gpu.thread_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %p = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %a = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    %b = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
    scf.if %t0 {
      mbarrier.init %a[%c0], %three : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %a[%c0] if %t0 : !mbarrier.group<1>
    mbarrier.arrive %b[%c0] if %t0 : !mbarrier.group<1>
    // expected-error @+1 {{waits for a phase that never completes: the barrier receives 2 arrival(s) in the whole kernel but is initialized with arrival count 3}}
    mbarrier.wait %a[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// A pool laid out as the lang frontend does: the barrier at the pool's
// start, a data buffer at a constant offset of the same pointer. The data
// pointer does not reach the barrier, so the view is counted (the buggy
// kernel expects 2048 bytes where 1024 land) ...
gpu.module @pool_layout {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1152 x i8>
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %twice = arith.constant 2048 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %data = llvm.getelementptr %base[128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %d7 = llvm.addrspacecast %data : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    // expected-error @+1 {{expects 2048 transaction bytes on the barrier, but the bulk copies that complete on it bring 1024 bytes: the phase never completes}}
    mbarrier.arrive_expect_tx %g[%c0], %twice : !mbarrier.group<1>
    %bp = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// ... while a pointer into the barrier makes it open. Correct: a second
// view of the same memory (the pool pointer plus 0 bytes), or a second
// addressof of the pool, is the barrier a copy completes on; counted as
// separate barriers these kernels would expect 1024 bytes that never come.
gpu.module @pointers_into_the_barrier {
  llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1152 x i8>
  gpu.func @offset_zero_view(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %same = llvm.getelementptr %base[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %data = llvm.getelementptr %base[128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %d7 = llvm.addrspacecast %data : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<1>
    %h = mbarrier.view %same : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
    %hp = mbarrier.ptr %h[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %hp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  gpu.func @second_addressof(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %base = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %again = llvm.mlir.addressof @pool : !llvm.ptr<3>
    %data = llvm.getelementptr %base[128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %d7 = llvm.addrspacecast %data : !llvm.ptr<3> to !llvm.ptr<7>
    %g = mbarrier.view %base : !llvm.ptr<3> -> !mbarrier.group<1>
    mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
    nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %again, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
