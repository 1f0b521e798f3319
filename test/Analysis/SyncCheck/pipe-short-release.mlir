// Class 12 on a pipe: the empty barriers of `!mbarrier.pipe<..., consumers
// = C>` count the C consumer arrivals its type declares (mbarrier-lower-pipes
// marks their inits), so a phase short of C is the releases' bug: the error
// is at the release, with a note at the pipe's init (CuTeDSL's
// PipelineTmaAsync with consumer_arrive_cnt = num_mma_warps released once
// per warpgroup, NVIDIA/cutlass examples/python/CuTeDSL/hopper/
// dense_gemm_persistent.py).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-check-sync

// Two consumer warps, consumers = 2, but only thread 32 releases: every
// phase of an empty barrier gets 1 of its 2 arrivals, and the producer's
// third acquire (4 trips over 2 stages) waits for one forever.
gpu.module @short_release {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %lane = arith.remui %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive, consumers = 2>
    scf.if %first {
      // expected-note @+1 {{the pipe's init, with the consumer count of its type}}
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive, consumers = 2>
    }
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        // expected-note @+1 {{the wait that never completes}}
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive, consumers = 2>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive, consumers = 2>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive, consumers = 2>
        %leader = arith.cmpi eq, %t, %c32 : i32
        // expected-error @+1 {{deadlock: a phase of this pipe's empty barrier gets 1 release arrival(s), but the pipe's type counts 2 consumer arrival(s) per phase: }}
        mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<2, arrive, consumers = 2>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// -----

// Correct: lane 0 of each consumer warp releases (2 arrivals per phase).
gpu.module @per_warp_release {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %consumer = arith.cmpi sge, %t, %c32 : i32
    %lane = arith.remui %t, %c32 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive, consumers = 2>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive, consumers = 2>
    }
    nvvm.barrier0
    scf.if %first {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive, consumers = 2>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive, consumers = 2>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
    }
    scf.if %consumer {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive, consumers = 2>
        %leader = arith.cmpi eq, %lane, %zero : i32
        mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<2, arrive, consumers = 2>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}
