// Fuzzer crasher: mbarrier ops in a gpu.module's body (a graph region, so
// use-before-def parses) lowered to NVVM ops that LLVM translation
// dereferenced without a function: a segfault in mbarrier-to-ptx. Now the
// verifier rejects them before any pass runs.
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx)" 2>&1 | FileCheck %s
// CHECK: error: 'mbarrier.arrive' op must be inside a function (gpu.func, func.func or llvm.func)
// CHECK-NOT: Stack dump
module attributes {gpu.container_module} {
  gpu.module @kernels {
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    gpu.func @arrive_remote() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      gpu.return
    }
  }
}
