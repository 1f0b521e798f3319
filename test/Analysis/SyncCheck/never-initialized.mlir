// Class 8: a barrier that is used but never initialized: the kernel has no
// mbarrier.init of it on any path (a forgotten prologue; a pipe without
// mbarrier.pipe.init). Every mbarrier operation but init is undefined on an
// uninitialized barrier. Pipes are checked as mbarrier-lower-pipes lowers
// them (as in mbarrier-to-ptx), with the pipe ops' locations.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-check-sync

// No init at all: the arrival and the wait run on an uninitialized barrier.
// Reported once, at the first use.
gpu.module @no_init {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    // expected-note @+1 {{the group is allocated here}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    nvvm.barrier0
    // expected-error @+1 {{uses barrier 0 of a group that is never initialized: the kernel has no mbarrier.init of it (nor an mbarrier.pipe.init of its pipe), and every mbarrier operation but init is undefined on an uninitialized barrier (initialize it from one thread and synchronize before any use: k.prologue() in lang)}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The correct twin: thread 0 initializes, a CTA barrier, then every thread
// uses it.
gpu.module @init_then_use {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// One barrier of the group is initialized, the other is not.
gpu.module @one_barrier_of_two {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    // expected-note @+1 {{the group is allocated here}}
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<2>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    // expected-error @+1 {{uses barrier 1 of a group that is never initialized}}
    mbarrier.arrive %g[%c1] : !mbarrier.group<2>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<2>
    gpu.return
  }
}

// -----

// A ring initialized in a loop: its induction variable may be any index.
gpu.module @ring_init_loop {
  gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %i = %c0 to %c4 step %c1 {
        mbarrier.init %g[%i], %c32 : !mbarrier.group<4>
      }
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c1] : !mbarrier.group<4>
    mbarrier.wait %g[%c1], %zero : !mbarrier.group<4>
    gpu.return
  }
}

// -----

// The use is under a condition the model cannot evaluate (a kernel
// parameter): it may never run, so a warning.
gpu.module @use_under_unknown_condition {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    // expected-note @+1 {{the group is allocated here}}
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %flag {
      // expected-warning @+1 {{may use barrier 0 of a group that is never initialized: the kernel has no mbarrier.init of it (nor an mbarrier.pipe.init of its pipe), and every mbarrier operation but init is undefined on an uninitialized barrier}}
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    gpu.return
  }
}

// -----

// The group reaches a call: the callee may initialize it. Silent.
gpu.module @group_passed_to_a_call {
  func.func private @init_helper(!mbarrier.group<1>)
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    func.call @init_helper(%g) : (!mbarrier.group<1>) -> ()
    nvvm.barrier0
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// A pipe without mbarrier.pipe.init: every side's ops use barriers that
// were never initialized. One report, at the first use that certainly runs
// (the producer's tail; the loops may run no trip).
gpu.module @pipe_without_init {
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
    // expected-note @+1 {{the group is allocated here}}
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      // expected-error @+1 {{uses a barrier of a group that is never initialized}}
      mbarrier.pipe.tail %p, %end : !mbarrier.pipe<2, arrive>
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.release %p[%slot] if %lane0 : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    nvvm.barrier0
    gpu.return
  }
}
