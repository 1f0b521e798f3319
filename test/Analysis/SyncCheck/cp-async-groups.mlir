// Class 18: shared memory read while a cp.async group may still be writing
// it. Per thread, cp.async-groups are committed in order and
// cp.async.wait_group N completes all but the newest N; a CTA barrier after
// the wait publishes the copies to the other threads.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// CUTLASS's SM80 multistage mainloop (cutlass/gemm/collective/
// sm80_mma_multistage.hpp, Stages = 3): a prologue of Stages - 1 tiles, one
// group each; per k-tile cp_async_wait<Stages - 2>() and __syncthreads()
// before the stage smem_pipe_read is read, then the next tile into
// smem_pipe_write (the stage read one trip before) and a commit; the read and
// write stages carried by the loop and wrapped by hand. Each thread reads the
// bytes its neighbour copied. Silent.
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @sm80_multistage(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i6 = arith.constant 6 : i32
    %i16 = arith.constant 16 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %nb0 = arith.addi %tid, %i1 : i32
    %nb = arith.andi %nb0, %i127 : i32
    %their = arith.muli %nb, %i16 : i32
    scf.for %s = %i0 to %i2 step %i1 : i32 {
      %soff = arith.muli %s, %i2048 : i32
      %d = arith.addi %soff, %my : i32
      %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
    }
    %acc0 = arith.constant 0.0 : f32
    %r:3 = scf.for %k = %i0 to %i6 step %i1 iter_args(%rd = %i0, %wr = %i2, %acc = %acc0) -> (i32, i32, f32) : i32 {
      nvvm.cp.async.wait.group 1
      gpu.barrier
      %roff = arith.muli %rd, %i2048 : i32
      %ra = arith.addi %roff, %their : i32
      %rp = llvm.getelementptr %base[%ra] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %acc2 = arith.addf %acc, %x : f32
      %next = arith.addi %k, %i2 : i32
      %live = arith.cmpi slt, %next, %i6 : i32
      scf.if %live {
        %woff = arith.muli %wr, %i2048 : i32
        %d = arith.addi %woff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %next, %i2048 : i32
        %gs = arith.addi %g, %my : i32
        %src = llvm.getelementptr %a[%gs] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rd1 = arith.addi %rd, %i1 : i32
      %rdw = arith.cmpi eq, %rd1, %i3 : i32
      %rdn = arith.select %rdw, %i0, %rd1 : i32
      %wr1 = arith.addi %wr, %i1 : i32
      %wrw = arith.cmpi eq, %wr1, %i3 : i32
      %wrn = arith.select %wrw, %i0, %wr1 : i32
      scf.yield %rdn, %wrn, %acc2 : i32, i32, f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %r#2, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The same mainloop with cp_async_wait<Stages - 1>: in the first trip both
// prologue groups may be pending, tile 0's among them, when the neighbour
// reads it. Six trips on every launch: an error, at the wait.
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @sm80_wait_too_loose(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i6 = arith.constant 6 : i32
    %i16 = arith.constant 16 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %nb0 = arith.addi %tid, %i1 : i32
    %nb = arith.andi %nb0, %i127 : i32
    %their = arith.muli %nb, %i16 : i32
    scf.for %s = %i0 to %i2 step %i1 : i32 {
      %soff = arith.muli %s, %i2048 : i32
      %d = arith.addi %soff, %my : i32
      %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      // expected-note @+1 {{the cp.async copy whose group is pending}}
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
    }
    %acc0 = arith.constant 0.0 : f32
    %r:3 = scf.for %k = %i0 to %i6 step %i1 iter_args(%rd = %i0, %wr = %i2, %acc = %acc0) -> (i32, i32, f32) : i32 {
      // expected-error @+1 {{leaves pending the cp.async-group of a copy that thread 0 reads: 1 group(s) were committed after the copy's own when the wait ran, so the copy (by thread 1) may still be writing the shared memory before the CTA barrier that orders the read; wait with cp.async.wait_group 1 (or commit one group per stage and wait for all but the stages still in flight)}}
      nvvm.cp.async.wait.group 2
      gpu.barrier
      %roff = arith.muli %rd, %i2048 : i32
      %ra = arith.addi %roff, %their : i32
      %rp = llvm.getelementptr %base[%ra] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+1 {{the read of its destination}}
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %acc2 = arith.addf %acc, %x : f32
      %next = arith.addi %k, %i2 : i32
      %live = arith.cmpi slt, %next, %i6 : i32
      scf.if %live {
        %woff = arith.muli %wr, %i2048 : i32
        %d = arith.addi %woff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %next, %i2048 : i32
        %gs = arith.addi %g, %my : i32
        %src = llvm.getelementptr %a[%gs] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rd1 = arith.addi %rd, %i1 : i32
      %rdw = arith.cmpi eq, %rd1, %i3 : i32
      %rdn = arith.select %rdw, %i0, %rd1 : i32
      %wr1 = arith.addi %wr, %i1 : i32
      %wrw = arith.cmpi eq, %wr1, %i3 : i32
      %wrn = arith.select %wrw, %i0, %wr1 : i32
      scf.yield %rdn, %wrn, %acc2 : i32, i32, f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %r#2, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// Marlin's pipeline (IST-DASLab/marlin marlin_cuda_kernel.cu: stages = 4,
// start_pipes fetches stages - 1 tiles, each fenced with cp_async_fence,
// empty where past the slice; wait_for_stage is cp_async_wait<stages - 2>()
// and __syncthreads(); the next fetch goes to (pipe + stages - 1) % stages),
// with a trip count from a kernel parameter and the stage from the trip
// (k mod 4). Silent.
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @marlin_pipe(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i1024 = arith.constant 1024 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %rev = arith.subi %i1024, %my : i32
    %their = arith.subi %rev, %i16 : i32
    scf.for %s = %i0 to %i3 step %i1 : i32 {
      %live = arith.cmpi slt, %s, %n : i32
      scf.if %live {
        %soff = arith.muli %s, %i2048 : i32
        %d = arith.addi %soff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %acc0 = arith.constant 0.0 : f32
    %acc = scf.for %k = %i0 to %n step %i1 iter_args(%a0 = %acc0) -> (f32) : i32 {
      nvvm.cp.async.wait.group 2
      gpu.barrier
      %next = arith.addi %k, %i3 : i32
      %live = arith.cmpi slt, %next, %n : i32
      scf.if %live {
        %ws = arith.remui %next, %i4 : i32
        %woff = arith.muli %ws, %i2048 : i32
        %d = arith.addi %woff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %next, %i2048 : i32
        %gs = arith.addi %g, %my : i32
        %src = llvm.getelementptr %a[%gs] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rs = arith.remui %k, %i4 : i32
      %roff = arith.muli %rs, %i2048 : i32
      %ra = arith.addi %roff, %their : i32
      %rp = llvm.getelementptr %base[%ra] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> vector<4xf32>
      %x0 = vector.extract %x[0] : f32 from vector<4xf32>
      %a1 = arith.addf %a0, %x0 : f32
      scf.yield %a1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// Marlin's pipeline with cp_async_wait<stages - 1>: tile k's group may be
// pending when it is read. The trip count is a kernel parameter (sampled
// trip counts): a warning.
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @marlin_wait_too_loose(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i1024 = arith.constant 1024 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %rev = arith.subi %i1024, %my : i32
    %their = arith.subi %rev, %i16 : i32
    scf.for %s = %i0 to %i3 step %i1 : i32 {
      %live = arith.cmpi slt, %s, %n : i32
      scf.if %live {
        %soff = arith.muli %s, %i2048 : i32
        %d = arith.addi %soff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-note @+1 {{the cp.async copy whose group is pending}}
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %acc0 = arith.constant 0.0 : f32
    %acc = scf.for %k = %i0 to %n step %i1 iter_args(%a0 = %acc0) -> (f32) : i32 {
      // expected-warning @+1 {{leaves pending the cp.async-group of a copy that thread 0 reads on some launches: 2 group(s) were committed after the copy's own when the wait ran, so the copy (by thread 63) may still be writing the shared memory before the CTA barrier that orders the read; wait with cp.async.wait_group 2}}
      nvvm.cp.async.wait.group 3
      gpu.barrier
      %next = arith.addi %k, %i3 : i32
      %live = arith.cmpi slt, %next, %n : i32
      scf.if %live {
        %ws = arith.remui %next, %i4 : i32
        %woff = arith.muli %ws, %i2048 : i32
        %d = arith.addi %woff, %my : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %next, %i2048 : i32
        %gs = arith.addi %g, %my : i32
        %src = llvm.getelementptr %a[%gs] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      %rs = arith.remui %k, %i4 : i32
      %roff = arith.muli %rs, %i2048 : i32
      %ra = arith.addi %roff, %their : i32
      %rp = llvm.getelementptr %base[%ra] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+1 {{the read of its destination}}
      %x = llvm.load %rp : !llvm.ptr<3> -> vector<4xf32>
      %x0 = vector.extract %x[0] : f32 from vector<4xf32>
      %a1 = arith.addf %a0, %x0 : f32
      scf.yield %a1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// A thread reads back its own copy: after cp.async.wait_group 0, silent;
// with no wait, the read races with the copy on every launch (an error at
// the read: no wait precedes it).
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
  gpu.func @own_copy_waited(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i16 = arith.constant 16 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %dst = llvm.getelementptr %base[%my] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %src = llvm.getelementptr %a[%my] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    %x = llvm.load %dst : !llvm.ptr<3> -> f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %x, %o : f32, !llvm.ptr<1>
    gpu.return
  }
  gpu.func @own_copy_not_waited(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i16 = arith.constant 16 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %my = arith.muli %tid, %i16 : i32
    %dst = llvm.getelementptr %base[%my] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %src = llvm.getelementptr %a[%my] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    // expected-note @+1 {{the cp.async copy whose group is pending}}
    nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    // expected-error @+1 {{reads shared memory that a cp.async copy (by the thread itself) may still be writing: no cp.async.wait_group of the copying thread completes the copy's group before the read (cp.async.commit_group, then cp.async.wait_group, then a CTA barrier where other threads read it)}}
    %x = llvm.load %dst : !llvm.ptr<3> -> f32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %x, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}
