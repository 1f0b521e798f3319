// The SPMD model evaluates each value once per point (a memo), so a condition
// or an index built from a deep chain of shared subexpressions (x = x + x,
// 2^depth paths through it) costs its length, not 2^depth
// (the reproducers, a condition that is a doubling chain of depth 24 and a
// barrier index that is one of depth 32, took 20 s to over a minute before).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A condition 24 doublings deep over the thread id: t * 2^24 >= 0 holds
// for every thread of the warp, so 32 threads arrive on a count-1 barrier
// (the checker evaluated the chain at every point to know that).
gpu.module @condition_chain_depth_24_is_evaluated {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %count = arith.constant 1 : i32
    %tidx = gpu.thread_id x
    %t = arith.index_cast %tidx : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    nvvm.barrier0
    %x0 = arith.addi %t, %t : i32
    %x1 = arith.addi %x0, %x0 : i32
    %x2 = arith.addi %x1, %x1 : i32
    %x3 = arith.addi %x2, %x2 : i32
    %x4 = arith.addi %x3, %x3 : i32
    %x5 = arith.addi %x4, %x4 : i32
    %x6 = arith.addi %x5, %x5 : i32
    %x7 = arith.addi %x6, %x6 : i32
    %x8 = arith.addi %x7, %x7 : i32
    %x9 = arith.addi %x8, %x8 : i32
    %x10 = arith.addi %x9, %x9 : i32
    %x11 = arith.addi %x10, %x10 : i32
    %x12 = arith.addi %x11, %x11 : i32
    %x13 = arith.addi %x12, %x12 : i32
    %x14 = arith.addi %x13, %x13 : i32
    %x15 = arith.addi %x14, %x14 : i32
    %x16 = arith.addi %x15, %x15 : i32
    %x17 = arith.addi %x16, %x16 : i32
    %x18 = arith.addi %x17, %x17 : i32
    %x19 = arith.addi %x18, %x18 : i32
    %x20 = arith.addi %x19, %x19 : i32
    %x21 = arith.addi %x20, %x20 : i32
    %x22 = arith.addi %x21, %x21 : i32
    %x23 = arith.addi %x22, %x22 : i32
    %cond = arith.cmpi sge, %x23, %zero : i32
    scf.if %cond {
      // expected-error @+1 {{arrives 32 times on a barrier initialized with arrival count 1}}
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// The same condition with the count of the warp: silent (r1).
gpu.module @condition_chain_depth_24_counts_right {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %count = arith.constant 32 : i32
    %tidx = gpu.thread_id x
    %t = arith.index_cast %tidx : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %count : !mbarrier.group<1>
    }
    nvvm.barrier0
    %x0 = arith.addi %t, %t : i32
    %x1 = arith.addi %x0, %x0 : i32
    %x2 = arith.addi %x1, %x1 : i32
    %x3 = arith.addi %x2, %x2 : i32
    %x4 = arith.addi %x3, %x3 : i32
    %x5 = arith.addi %x4, %x4 : i32
    %x6 = arith.addi %x5, %x5 : i32
    %x7 = arith.addi %x6, %x6 : i32
    %x8 = arith.addi %x7, %x7 : i32
    %x9 = arith.addi %x8, %x8 : i32
    %x10 = arith.addi %x9, %x9 : i32
    %x11 = arith.addi %x10, %x10 : i32
    %x12 = arith.addi %x11, %x11 : i32
    %x13 = arith.addi %x12, %x12 : i32
    %x14 = arith.addi %x13, %x13 : i32
    %x15 = arith.addi %x14, %x14 : i32
    %x16 = arith.addi %x15, %x15 : i32
    %x17 = arith.addi %x16, %x16 : i32
    %x18 = arith.addi %x17, %x17 : i32
    %x19 = arith.addi %x18, %x18 : i32
    %x20 = arith.addi %x19, %x19 : i32
    %x21 = arith.addi %x20, %x20 : i32
    %x22 = arith.addi %x21, %x21 : i32
    %x23 = arith.addi %x22, %x22 : i32
    %cond = arith.cmpi sge, %x23, %zero : i32
    scf.if %cond {
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// A barrier index 32 doublings deep over a kernel parameter, masked to 0
// (r2): the index is unknown to the interpreter, and deciding that costs
// the chain's length. Silent.
gpu.module @index_chain_depth_32 {
  gpu.func @k(%p: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tidx = gpu.thread_id x
    %t = arith.index_cast %tidx : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %x0 = arith.addi %p, %p : i32
    %x1 = arith.addi %x0, %x0 : i32
    %x2 = arith.addi %x1, %x1 : i32
    %x3 = arith.addi %x2, %x2 : i32
    %x4 = arith.addi %x3, %x3 : i32
    %x5 = arith.addi %x4, %x4 : i32
    %x6 = arith.addi %x5, %x5 : i32
    %x7 = arith.addi %x6, %x6 : i32
    %x8 = arith.addi %x7, %x7 : i32
    %x9 = arith.addi %x8, %x8 : i32
    %x10 = arith.addi %x9, %x9 : i32
    %x11 = arith.addi %x10, %x10 : i32
    %x12 = arith.addi %x11, %x11 : i32
    %x13 = arith.addi %x12, %x12 : i32
    %x14 = arith.addi %x13, %x13 : i32
    %x15 = arith.addi %x14, %x14 : i32
    %x16 = arith.addi %x15, %x15 : i32
    %x17 = arith.addi %x16, %x16 : i32
    %x18 = arith.addi %x17, %x17 : i32
    %x19 = arith.addi %x18, %x18 : i32
    %x20 = arith.addi %x19, %x19 : i32
    %x21 = arith.addi %x20, %x20 : i32
    %x22 = arith.addi %x21, %x21 : i32
    %x23 = arith.addi %x22, %x22 : i32
    %x24 = arith.addi %x23, %x23 : i32
    %x25 = arith.addi %x24, %x24 : i32
    %x26 = arith.addi %x25, %x25 : i32
    %x27 = arith.addi %x26, %x26 : i32
    %x28 = arith.addi %x27, %x27 : i32
    %x29 = arith.addi %x28, %x28 : i32
    %x30 = arith.addi %x29, %x29 : i32
    %x31 = arith.addi %x30, %x30 : i32
    %m = arith.andi %x31, %zero : i32
    %idx = arith.index_cast %m : i32 to index
    mbarrier.arrive %g[%idx] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}

// -----

// A sum of sums 40 deep as a barrier index (its range analysis shares the
// operands as well): bounded, silent.
gpu.module @index_sum_chain_depth_40 {
  gpu.func @k(%p: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tidx = gpu.thread_id x
    %t = arith.index_cast %tidx : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    %x0 = arith.addi %zero, %zero : i32
    %x1 = arith.addi %x0, %x0 : i32
    %x2 = arith.addi %x1, %x1 : i32
    %x3 = arith.addi %x2, %x2 : i32
    %x4 = arith.addi %x3, %x3 : i32
    %x5 = arith.addi %x4, %x4 : i32
    %x6 = arith.addi %x5, %x5 : i32
    %x7 = arith.addi %x6, %x6 : i32
    %x8 = arith.addi %x7, %x7 : i32
    %x9 = arith.addi %x8, %x8 : i32
    %x10 = arith.addi %x9, %x9 : i32
    %x11 = arith.addi %x10, %x10 : i32
    %x12 = arith.addi %x11, %x11 : i32
    %x13 = arith.addi %x12, %x12 : i32
    %x14 = arith.addi %x13, %x13 : i32
    %x15 = arith.addi %x14, %x14 : i32
    %x16 = arith.addi %x15, %x15 : i32
    %x17 = arith.addi %x16, %x16 : i32
    %x18 = arith.addi %x17, %x17 : i32
    %x19 = arith.addi %x18, %x18 : i32
    %x20 = arith.addi %x19, %x19 : i32
    %x21 = arith.addi %x20, %x20 : i32
    %x22 = arith.addi %x21, %x21 : i32
    %x23 = arith.addi %x22, %x22 : i32
    %x24 = arith.addi %x23, %x23 : i32
    %x25 = arith.addi %x24, %x24 : i32
    %x26 = arith.addi %x25, %x25 : i32
    %x27 = arith.addi %x26, %x26 : i32
    %x28 = arith.addi %x27, %x27 : i32
    %x29 = arith.addi %x28, %x28 : i32
    %x30 = arith.addi %x29, %x29 : i32
    %x31 = arith.addi %x30, %x30 : i32
    %x32 = arith.addi %x31, %x31 : i32
    %x33 = arith.addi %x32, %x32 : i32
    %x34 = arith.addi %x33, %x33 : i32
    %x35 = arith.addi %x34, %x34 : i32
    %x36 = arith.addi %x35, %x35 : i32
    %x37 = arith.addi %x36, %x36 : i32
    %x38 = arith.addi %x37, %x37 : i32
    %x39 = arith.addi %x38, %x38 : i32
    %idx = arith.index_cast %x39 : i32 to index
    mbarrier.arrive %g[%idx] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
