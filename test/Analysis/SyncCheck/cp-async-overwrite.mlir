// Class 18 across warps, in either direction: a cp.async copy and a read of
// its bytes by a thread of another warp race unless a CTA barrier orders
// them (the copy's wait_group, then a barrier, then the read; or the read,
// then a barrier, then the copy is issued). cp.async.wait_group only waits
// for the executing thread's own copies.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// FlashAttention-2's forward (flash_fwd_kernel.h, compute_attn_1rowblock):
// one sK buffer; per block cp_async_wait<0>(), __syncthreads(), S = Q K^T
// reads sK (each thread the chunk of a thread of the next warp),
// __syncthreads(), then the next K block into sK. %n blocks. Silent.
gpu.module @m {
  llvm.mlir.global internal @sk() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @single_buffer(%k: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sk = llvm.mlir.addressof @sk : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    %dk = llvm.getelementptr %sk[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rk = llvm.getelementptr %sk[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %g0 = llvm.getelementptr %k[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    nvvm.cp.async.shared.global %dk, %g0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %i = %i0 to %n step %i1 iter_args(%a = %zero) -> (f32) : i32 {
      nvvm.cp.async.wait.group 0
      gpu.barrier
      %x = llvm.load %rk : !llvm.ptr<3> -> f32
      %a1 = arith.addf %a, %x : f32
      gpu.barrier
      %next = arith.addi %i, %i1 : i32
      %more = arith.cmpi slt, %next, %n : i32
      scf.if %more {
        %go0 = arith.muli %next, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %g = llvm.getelementptr %k[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dk, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.commit.group
      }
      scf.yield %a1 : f32
    }
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The same with the next K block copied before the second __syncthreads():
// a fast thread's copy overwrites its chunk while a thread of the previous
// warp still reads it. Only where %n >= 2 (a next block exists): a warning,
// at the copy.
gpu.module @m {
  llvm.mlir.global internal @sk() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @single_buffer_copy_before_barrier(%k: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sk = llvm.mlir.addressof @sk : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    %dk = llvm.getelementptr %sk[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rk = llvm.getelementptr %sk[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %g0 = llvm.getelementptr %k[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    // expected-note @+1 {{the older copy whose data the read consumes}}
    nvvm.cp.async.shared.global %dk, %g0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %i = %i0 to %n step %i1 iter_args(%a = %zero) -> (f32) : i32 {
      nvvm.cp.async.wait.group 0
      gpu.barrier
      // expected-note @+1 {{the read of the bytes it overwrites}}
      %x = llvm.load %rk : !llvm.ptr<3> -> f32
      %a1 = arith.addf %a, %x : f32
      %next = arith.addi %i, %i1 : i32
      %more = arith.cmpi slt, %next, %n : i32
      scf.if %more {
        %go0 = arith.muli %next, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %g = llvm.getelementptr %k[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-warning @+1 {{writes shared memory that thread 0 may still be reading on some launches: no CTA barrier lies between that read and this cp.async copy (by thread 32), so the copy may overwrite the bytes before the read; issue the copy after the CTA barrier that ends the reads}}
        nvvm.cp.async.shared.global %dk, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.commit.group
      }
      gpu.barrier
      scf.yield %a1 : f32
    }
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The same bug with four blocks on every launch (a constant trip count):
// an error.
gpu.module @m {
  llvm.mlir.global internal @sk() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @single_buffer_four_blocks(%k: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %sk = llvm.mlir.addressof @sk : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    %dk = llvm.getelementptr %sk[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rk = llvm.getelementptr %sk[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %g0 = llvm.getelementptr %k[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    // expected-note @+1 {{the older copy whose data the read consumes}}
    nvvm.cp.async.shared.global %dk, %g0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %i = %i0 to %i4 step %i1 iter_args(%a = %zero) -> (f32) : i32 {
      nvvm.cp.async.wait.group 0
      gpu.barrier
      // expected-note @+1 {{the read of the bytes it overwrites}}
      %x = llvm.load %rk : !llvm.ptr<3> -> f32
      %a1 = arith.addf %a, %x : f32
      %next = arith.addi %i, %i1 : i32
      %go0 = arith.muli %next, %i2048 : i32
      %go = arith.addi %go0, %mine : i32
      %g = llvm.getelementptr %k[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      // expected-error @+1 {{writes shared memory that thread 0 may still be reading: no CTA barrier lies between that read and this cp.async copy (by thread 32)}}
      nvvm.cp.async.shared.global %dk, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      gpu.barrier
      scf.yield %a1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// cuda-samples' globalToShmemAsyncCopy (MatrixMulAsyncCopyMultiStageLargeChunk
// with the fix of NVIDIA/cuda-samples#263): four buffers, batches issued two
// k-tiles ahead, cp.async.wait_group 2 and one __syncthreads() per k-tile:
// the buffer a batch fills was last read two k-tiles back, before the
// previous barrier. %n k-tiles. Silent.
gpu.module @m {
  llvm.mlir.global internal @as() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_two_ahead(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %as = llvm.mlir.addressof @as : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    scf.for %b = %i0 to %i2 step %i1 : i32 {
      %live = arith.cmpi slt, %b, %n : i32
      scf.if %live {
        %s = arith.andi %b, %i3 : i32
        %so = arith.muli %s, %i2048 : i32
        %d = arith.addi %so, %mine : i32
        %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %b, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %i = %i0 to %n step %i1 iter_args(%acc0 = %zero) -> (f32) : i32 {
      %b = arith.addi %i, %i2 : i32
      %live = arith.cmpi slt, %b, %n : i32
      scf.if %live {
        %s = arith.andi %b, %i3 : i32
        %so = arith.muli %s, %i2048 : i32
        %d = arith.addi %so, %mine : i32
        %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %b, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 2
      gpu.barrier
      %s = arith.andi %i, %i3 : i32
      %so = arith.muli %s, %i2048 : i32
      %r = arith.addi %so, %theirs : i32
      %rp = llvm.getelementptr %as[%r] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %acc1 = arith.addf %acc0, %x : f32
      scf.yield %acc1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The same as cuda-samples had it before #263: batches issued four k-tiles
// ahead on four buffers (wait_group 4 still completes k-tile i's batch):
// batch i + 4 is issued into buffer i % 4 before the barrier after which
// k-tile i reads it. Only where %n >= 5: a warning, at the op that computes
// the batch's stage from the induction variable (the lookahead).
gpu.module @m {
  llvm.mlir.global internal @as() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_four_ahead(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %as = llvm.mlir.addressof @as : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    scf.for %b = %i0 to %i4 step %i1 : i32 {
      %live = arith.cmpi slt, %b, %n : i32
      scf.if %live {
        %s = arith.andi %b, %i3 : i32
        %so = arith.muli %s, %i2048 : i32
        %d = arith.addi %so, %mine : i32
        %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %b, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-note @+1 {{the older copy whose data the read consumes}}
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %i = %i0 to %n step %i1 iter_args(%acc0 = %zero) -> (f32) : i32 {
      // expected-warning @+1 {{gives a cp.async copy (by thread 32) the stage that thread 0 reads after the next CTA barrier on some launches: the copy is issued before that barrier while the stage still holds the tile of an older copy that the read consumes (more groups in flight than the ring has stages); copy into a stage whose reads ended before the last CTA barrier}}
      %b = arith.addi %i, %i4 : i32
      %live = arith.cmpi slt, %b, %n : i32
      scf.if %live {
        %s = arith.andi %b, %i3 : i32
        %so = arith.muli %s, %i2048 : i32
        %d = arith.addi %so, %mine : i32
        %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %b, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-note @+1 {{the cp.async copy that overwrites the stage}}
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 4
      gpu.barrier
      %s = arith.andi %i, %i3 : i32
      %so = arith.muli %s, %i2048 : i32
      %r = arith.addi %so, %theirs : i32
      %rp = llvm.getelementptr %as[%r] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+1 {{the read of the bytes it overwrites}}
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %acc1 = arith.addf %acc0, %x : f32
      scf.yield %acc1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// The four-ahead ring with the write stage carried by the loop (CUTLASS's
// smem_pipe_write, wrapped by hand): no op computes the stage from the
// induction variable, so the warning is at the copy.
gpu.module @m {
  llvm.mlir.global internal @as() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @ring_four_ahead_carried(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %as = llvm.mlir.addressof @as : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    scf.for %b = %i0 to %i4 step %i1 : i32 {
      %so = arith.muli %b, %i2048 : i32
      %d = arith.addi %so, %mine : i32
      %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      // expected-note @+1 {{the older copy whose data the read consumes}}
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
    }
    %zero = arith.constant 0.0 : f32
    %r:2 = scf.for %i = %i0 to %n step %i1 iter_args(%wr = %i0, %acc0 = %zero) -> (i32, f32) : i32 {
      %so = arith.muli %wr, %i2048 : i32
      %d = arith.addi %so, %mine : i32
      %dst = llvm.getelementptr %as[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      // expected-warning @+1 {{gives a cp.async copy (by thread 32) the stage that thread 0 reads after the next CTA barrier on some launches}}
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 4
      gpu.barrier
      %s = arith.andi %i, %i3 : i32
      %ro = arith.muli %s, %i2048 : i32
      %ra = arith.addi %ro, %theirs : i32
      %rp = llvm.getelementptr %as[%ra] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+1 {{the read of the bytes it overwrites}}
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %acc1 = arith.addf %acc0, %x : f32
      %wr1 = arith.addi %wr, %i1 : i32
      %wrw = arith.cmpi eq, %wr1, %i4 : i32
      %wrn = arith.select %wrw, %i0, %wr1 : i32
      scf.yield %wrn, %acc1 : i32, f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %r#1, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// CUTLASS's threadblock MmaMultistage (mma_multistage.h, kStages = 3) with
// gmem_wait() = cp_async_wait<kStages - 2>() but without its
// __syncthreads(): a thread reads a row another warp copied after its own
// wait only, and the next tile's copy into the write stage may overwrite a
// row a slower warp still reads. %n k-tiles (with one, the prologue's
// barrier covers the only read): warnings, at the wait and at the copy.
gpu.module @m {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @multistage_wait_without_barrier(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %t1 = arith.addi %tid, %i32 : i32
    %t2 = arith.andi %t1, %i127 : i32
    %theirs = arith.muli %t2, %i16 : i32
    scf.for %s = %i0 to %i2 step %i1 : i32 {
      %live = arith.cmpi slt, %s, %n : i32
      scf.if %live {
        %so = arith.muli %s, %i2048 : i32
        %d = arith.addi %so, %mine : i32
        %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %src = llvm.getelementptr %a[%d] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-note @+2 {{the cp.async copy the wait completes}}
        // expected-note @+1 {{the older copy whose data the read consumes}}
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %k = %i0 to %n step %i1 iter_args(%acc0 = %zero) -> (f32) : i32 {
      %rs = arith.remui %k, %i3 : i32
      %ro0 = arith.muli %rs, %i2048 : i32
      %ro = arith.addi %ro0, %theirs : i32
      %rp = llvm.getelementptr %base[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-note @+2 {{the read of its destination}}
      // expected-note @+1 {{the read of the bytes it overwrites}}
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %nk = arith.addi %k, %i2 : i32
      %live = arith.cmpi slt, %nk, %n : i32
      scf.if %live {
        %ws = arith.remui %nk, %i3 : i32
        %wo0 = arith.muli %ws, %i2048 : i32
        %wo = arith.addi %wo0, %mine : i32
        %dst = llvm.getelementptr %base[%wo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %go0 = arith.muli %nk, %i2048 : i32
        %go = arith.addi %go0, %mine : i32
        %src = llvm.getelementptr %a[%go] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        // expected-warning @+1 {{writes shared memory that thread 0 may still be reading on some launches: no CTA barrier lies between that read and this cp.async copy (by thread 32)}}
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // expected-warning @+1 {{completes the cp.async-group of a copy that thread 0 reads on some launches, but no CTA barrier follows before the read: cp.async.wait_group waits for the executing thread's own copies only, so the copy (by thread 32) may still be writing the shared memory when the read runs; add a CTA barrier (__syncthreads) after the wait}}
      nvvm.cp.async.wait.group 1
      %acc1 = arith.addf %acc0, %x : f32
      scf.yield %acc1 : f32
    }
    nvvm.cp.async.wait.group 0
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %o : f32, !llvm.ptr<1>
    gpu.return
  }
}
