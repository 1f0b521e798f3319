// Class 8: use of a barrier after mbarrier.inval, re-init of a live barrier
// (triton#11120, triton#11244: barrier storage invalidated or reused while
// live). Each buggy kernel is followed by its correct variant, which stays
// silent.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Thread 0 invalidates the barrier, then every thread arrives on it again.
gpu.module @use_after_inval {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.barrier0
    scf.if %leader {
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
    }
    // expected-error @+1 {{uses a barrier after mbarrier.inval: an invalidated barrier must be initialized again (mbarrier.init) before any other operation}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// On some path (a runtime flag) the barrier is invalidated before the wait.
gpu.module @maybe_after_inval {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %flag {
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    // expected-warning @-1 {{may use a barrier after mbarrier.inval: on some path the barrier is invalidated and not initialized again}}
    // expected-warning @+1 {{may use a barrier after mbarrier.inval}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The barrier is initialized a second time while threads may still use it.
gpu.module @reinit_live {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    scf.if %leader {
      // expected-warning @+1 {{re-initializes a barrier that is live: it was initialized before and not invalidated (mbarrier.inval); re-initializing a barrier that threads may still arrive on or wait on loses their arrivals}}
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// On some path (a runtime flag) the barrier was initialized already.
gpu.module @maybe_reinit_live {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %flag {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    scf.if %leader {
      // expected-warning @+1 {{may re-initialize a live barrier: on some path it was initialized before and not invalidated (mbarrier.inval)}}
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// Correct: inval, then init again before the next use; each barrier of a
// group initialized once.
gpu.module @inval_then_reinit {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<2>
      mbarrier.init %g[%c1], %c32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<2>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    nvvm.barrier0
    scf.if %leader {
      mbarrier.inval %g[%c0] : !mbarrier.group<2>
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<2>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    mbarrier.arrive %g[%c1] : !mbarrier.group<2>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<2>
    nvvm.barrier0
    scf.if %leader {
      mbarrier.inval %g[%c0] : !mbarrier.group<2>
      mbarrier.inval %g[%c1] : !mbarrier.group<2>
    }
    gpu.return
  }
}
