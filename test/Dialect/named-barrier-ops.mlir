// Round trip of the named-barrier ops of docs/design.md "Named barriers", in the custom and the generic form.
// RUN: mbarrier-opt %s | mbarrier-opt | FileCheck %s
// RUN: mbarrier-opt %s --mlir-print-op-generic | mbarrier-opt | FileCheck %s
// RUN: %mlir_opt %mbarrier_plugin_opts %s | %mlir_opt %mbarrier_plugin_opts | FileCheck %s

// CHECK: mbarrier.named_barrier @wg1_turn{{$}}
mbarrier.named_barrier @wg1_turn
// CHECK: mbarrier.named_barrier @epilogue id 1{{$}}
mbarrier.named_barrier @epilogue id 1
// CHECK: mbarrier.named_barrier @vote{{$}}
mbarrier.named_barrier @vote

// CHECK-LABEL: func.func @named_barrier_uses(
// CHECK-SAME: %[[PRED:[^:]*]]: i1
func.func @named_barrier_uses(%pred: i1) -> (i32, i1, i1) attributes {known_block_size = array<i32: 384, 1, 1>} {
  // CHECK: mbarrier.bar_sync @wg1_turn threads 256{{$}}
  mbarrier.bar_sync @wg1_turn threads 256
  // CHECK: mbarrier.bar_arrive @wg1_turn threads 256{{$}}
  mbarrier.bar_arrive @wg1_turn threads 256
  // CHECK: mbarrier.bar_sync @epilogue threads 384{{$}}
  mbarrier.bar_sync @epilogue threads 384
  // CHECK: %{{.*}} = mbarrier.bar_red popc @vote threads 128, %[[PRED]] : i32
  %n = mbarrier.bar_red popc @vote threads 128, %pred : i32
  // CHECK: %{{.*}} = mbarrier.bar_red and @vote threads 128, %[[PRED]] : i1
  %all = mbarrier.bar_red and @vote threads 128, %pred : i1
  // CHECK: %{{.*}} = mbarrier.bar_red or @vote threads 128, %[[PRED]] : i1
  %any = mbarrier.bar_red or @vote threads 128, %pred : i1
  return %n, %all, %any : i32, i1, i1
}

// Inside a gpu.module, whose symbol table the kernel's uses resolve in.
// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK: mbarrier.named_barrier @turn id 3{{$}}
  mbarrier.named_barrier @turn id 3
  // CHECK: gpu.func @k()
  gpu.func @k() kernel {
    // CHECK: mbarrier.bar_sync @turn threads 64{{$}}
    mbarrier.bar_sync @turn threads 64
    gpu.return
  }
}
