// mbarrier-to-ptx compiles gpu.module kernels: a gpu.launch whose body is
// not outlined is an error naming gpu-kernel-outlining (mbarrier-compile
// said "the module has no gpu.module to compile"); outlined first, the
// same input compiles.
// RUN: mbarrier-opt %s -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-to-ptx{check-sync=false})"
// RUN: not mbarrier-compile %s --no-check-sync --emit ptx 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: mbarrier-opt %s --gpu-kernel-outlining | mbarrier-compile - --no-check-sync --emit ptx | FileCheck %s --check-prefix=OUTLINED

// CHECK: launch-not-outlined.mlir:[[# @LINE + 9]]:5: error: 'gpu.launch' op is not outlined: mbarrier-to-ptx compiles gpu.module kernels; run gpu-kernel-outlining first (mbarrier-opt --gpu-kernel-outlining), which moves the body into one
// OUTLINED-LABEL: .entry host_kernel(
// OUTLINED: mbarrier.init.shared.b64

module {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    // expected-error @+1 {{'gpu.launch' op is not outlined: mbarrier-to-ptx compiles gpu.module kernels; run gpu-kernel-outlining first (mbarrier-opt --gpu-kernel-outlining), which moves the body into one}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %g = mbarrier.alloc : !mbarrier.group<1>
      %c0 = arith.constant 0 : index
      %n = arith.constant 1 : i32
      mbarrier.init %g[%c0], %n : !mbarrier.group<1>
      gpu.terminator
    }
    return
  }
}
