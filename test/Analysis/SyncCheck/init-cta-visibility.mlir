// Class 1, within the CTA: an mbarrier.init is visible to the threads that
// did not execute it only after a CTA barrier (bar.sync: nvvm.barrier0,
// gpu.barrier, nvvm.barrier, or a cluster barrier). A use by another warp
// before that may reach the barrier before it is initialized (CUTLASS puts
// a __syncthreads / cluster sync after its inits for this). Error where
// every path has the init pending, warning where some path has; reported
// once, at the first use.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-check-sync

// Thread 0 initializes; every thread arrives and waits with no CTA barrier.
gpu.module @no_cta_barrier {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
    }
    // expected-error @+1 {{uses a barrier before its mbarrier.init is visible to these threads: other threads initialized it, and no CTA barrier (nvvm.barrier0, gpu.barrier, or a cluster barrier) lies between the init and this use, so it may reach the barrier before it is initialized}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The correct twin: nvvm.barrier0 after the init.
gpu.module @cta_barrier_after_init {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// gpu.barrier and a cluster barrier order the init as well.
gpu.module @gpu_barrier_and_cluster_barrier {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<2>
    }
    gpu.barrier
    mbarrier.arrive %g[%c0] : !mbarrier.group<2>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c1], %c64 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    mbarrier.arrive %g[%c1] : !mbarrier.group<2>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<2>
    gpu.return
  }
}

// -----

// A ring initialized in a loop by thread 0, then used by the consumer warp
// with no CTA barrier.
gpu.module @ring_init_loop_no_barrier {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %consumer = arith.cmpi eq, %tid, %c32 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %i = %c0 to %c4 step %c1 {
        // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
        mbarrier.init %g[%i], %one : !mbarrier.group<4>
      }
    }
    scf.if %consumer {
      // expected-error @+1 {{uses a barrier before its mbarrier.init is visible to these threads}}
      mbarrier.arrive %g[%c1] : !mbarrier.group<4>
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----

// The init on one path only (a runtime flag): a warning.
gpu.module @init_on_some_path {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    scf.if %flag {
      scf.if %leader {
        mbarrier.inval %g[%c0] : !mbarrier.group<1>
        // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
        mbarrier.init %g[%c0], %c64 : !mbarrier.group<1>
      }
    }
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads: on some path other threads initialized it with no CTA barrier (nvvm.barrier0, gpu.barrier, or a cluster barrier) between the init and this use}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Lane 0 initializes and its own warp uses the barrier with no
// bar.warp.sync: a race of the memory model that current hardware does not
// show within a warp, so a warning.
gpu.module @same_warp {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The initializing thread itself uses the barrier: program order suffices.
gpu.module @initializer_uses_it {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// A pipe initialized by thread 0 with no CTA barrier before the sides run:
// the producer's acquire and the consumer's wait both race with the init.
gpu.module @pipe_init_no_barrier {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %lane0 = arith.cmpi eq, %t, %c32 : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %first {
      // expected-note @+1 {{the init, by 1 thread(s) of each CTA}}
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %end : !mbarrier.pipe<2, arrive>
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        // expected-warning @+1 {{may use a barrier before its mbarrier.init is visible to these threads}}
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.release %p[%slot] if %lane0 : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    nvvm.barrier0
    gpu.return
  }
}
