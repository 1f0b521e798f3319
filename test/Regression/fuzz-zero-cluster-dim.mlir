// Fuzzer crasher: a zero in known_cluster_size reached the NVPTX asm printer,
// which asserts on `.reqnctapercluster 0, ...`. Now a located error.
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx)" 2>&1 | FileCheck %s
// CHECK: error: 'mbarrier.alloc' op is inside a function whose launch shape no launch can have: 'known_cluster_size' must have three positive dimensions (x, y, z), got array<i32: 2, 0, 1>
// CHECK-NOT: Assertion
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @on_cta_forms(%cta: i32) kernel attributes {known_cluster_size = array<i32: 2, 0, 1>} {
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      mbarrier.arrive %g[%c1] on %cta : !mbarrier.group<2>
      gpu.return
    }
  }
}
