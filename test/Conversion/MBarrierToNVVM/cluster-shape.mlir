// A declared cluster shape with a zero is an error before lowering: the NVPTX
// backend would assert on `.reqnctapercluster 0, ...` (found by the fuzzer).
// RUN: mbarrier-opt %s -verify-diagnostics --convert-mbarrier-to-nvvm
// RUN: not mbarrier-compile %s --emit ptx 2>&1 | FileCheck %s

// CHECK: 'gpu.func' op 'known_cluster_size' must have three positive dimensions (x, y, z), got array<i32: 0, 1, 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'known_cluster_size' must have three positive dimensions (x, y, z), got array<i32: 0, 1, 1>}}
    gpu.func @zero_cluster_dim_is_rejected() kernel attributes {known_cluster_size = array<i32: 0, 1, 1>} {
      gpu.return
    }
  }
}

