// Class 1: an mbarrier.init not made visible to the cluster (fence_init +
// cluster barrier) before another CTA arrives on the barrier or a multicast
// copy completes on it (fb/triton#1240; NVIDIA/Fuser#1552, a hang fixed by
// adding the sync after the init; Triton's own pass leaves "a
// cluster-visible init nested in a region" with no sync and no diagnostic).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// No fence and no cluster barrier: the peer's arrival may reach the barrier
// before (or while) thread 0 of its owner initializes it.
gpu.module @no_sync {
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
      // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster: no mbarrier.fence_init and cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) between the init and this remote arrival or copy}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    // And no CTA barrier either: the other threads of the CTA may wait
    // before thread 0's init (CheckInit.cpp; a warning within one warp).
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// fence_init, but no cluster barrier after it: the peer does not wait for
// the owner's init.
gpu.module @fence_only {
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
    nvvm.barrier0
    scf.if %leader {
      // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster: no cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) after mbarrier.fence_init between the init and this remote arrival or copy}}
      mbarrier.arrive %g[%c0] on %peer : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The init nested in a loop over the ring (Triton's known gap): the
// cluster barrier comes before the inits, not after.
gpu.module @nested_init {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      scf.for %i = %c0 to %c4 step %c1 {
        // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
        mbarrier.init %g[%i], %one : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<4>
    scf.if %leader {
      // expected-error @+1 {{reaches another CTA's barrier before its mbarrier.init is visible to the cluster: no cluster barrier}}
      mbarrier.arrive %r[%c1] : !mbarrier.remote<4>
    }
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<4>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// The init on one path only (a runtime flag): on the other path the
// barrier was published earlier, so this is a warning.
gpu.module @init_on_some_path {
  gpu.func @k(%again: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
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
    scf.if %again {
      scf.if %leader {
        mbarrier.inval %g[%c0] : !mbarrier.group<1>
        // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
        mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      }
    }
    %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
    scf.if %leader {
      // expected-warning @+1 {{may reach another CTA's barrier before its mbarrier.init is visible to the cluster: on some path, no mbarrier.fence_init and cluster barrier (nvvm.cluster.arrive + nvvm.cluster.wait) between the init and this remote arrival or copy}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    // (The re-init is not made visible to the CTA either: CheckInit.cpp.)
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Correct: init, fence_init, cluster barrier, then the remote arrivals; a
// final cluster barrier before the exit.
gpu.module @published {
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
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
