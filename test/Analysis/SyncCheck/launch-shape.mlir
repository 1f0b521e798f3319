// The launch shape the checker counts with: NVVM's `nvvm.reqntid` and
// `nvvm.cluster_dim` take one to three dimensions, the missing ones being 1
// (`array<i32: 32>` is a block of 32 x 1 x 1). Such a kernel is accepted by
// the verifier and counted like one with three dimensions: the buggy
// kernels here get their diagnostics (which name the block size and the
// CTA), the correct ones none.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A 1-D block of 32: the whole warp arrives on a count-1 barrier.
gpu.module @one_dim_block {
  llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %leader = arith.cmpi eq, %tid, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    // expected-error @+1 {{arrives 32 times on a barrier initialized with arrival count 1}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    llvm.return
  }
}

// -----

// A 2-D block of 16 x 2 and a 1-D cluster of 2: thread (0, 1) of each CTA
// arrives on the barrier of CTA 0 (count 1), which then receives two. A
// warning: CTA 0's wait is for phase 0, which the first arrival completes;
// the second only completes a phase nobody waits for, unless it comes before
// the wait, so a launch can be right (class 3: an error where a wait
// observes the phases completed early in every launch).
gpu.module @two_dim_block_one_dim_cluster {
  llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 16, 2>, nvvm.cluster_dim = array<i32: 2>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %x = nvvm.read.ptx.sreg.tid.x : i32
    %y = nvvm.read.ptx.sreg.tid.y : i32
    %x0 = arith.cmpi eq, %x, %zero : i32
    %y0 = arith.cmpi eq, %y, %zero : i32
    %y1 = arith.cmpi eq, %y, %one : i32
    %leader = arith.andi %x0, %y0 : i1
    %signal = arith.andi %x0, %y1 : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    // expected-warning @+1 {{arrives 2 times on a barrier of CTA 0 initialized with arrival count 1}}
    mbarrier.arrive %g[%c0] on %zero if %signal : !mbarrier.group<1>
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    scf.if %first {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    llvm.return
  }
}

// -----

// Correct: the same kernels with the counts of their shapes.
gpu.module @counts_that_match {
  llvm.func @one_dim() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %leader = arith.cmpi eq, %tid, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    llvm.return
  }
  llvm.func @two_dim() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 16, 2>, nvvm.cluster_dim = array<i32: 2, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %x = nvvm.read.ptx.sreg.tid.x : i32
    %y = nvvm.read.ptx.sreg.tid.y : i32
    %x0 = arith.cmpi eq, %x, %zero : i32
    %y0 = arith.cmpi eq, %y, %zero : i32
    %y1 = arith.cmpi eq, %y, %one : i32
    %leader = arith.andi %x0, %y0 : i1
    %signal = arith.andi %x0, %y1 : i1
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %two : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    mbarrier.arrive %g[%c0] on %zero if %signal : !mbarrier.group<1>
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    scf.if %first {
      mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    llvm.return
  }
}
