// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of dsmem_exchange.mlir): a cluster rank that leaves the cluster.
// The next CTA of the ring is computed as rank + 1 without the mod 4, so CTA 3
// maps (mapa) and arrives on CTA rank 4 of a 4-CTA cluster.
// The op: the arith.addi that computes the rank used (marked // BUG); a
// diagnostic on the ops that use the rank (the mapa, the remote view, the
// remote store and arrive, each marked // BUG-ALT) is also accepted.
// Every launch (expected: an error): every cluster has a CTA of rank 3; its
// st.shared::cluster to rank 4 faults (an illegal address).
//
// Follows the distributed-shared-memory exchange of
// NVIDIA/cutlass include/cutlass/arch/barrier.h (ClusterBarrier::arrive(cta_id):
// mapa + mbarrier.arrive.release.cluster.shared::cluster) as used by
// ThunderKittens' cluster kernels (HazyResearch/ThunderKittens
// include/ops/warp/memory/util/tma.cuh, tma::cluster::arrive / wait) and the
// CUDA programming guide's cluster histogram.
// A cluster of 4 CTAs of 128 threads. Every thread writes one word into the
// @inbox of the next CTA of the ring, (rank + 1) mod 4, through mapa +
// st.shared::cluster, and arrives on that CTA's barrier (count 128, release
// at cluster scope). Each CTA waits on its own barrier (acquire, cluster),
// reads its inbox and writes it out; a final cluster barrier keeps every CTA's
// shared memory alive until its peer's last access.
// out[rank * 128 + t] = ((rank + 3) mod 4) * 1000 + t.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x i32>
  gpu.func @dsmem_exchange(%out: !llvm.ptr<1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %i1000 = arith.constant 1000 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i128 : !mbarrier.group<1>
    }
    // The init is visible to the whole cluster before any remote arrival.
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %next1 = arith.addi %rank, %i1 : i32
    %next = arith.addi %rank, %i1 : i32 // BUG
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %mine = llvm.getelementptr %inbox[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x i32>
    %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7> // BUG-ALT
    %hi = arith.muli %rank, %i1000 : i32
    %v = arith.addi %hi, %tid : i32
    llvm.store %v, %theirs : i32, !llvm.ptr<7> // BUG-ALT
    %remote = mbarrier.remote_view %bar, %next : !mbarrier.group<1> // BUG-ALT
    mbarrier.arrive %remote[%c0] : !mbarrier.remote<1> // BUG-ALT
    mbarrier.wait %bar[%c0], %i0 {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
    %got = llvm.load %mine : !llvm.ptr<3> -> i32
    %row = arith.muli %rank, %i128 : i32
    %slot = arith.addi %row, %tid : i32
    %slot64 = arith.extui %slot : i32 to i64
    %p = llvm.getelementptr %out[%slot64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    llvm.store %got, %p : i32, !llvm.ptr<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
