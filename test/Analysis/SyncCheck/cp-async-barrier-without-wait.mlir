// Class 18: a CTA barrier that orders a read of a cp.async copy's bytes,
// with no cp.async.wait_group of the copying thread between its previous
// CTA barrier and it (NVIDIA/cutlass examples/cute/tutorial/sgemm_sm80.cu
// with its mainloop's cp_async_wait<K_PIPE_MAX - 2>() left out and the
// __syncthreads() kept): the earlier wait was published by the earlier
// barrier, and this one has none of its own, so the report is at this
// barrier.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Three stages, the prologue's two tiles waited with wait_group 1 and a
// barrier; the mainloop's wait left out: from tile 1 on, thread 0 reads
// thread 32's bytes of a stage whose copy may be in flight.
gpu.module @missing_wait {
  llvm.mlir.global internal @sA() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @k(%a: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sA = llvm.mlir.addressof @sA : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %other_t0 = arith.addi %tid, %i32 : i32
    %other_t = arith.remui %other_t0, %i128 : i32
    %other = arith.muli %other_t, %i16 : i32
    scf.for %t = %i0 to %i2 step %i1 : i32 {
      %in_range = arith.cmpi slt, %t, %k_tiles : i32
      scf.if %in_range {
        %soff0 = arith.muli %t, %i2048 : i32
        %soff = arith.addi %soff0, %mine : i32
        %ga = llvm.getelementptr %a[%soff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        // expected-note @+1 {{the cp.async copy whose group is pending}}
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    // expected-note @+1 {{the copying thread's last cp.async.wait_group, before its previous CTA barrier}}
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %z = arith.constant 0.0 : f32
    %acc = scf.for %t = %i0 to %k_tiles step %i1 iter_args(%sum = %z) -> (f32) : i32 {
      %tw = arith.addi %t, %i2 : i32
      %more = arith.cmpi slt, %tw, %k_tiles : i32
      scf.if %more {
        %ws = arith.remui %tw, %i3 : i32
        %woff0 = arith.muli %ws, %i2048 : i32
        %woff = arith.addi %woff0, %mine : i32
        %goff0 = arith.muli %tw, %i2048 : i32
        %goff = arith.addi %goff0, %mine : i32
        %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rs = arith.remui %t, %i3 : i32
      %roff0 = arith.muli %rs, %i2048 : i32
      %roff = arith.addi %roff0, %other : i32
      %pa = llvm.getelementptr %sA[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+1 {{the read of its destination}}
      %xa = llvm.load %pa : !llvm.ptr<3> -> f32
      %sum2 = arith.addf %sum, %xa : f32
      // expected-warning @+1 {{orders a read by thread 0 of shared memory that a cp.async copy (by thread 32) may still be writing on some launches: no cp.async.wait_group of the copying thread completes the copy's group between its previous CTA barrier and this one, and a CTA barrier does not wait for cp.async copies; wait (cp.async.wait_group) before this barrier}}
      gpu.barrier
      scf.yield %sum2 : f32
    }
    %op = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// Correct: the mainloop waits with wait_group 1 before its barrier.
gpu.module @with_wait {
  llvm.mlir.global internal @sA() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @k(%a: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sA = llvm.mlir.addressof @sA : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %other_t0 = arith.addi %tid, %i32 : i32
    %other_t = arith.remui %other_t0, %i128 : i32
    %other = arith.muli %other_t, %i16 : i32
    scf.for %t = %i0 to %i2 step %i1 : i32 {
      %in_range = arith.cmpi slt, %t, %k_tiles : i32
      scf.if %in_range {
        %soff0 = arith.muli %t, %i2048 : i32
        %soff = arith.addi %soff0, %mine : i32
        %ga = llvm.getelementptr %a[%soff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %z = arith.constant 0.0 : f32
    %acc = scf.for %t = %i0 to %k_tiles step %i1 iter_args(%sum = %z) -> (f32) : i32 {
      %tw = arith.addi %t, %i2 : i32
      %more = arith.cmpi slt, %tw, %k_tiles : i32
      scf.if %more {
        %ws = arith.remui %tw, %i3 : i32
        %woff0 = arith.muli %ws, %i2048 : i32
        %woff = arith.addi %woff0, %mine : i32
        %goff0 = arith.muli %tw, %i2048 : i32
        %goff = arith.addi %goff0, %mine : i32
        %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rs = arith.remui %t, %i3 : i32
      %roff0 = arith.muli %rs, %i2048 : i32
      %roff = arith.addi %roff0, %other : i32
      %pa = llvm.getelementptr %sA[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %xa = llvm.load %pa : !llvm.ptr<3> -> f32
      %sum2 = arith.addf %sum, %xa : f32
      nvvm.cp.async.wait.group 1
      gpu.barrier
      scf.yield %sum2 : f32
    }
    %op = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
