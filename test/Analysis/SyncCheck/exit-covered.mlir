// Class 2, where the target CTA's own wait keeps it alive: in a kernel that
// declares its cluster, a remote access whose every target CTA waits on the barrier it reaches, in a wait that may
// come after it (later in program order, in a loop around both, or by other
// threads than the accessing ones: CUTLASS's producer_tail waits on the empty
// barriers the peers release, the consumers on the full barriers the
// multicast copies complete on) may be drained by that wait. Which phases the
// wait covers is not followed, so the model cannot decide: silence (issue 20;
// the corpus kernels cutlass-tma-async-multicast, deepgemm-multicast,
// pipe-cutlass-2x1). Where a target does not wait on that barrier at all,
// or only before the access, or where the kernel declares no cluster (no
// target evaluates: own-cta.mlir), the class 2 diagnostic stays (exit.mlir).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Each CTA arrives on its peer's barrier, then waits for the peer's arrival
// on its own: the peer cannot exit before this arrival has landed.
gpu.module @target_waits_after_the_arrival {
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
    gpu.return
  }
}

// -----

// Warp-specialized: warp 1 releases the peer's barrier, warp 0 waits on its
// own, earlier in program order but in other threads (no thread executes
// both), as a producer's tail waits for the consumers' releases.
gpu.module @other_threads_wait_earlier_in_program_order {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
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
    scf.if %producer {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    } else {
      %lane = arith.remui %t, %c32 : i32
      %lane0 = arith.cmpi eq, %lane, %zero : i32
      scf.if %lane0 {
        mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      }
    }
    gpu.return
  }
}

// -----

// Buggy: the waiting thread waits before it arrives on the peer, and waits
// for nothing after: the peer's last wait precedes this arrival in every
// thread that executes both. A warning (a wait in the kernel may still drain
// it through another hand-off).
gpu.module @target_waits_only_before_the_arrival {
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
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    gpu.return
  }
}

// -----

// Buggy: only CTA 0 waits; CTA 0's arrival on CTA 1's barrier is drained by
// nothing in CTA 1.
gpu.module @one_target_does_not_wait {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
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
      // expected-warning @+1 {{may be followed by the kernel's exit with no cluster barrier}}
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
    }
    scf.if %first {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}
