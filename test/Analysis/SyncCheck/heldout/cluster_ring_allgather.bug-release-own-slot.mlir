// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of cluster_ring_allgather.mlir (same public sources:
// ThunderKittens tma::cluster arrive/wait, cutlass arch/barrier.h
// ClusterBarrier::arrive(cta_id)).
// BUG: after reading slot b the receiver arrives on its own empty[b] instead
// of the previous CTA's (the remote view left out): each CTA's empty barrier
// then counts its own reads, and a sender refills slot b of the next CTA's
// inbox without knowing whether that CTA has read it: the store of lap L+1
// may overwrite the value of lap L before it is read.
// Some launches fail (wrong values, for %n_steps >= 3, when a CTA runs a lap
// ahead of its successor; counts balance, so nothing hangs).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @inbox() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i32>
  gpu.func @cluster_ring_allgather(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n_steps: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i128 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i128 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %n1 = arith.addi %rank, %i1 : i32
    %next = arith.remui %n1, %i4 : i32
    %p3 = arith.addi %rank, %i3 : i32
    %prev = arith.remui %p3, %i4 : i32
    %next_full = mbarrier.remote_view %full, %next : !mbarrier.group<2>
    %prev_empty = mbarrier.remote_view %empty, %prev : !mbarrier.group<2>
    %inbox = llvm.mlir.addressof @inbox : !llvm.ptr<3>
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %g0 = arith.muli %bid, %i128 : i32
    %g = arith.addi %g0, %tid : i32
    %ip = llvm.getelementptr %in[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %v0 = llvm.load %ip : !llvm.ptr<1> -> i32
    %last = scf.for %s = %i0 to %n_steps step %i1 iter_args(%v = %v0) -> (i32) : i32 {
      %b32 = arith.remui %s, %i2 : i32
      %b = arith.index_cast %b32 : i32 to index
      %lap = arith.divui %s, %i2 : i32
      %ph = arith.andi %lap, %i1 : i32
      %pph = arith.xori %ph, %i1 : i32
      %slot0 = arith.muli %b32, %i128 : i32
      %slot = arith.addi %slot0, %tid : i32
      %mine = llvm.getelementptr %inbox[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
      // Send: the next CTA has read slot b of the previous lap.
      mbarrier.wait %empty[%b], %pph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %theirs = nvvm.mapa %mine, %next : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %v, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %next_full[%b] : !mbarrier.remote<2>
      // Receive from the previous CTA, then free its slot b.
      mbarrier.wait %full[%b], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      %got = llvm.load %mine : !llvm.ptr<3> -> i32
      mbarrier.arrive %empty[%b] : !mbarrier.group<2> // BUG
      scf.yield %got : i32
    }
    %op = llvm.getelementptr %out[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %last, %op : i32, !llvm.ptr<1>
    // No CTA exits while a peer may still arrive on its barriers.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
