// Correct-kernel corpus: a consumer that polls with test_wait instead of
// blocking in try_wait. The checker must be silent (no error, no warning),
// and the kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.test_wait.parity

// NVIDIA/cutlass include/cutlass/arch/barrier.h (`ClusterBarrier::
// test_wait`, the non-blocking probe behind
// PipelineTmaAsync::consumer_test_wait in
// include/cutlass/pipeline/sm90_pipeline.hpp): warp 0's lane 0 copies a
// tile into shared memory (arrive_expect_tx + bulk copy, count 1); the
// other warp spins in an scf.while over test_wait, with a nanosleep
// between probes, then reads the tile.
gpu.module @polling {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  gpu.func @poll(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 1024 : i32
    %true = arith.constant true
    %nap = arith.constant 20 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %consumer = arith.cmpi uge, %tid, %c32 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    %d = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %d7 = llvm.addrspacecast %d : !llvm.ptr<3> to !llvm.ptr<7>
    scf.if %leader {
      mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %d7, %src, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    }
    scf.if %consumer {
      scf.while : () -> () {
        %ready = mbarrier.test_wait %g[%c0], %zero : !mbarrier.group<1>
        %again = arith.xori %ready, %true : i1
        scf.condition(%again)
      } do {
        nvvm.nanosleep %nap
        scf.yield
      }
    }
    gpu.return
  }
}
