// A launch shape attribute of another kind than an i32 array (array<i64>,
// a string) is a located error: every reader of the shape (the checker, the
// lowering) would skip it and see no launch shape at all. The NVVM dialect
// rejects nvvm.reqntid and nvvm.cluster_dim of another kind itself.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics

func.func @block_size_i64() attributes {known_block_size = array<i64: 64, 1, 1>} {
  // expected-error @+1 {{'mbarrier.alloc' op is inside a function whose launch shape no launch can have: 'known_block_size' must be an i32 array (array<i32: x, y, z>), got array<i64: 64, 1, 1>}}
  %g = mbarrier.alloc : !mbarrier.group<1>
  return
}

// -----

llvm.func @cluster_size_string() attributes {nvvm.kernel, known_cluster_size = "2"} {
  // expected-error @+1 {{'known_cluster_size' must be an i32 array (array<i32: x, y, z>), got "2"}}
  %g = mbarrier.alloc : !mbarrier.group<1>
  llvm.return
}

// -----

// expected-error @+1 {{'"nvvm.reqntid"' attribute must be integer array with maximum 3 index}}
llvm.func @reqntid_i64() attributes {nvvm.kernel, nvvm.reqntid = array<i64: 64, 1, 1>} {
  %g = mbarrier.alloc : !mbarrier.group<1>
  llvm.return
}

// -----

// expected-error @+1 {{'"nvvm.cluster_dim"' attribute must be integer array with maximum 3 index}}
llvm.func @cluster_dim_string() attributes {nvvm.kernel, nvvm.cluster_dim = "2"} {
  %g = mbarrier.alloc : !mbarrier.group<1>
  llvm.return
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'"nvvm.reqntid"' attribute must be integer array with maximum 3 index}}
  gpu.func @reqntid_string_on_gpu_func() kernel attributes {nvvm.reqntid = "64"} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    gpu.return
  }
}
