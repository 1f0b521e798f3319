// Class 8, at the init: an mbarrier.init that several threads of a CTA
// execute for the same barrier (NVIDIA/Fuser#1552; upstream MLIR's sm90
// TMA/GEMM integration tests initialize from every thread). An init of a
// barrier that another thread already initialized is undefined, and an
// arrival made before another thread's init is lost. A warning: within one
// warp the inits are one instruction and the kernel may work.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Every thread initializes, then gpu.barrier (the upstream test's shape).
gpu.module @every_thread_inits {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    // expected-warning @+1 {{is executed by 128 threads of a CTA for the same barrier: an mbarrier.init of a barrier that another thread already initialized is undefined, and an arrival made before another thread's init is lost (NVIDIA/Fuser#1552); initialize from one thread (tid == 0, or elect.sync in one warp) and synchronize the CTA before any use}}
    mbarrier.init %g[%c0], %c128 : !mbarrier.group<1>
    gpu.barrier
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The correct twin: thread 0 initializes.
gpu.module @thread_zero_inits {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c128 : !mbarrier.group<1>
    }
    gpu.barrier
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// elect.sync without a warp condition: one thread in each of the 4 warps
// initializes the same barrier.
gpu.module @elect_in_every_warp {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %elected = nvvm.elect.sync -> i1
    scf.if %elected {
      // expected-warning @+1 {{is executed by 4 threads of a CTA for the same barrier}}
      mbarrier.init %g[%c0], %c4 : !mbarrier.group<1>
    }
    gpu.barrier
    scf.if %elected {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// One barrier per warp, each initialized by its warp's lane 0: different
// barriers, silent.
gpu.module @one_barrier_per_warp {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %c32 : i32
    %lane = arith.remui %t, %c32 : i32
    %w = arith.index_cast %warp : i32 to index
    %lane0 = arith.cmpi eq, %lane, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %lane0 {
      mbarrier.init %g[%w], %c32 : !mbarrier.group<4>
    }
    gpu.barrier
    mbarrier.arrive %g[%w] : !mbarrier.group<4>
    mbarrier.wait %g[%w], %zero : !mbarrier.group<4>
    gpu.return
  }
}

// -----

// The same per-warp barrier initialized by every lane of its warp.
gpu.module @per_warp_barrier_by_every_lane {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %c32 : i32
    %w = arith.index_cast %warp : i32 to index
    %g = mbarrier.alloc : !mbarrier.group<4>
    // expected-warning @+1 {{is executed by 32 threads of a CTA for the same barrier}}
    mbarrier.init %g[%w], %c32 : !mbarrier.group<4>
    gpu.barrier
    mbarrier.arrive %g[%w] : !mbarrier.group<4>
    mbarrier.wait %g[%w], %zero : !mbarrier.group<4>
    gpu.return
  }
}

// -----

// A ring initialized in a loop by every thread.
gpu.module @ring_loop_by_every_thread {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.for %i = %c0 to %c2 step %c1 {
      // expected-warning @+1 {{is executed by 64 threads of a CTA for the same barrier}}
      mbarrier.init %g[%i], %c64 : !mbarrier.group<2>
    }
    gpu.barrier
    mbarrier.arrive %g[%c1] : !mbarrier.group<2>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<2>
    gpu.return
  }
}
