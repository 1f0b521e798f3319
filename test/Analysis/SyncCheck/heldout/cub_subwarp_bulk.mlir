// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cub_subwarp_bulk(
// Follows NVIDIA/cccl cub/cub/warp/specializations/warp_reduce_shfl.cuh
// (WarpReduceShfl with LOGICAL_WARP_THREADS = 16: each logical warp's
// member_mask = 0xffff << (16 * (lane / 16)), used by every SHFL_XOR and
// WARP_SYNC of that half-warp) inside a bulk-copy ring after
// cuda::barrier / cuda::memcpy_async with cuda::device::barrier_expect_tx
// (libcudacxx's TMA bulk copy: thread 0 issues, every thread waits the stage's
// barrier) and a block-wide __syncthreads() before a stage is released.
// 128 threads = 8 logical warps of 16; 2 stages of 2048 bytes; %n_steps
// (a parameter); thread 0 produces and releases.
!P = !mbarrier.pipe<2, tma>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @cub_subwarp_bulk(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n_steps: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i16 = arith.constant 16 : i32
    %i31 = arith.constant 31 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %half_mask = arith.constant 65535 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    // member_mask of this thread's logical warp.
    %sub = arith.divui %lane, %i16 : i32
    %shift = arith.muli %sub, %i16 : i32
    %member = arith.shli %half_mask, %shift : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    %w0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    %r0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
    %fin:3 = scf.for %i = %i0 to %n_steps step %i1 iter_args(%w = %w0, %r = %r0, %acc = %i0)
        -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<consumer>, i32) : i32 {
      // Thread 0 issues step i's copy.
      %wn = scf.if %is_tid0 -> (!mbarrier.pipe_state<producer>) {
        %slot, %next = mbarrier.pipe.acquire %p, %w : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
        %st = arith.index_cast %stage : index to i32
        %off = arith.muli %st, %i2048 : i32
        %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %goff = arith.muli %i, %i2048 : i32
        %gsrc = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %gsrc, %i2048 : !P
        mbarrier.pipe.commit %p[%slot], bytes %i2048 : !P
        scf.yield %next : !mbarrier.pipe_state<producer>
      } else {
        scf.yield %w : !mbarrier.pipe_state<producer>
      }
      %slot, %rn = mbarrier.pipe.wait %p, %r : !P
      %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
      %st = arith.index_cast %stage : index to i32
      %off = arith.muli %st, %i2048 : i32
      %my = arith.muli %tid, %i4 : i32
      %o = arith.addi %off, %my : i32
      %rp = llvm.getelementptr %base[%o] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %v = llvm.load %rp : !llvm.ptr<3> -> i32
      // WarpReduceShfl over the 16 lanes of the logical warp.
      nvvm.bar.warp.sync %member : i32
      %x1 = nvvm.shfl.sync bfly %member, %v, %i8, %i31 : i32 -> i32
      %v1 = arith.addi %v, %x1 : i32
      %x2 = nvvm.shfl.sync bfly %member, %v1, %i4, %i31 : i32 -> i32
      %v2 = arith.addi %v1, %x2 : i32
      %x3 = nvvm.shfl.sync bfly %member, %v2, %i2, %i31 : i32 -> i32
      %v3 = arith.addi %v2, %x3 : i32
      %x4 = nvvm.shfl.sync bfly %member, %v3, %i1, %i31 : i32 -> i32
      %v4 = arith.addi %v3, %x4 : i32
      %acc2 = arith.addi %acc, %v4 : i32
      // Every thread has read the stage before thread 0 frees it.
      gpu.barrier
      mbarrier.pipe.release %p[%slot] if %is_tid0 : !P
      scf.yield %wn, %rn, %acc2 : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<consumer>, i32
    }
    scf.if %is_tid0 {
      mbarrier.pipe.tail %p, %fin#0 : !P
    }
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %i128 = arith.constant 128 : i32
    %r0i = arith.muli %bid, %i128 : i32
    %ix = arith.addi %r0i, %tid : i32
    %outp = llvm.getelementptr %out[%ix] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %fin#2, %outp : i32, !llvm.ptr<1>
    gpu.return
  }
}
}
