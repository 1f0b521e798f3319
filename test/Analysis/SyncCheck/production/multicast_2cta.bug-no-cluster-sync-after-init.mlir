// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of multicast_2cta.mlir): no cluster barrier after the init. The
// peer CTA's multicast copies and remote releases may reach this CTA's
// barriers before thread 0 has initialized them: the init is fenced but made
// visible with a CTA barrier only (gpu.barrier instead of cluster arrive/wait).
// The op: the gpu.barrier after mbarrier.fence_init (marked // BUG); a
// diagnostic on the ops that reach the peer's barriers (the multicast copy and
// the release, marked // BUG-ALT) is also accepted.
// Some launches (expected: an error or a warning): whether a peer's complete_tx
// or arrival overtakes the init depends on timing; when it does, the phase
// accounting is corrupted (hang or early completion).
//
// Follows NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync with a cluster shape: the empty barrier counts the consumers
// of every CTA that multicasts into the stage; consumer_release arrives on the
// empty barrier of each of those CTAs) and the multicast TMA loads of
// sm90_mma_tma_gmma_ss_warpspecialized.hpp (each CTA of a row loads its share of
// the B tile with a CTA mask), with cutlass::arch::fence_barrier_init and
// cluster_arrive_relaxed / cluster_wait after the init.
// A 2 x 1 cluster of 128-thread CTAs; a 2-stage pipe (cluster = [2, 1],
// multicast = row). Thread 0 of each CTA loads its 2048-byte half of each of
// %k_tiles (a parameter) tiles, multicast to both CTAs, and commits the 4096
// bytes the stage receives; warp 1 of each CTA consumes and releases to both
// CTAs. A cluster barrier before exit keeps both CTAs alive until the last
// remote arrival.
!P = !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @multicast_2cta(%map: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
    }
    mbarrier.fence_init
    gpu.barrier // BUG
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>
    scf.if %is_tid0 {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %s0) -> (!mbarrier.pipe_state<producer>) : i32 {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
        %st32 = arith.index_cast %stage : index to i32
        %soff = arith.muli %st32, %i4096 : i32
        %hoff = arith.muli %rank, %i2048 : i32
        %off = arith.addi %soff, %hoff : i32
        %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %row0 = arith.muli %k, %i32 : i32
        %rrow = arith.muli %rank, %i4 : i32
        %row = arith.addi %row0, %rrow : i32
        mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%i0, %row], bytes 2048 multicast row : !P, !llvm.ptr // BUG-ALT
        mbarrier.pipe.commit %p[%slot], bytes %i4096 : !P
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %end : !P
    }
    %is_consumer = arith.cmpi eq, %warp, %i1 : i32
    scf.if %is_consumer {
      %lane0 = arith.cmpi eq, %lane, %i0 : i32
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %r:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %c0s, %acc = %i0) -> (!mbarrier.pipe_state<consumer>, i32) : i32 {
        %slot, %next = mbarrier.pipe.wait %p, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
        %st32 = arith.index_cast %stage : index to i32
        %soff = arith.muli %st32, %i4096 : i32
        %w = arith.muli %lane, %i4 : i32
        %off = arith.addi %soff, %w : i32
        %src = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = llvm.load %src : !llvm.ptr<3> -> i32
        %acc2 = arith.addi %acc, %v : i32
        mbarrier.pipe.release %p[%slot] if %lane0 : !P // BUG-ALT
        scf.yield %next, %acc2 : !mbarrier.pipe_state<consumer>, i32
      }
      %row = arith.muli %rank, %i32 : i32
      %idx = arith.addi %row, %lane : i32
      %idx64 = arith.extui %idx : i32 to i64
      %q = llvm.getelementptr %out[%idx64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %r#1, %q : i32, !llvm.ptr<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
