// With several failing gpu.modules, every error of every module is
// reported, in source order, the same on every run: convert-mbarrier-to-nvvm
// runs once on the whole module in mbarrier-to-ptx (nested on each
// gpu.module, the modules were converted in parallel and MLIR started none
// after the first failure).
// RUN: mbarrier-opt %s -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-to-ptx{check-sync=false})"
// RUN: not mbarrier-compile %s --no-check-sync --emit ptx 2> %t.1
// RUN: not mbarrier-compile %s --no-check-sync --emit ptx 2> %t.2
// RUN: not mbarrier-compile %s --no-check-sync --emit ptx 2> %t.3
// RUN: FileCheck %s --implicit-check-not=error: < %t.1
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.3

// CHECK: all-module-errors.mlir:[[# @LINE + 5]]:3: error: 'gpu.func' op 'known_block_size' has 4096 threads in x
// CHECK-NEXT: all-module-errors.mlir:[[# @LINE + 12]]:5: error: 'mbarrier.wait' op needs sm_90 or newer for mbarrier.try_wait, but the target chip is sm_80
module attributes {gpu.container_module} {
gpu.module @block_too_big {
  // expected-error @+1 {{'known_block_size' has 4096 threads in x: a launch has at most 1024 threads per block}}
  gpu.func @k0() kernel attributes {known_block_size = array<i32: 4096, 1, 1>} {
    gpu.return
  }
}
gpu.module @wait_on_sm_80 [#nvvm.target<chip = "sm_80">] {
  gpu.func @k1(%i: index, %p: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    // expected-error @+1 {{needs sm_90 or newer for mbarrier.try_wait, but the target chip is sm_80}}
    mbarrier.wait %g[%i], %p : !mbarrier.group<1>
    gpu.return
  }
}
// CHECK-NEXT: all-module-errors.mlir:[[# @LINE + 4]]:3: error: 'gpu.func' op 'known_block_size' has 2048 threads in x
// CHECK-NEXT: all-module-errors.mlir:[[# @LINE + 16]]:5: error: 'mbarrier.arrive' op needs sm_90 or newer for the shared::cluster arrive form, but the target chip is sm_80
gpu.module @block_too_big_too {
  // expected-error @+1 {{'known_block_size' has 2048 threads in x}}
  gpu.func @k2() kernel attributes {known_block_size = array<i32: 2048, 1, 1>} {
    gpu.return
  }
}
gpu.module @fine {
  gpu.func @k3() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  }
}
gpu.module @arrive_on_sm_80 [#nvvm.target<chip = "sm_80">] {
  gpu.func @k4(%i: index, %cta: i32) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<1>
    // expected-error @+1 {{needs sm_90 or newer for the shared::cluster arrive form, but the target chip is sm_80}}
    mbarrier.arrive %g[%i] on %cta : !mbarrier.group<1>
    gpu.return
  }
}
}
