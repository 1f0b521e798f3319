// Class 7: memory order too weak for a cross-CTA hand-off. A .cta acquire
// or release is not morally strong with the other CTA's side
// (NVIDIA/cutlass#3324: CTA-scoped cluster barriers, stale reads in 2-CTA
// mxfp8; Dao-AILab/quack#63: the remote arrive hard-codes scope CTA); a
// relaxed remote arrival publishes nothing without a fence
// (sgl-project/sglang#38829).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// The peer publishes a value with a release.cluster arrival, but the owner
// waits with scope cta.
gpu.module @cta_scope_wait {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    // expected-warning @+1 {{waits with scope cta on a barrier that other CTAs arrive on: a .cta acquire is not morally strong with their .release.cluster arrivals, so the data they wrote before arriving is not guaranteed visible after the wait (use scope cluster, the default in a cluster kernel)}}
    mbarrier.wait %g[%c0], %zero {scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A remote arrival with scope cta (quack#63) after the thread wrote the
// data it hands over: the .cta release does not publish it to the owner.
gpu.module @cta_scope_remote_arrive {
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      llvm.store %rank, %out : i32, !llvm.ptr<1>
      // expected-warning @+1 {{arrives on another CTA's barrier with scope cta after stores: a .cta release is not morally strong with the owner's wait, so it does not publish them (use scope cluster, the default of the cluster form)}}
      mbarrier.arrive %g[%c0] on %peer {scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A store into the peer's mailbox, then a relaxed remote arrival with no
// fence in between (sglang#38829).
gpu.module @relaxed_without_fence {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      // expected-warning @+1 {{is a relaxed arrival on another CTA's barrier after stores with no release fence in between: nothing orders those stores before the arrival, so the waiting CTA may not see them (put a fence.acq_rel.cluster between the stores and the arrival, or arrive with sem release)}}
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    %v = llvm.load %box : !llvm.ptr<3> -> i32
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Correct: the default scopes (release.cluster arrival, acquire.cluster
// wait in a cluster kernel); a fence, then relaxed arrivals; a store by
// other threads than the one that arrives relaxed; a .cta-scope remote
// arrival with nothing to publish (a pure rendezvous, as in the latency
// benchmark's "unqualified" rows).
gpu.module @strong_enough {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %other = arith.cmpi eq, %t, %one : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<2>
    scf.if %other {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
    }
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      llvm.fence syncscope("cluster") acq_rel
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<2>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      mbarrier.arrive %r[%c0] {scope = #mbarrier.scope<cta>} : !mbarrier.remote<2>
    }
    mbarrier.wait %g[%c0], %one : !mbarrier.group<2>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// A shared_cta release fence orders only stores to the CTA's own shared
// memory: it does not publish the store into the peer's mailbox.
gpu.module @shared_cta_fence_for_a_remote_store {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      mbarrier.fence_release shared_cta
      // expected-warning @+1 {{is a relaxed arrival on another CTA's barrier after stores with no release fence in between}}
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Correct: mbarrier.fence_release (what mbarrier-merge-release-fences
// inserts), a fence in inline PTX, and a shared_cta fence after a store to
// the CTA's own shared memory, each before relaxed arrivals.
gpu.module @fences_that_publish {
  llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<3>
      mbarrier.init %g[%c1], %one : !mbarrier.group<3>
      mbarrier.init %g[%c2], %one : !mbarrier.group<3>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %box = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
    %peer_box = nvvm.mapa %box, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<3>
    scf.if %leader {
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      mbarrier.fence_release
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<3>
      llvm.store %rank, %peer_box : i32, !llvm.ptr<7>
      llvm.inline_asm has_side_effects "fence.acq_rel.cluster;", "~{memory}" : () -> ()
      mbarrier.arrive %r[%c1] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<3>
      llvm.store %rank, %box : i32, !llvm.ptr<3>
      mbarrier.fence_release shared_cta
      mbarrier.arrive %r[%c2] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<3>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<3>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<3>
    mbarrier.wait %g[%c2], %zero : !mbarrier.group<3>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
