// The lowering rejects launch shapes no launch can have, in every function
// (with or without mbarrier ops), and kernels that take a barrier group as a
// parameter: ptxas would accept `.reqnctapercluster 17` and a 4096-thread
// block, giving a cubin that cannot launch.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))"
// mbarrier-compile prints it as compilers do (file:line:col: error:), without
// MLIR's note of the op in generic form. On the first case alone (the first
// 20 lines): with every case in one module, the gpu.modules are converted in
// parallel and MLIR stops starting new ones after the first failure, so
// which of the errors print varies from run to run.
// RUN: rm -rf %t && mkdir -p %t && head -n 20 %s > %t/launch-shape.mlir
// RUN: not mbarrier-compile %t/launch-shape.mlir --emit ptx 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// CHECK: {{^.*}}launch-shape.mlir:[[# @LINE + 4]]:3: error: 'gpu.func' op 'known_cluster_size' has 17 CTAs in x: a launch has at most 16 CTAs per cluster (more than 8 is non-portable

gpu.module @kernels1 {
  // expected-error @+1 {{'known_cluster_size' has 17 CTAs in x: a launch has at most 16 CTAs per cluster (more than 8 is non-portable: the launch must allow non-portable cluster sizes)}}
  gpu.func @cluster_of_17_ctas() kernel attributes {known_cluster_size = array<i32: 17, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @kernels2 {
  // expected-error @+1 {{'known_cluster_size' has 2147483647 CTAs in x}}
  gpu.func @cluster_of_int_max_ctas() kernel attributes {known_cluster_size = array<i32: 2147483647, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @kernels3 {
  // expected-error @+1 {{'known_block_size' has 4096 threads in x: a launch has at most 1024 threads per block}}
  gpu.func @block_of_4096_threads() kernel attributes {known_block_size = array<i32: 4096, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @kernels4 {
  // expected-error @+1 {{'nvvm.reqntid' asks for 2048 threads: a launch has at most 1024 threads per block}}
  llvm.func @reqntid_of_2048_threads() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 1024, 2, 1>} {
    llvm.return
  }
}

// -----

gpu.module @kernels5 {
  // expected-error @+1 {{kernel parameter #0 cannot be '!mbarrier.remote<1>' (a shared-memory address means nothing outside its CTA)}}
  gpu.func @remote_view_as_kernel_parameter(%r: !mbarrier.remote<1>) kernel {
    gpu.return
  }
}
