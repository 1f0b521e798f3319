// The checker on pipes it sees unlowered (run alone, before
// mbarrier-lower-pipes): mbarrier.pipe.create names its whole group through
// MBarrierOpInterface (no index), so the group's barriers are touched out of
// sight: not counted, and not reported as never initialized.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct: the group is a pipe's (mbarrier.pipe.create names the whole group
// through MBarrierOpInterface, with no index), and the checker runs before
// mbarrier-lower-pipes: mbarrier.pipe.init initializes it out of sight.
gpu.module @group_of_an_unlowered_pipe {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %first = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %first {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    nvvm.barrier0
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<4>
    gpu.return
  }
}

// -----

// Buggy twin: the same group with no pipe and no init.
gpu.module @group_with_no_init {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    // expected-note @+1 {{the group is allocated here}}
    %g = mbarrier.alloc : !mbarrier.group<4>
    nvvm.barrier0
    // expected-error @+1 {{uses barrier 0 of a group that is never initialized}}
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<4>
    gpu.return
  }
}
