// A kernel with a checker warning only (test/Analysis/SyncCheck/pipeline.mlir): on some
// path the barrier is invalidated before the next arrival.
gpu.module @maybe_inval {
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
    gpu.return
  }
}
