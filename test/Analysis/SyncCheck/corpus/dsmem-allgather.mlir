// Correct-kernel corpus (issue 20): an all-gather through distributed shared
// memory in a 4-CTA cluster. Every CTA writes its slice into the gather
// buffer of each peer (st.shared::cluster) and arrives on the peer's
// barrier (release.cluster); each CTA waits on its own barrier (acquire,
// cluster scope) for the three peers' 128 threads, reads the gathered
// buffer, and the cluster meets once more before any CTA exits. The checker
// must say nothing about it.
//
// Source: the distributed-shared-memory exchange of the CUDA C++
// Programming Guide ("Distributed Shared Memory": cluster.map_shared_rank,
// cluster.sync() before exit so that no block's shared memory goes away
// while others use it), with the mbarrier hand-off of ThunderKittens
// (HazyResearch/ThunderKittens, include/ops/thread/memory/util/tma.cuh:
// tma::cluster::arrive(bar, dst_cta) = mapa + mbarrier.arrive.shared::cluster,
// tma::cluster::wait = try_wait.parity.acquire.cluster) instead of a second
// cluster.sync() between the stores and the reads.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: st.shared::cluster
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared

gpu.module @dsmem_allgather {
  // gathered[4][128] i32 in every CTA.
  llvm.mlir.global internal @gathered() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    // 3 peers x 128 threads arrive per phase.
    %count = arith.constant 384 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %buf = llvm.mlir.addressof @gathered : !llvm.ptr<3>
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // This thread's element of this CTA's slice.
    %cta_base = arith.muli %rank, %i128 : i32
    %gi = arith.addi %cta_base, %t : i32
    %src = llvm.getelementptr %in[%gi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v = llvm.load %src : !llvm.ptr<1> -> i32
    %slot = llvm.getelementptr %buf[%gi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %v, %slot : i32, !llvm.ptr<3>
    // Every peer: the slice into its buffer, then an arrival on its barrier.
    scf.for %j = %c1 to %c4 step %c1 {
      %j32 = arith.index_cast %j : index to i32
      %pr = arith.addi %rank, %j32 : i32
      %peer = arith.remui %pr, %i4 : i32
      %remote_slot = nvvm.mapa %slot, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %remote_slot : i32, !llvm.ptr<7>
      %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %i0 : !mbarrier.group<1>
    // Read the gathered vector: element t of every slice.
    scf.for %c = %c0 to %c4 step %c1 {
      %c32 = arith.index_cast %c : index to i32
      %base = arith.muli %c32, %i128 : i32
      %e = arith.addi %base, %t : i32
      %p = llvm.getelementptr %buf[%e] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      %x = llvm.load %p : !llvm.ptr<3> -> i32
      %ob = arith.muli %rank, %i4 : i32
      %oc = arith.addi %ob, %c32 : i32
      %orow = arith.muli %oc, %i128 : i32
      %oi = arith.addi %orow, %t : i32
      %o = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %x, %o : i32, !llvm.ptr<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
