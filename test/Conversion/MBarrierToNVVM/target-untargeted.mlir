// The target of an op is its gpu.module's #nvvm.target (mbarrier-attach-target,
// the one target decision): there the op is checked; outside any targeted
// gpu.module (a bare func.func, a gpu.module without a target) it is lowered
// and checked against nothing.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --convert-mbarrier-to-nvvm | FileCheck %s
// The passes after mbarrier-attach-target take no target of their own:
// RUN: not mbarrier-opt %s -split-input-file --convert-mbarrier-to-nvvm="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=NOCHIP
// RUN: not mbarrier-opt %s -split-input-file --mbarrier-lower-pipes="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=NOCHIP
// RUN: not mbarrier-opt %s -split-input-file --mbarrier-merge-release-fences="features=+ptx86" 2>&1 | FileCheck %s --check-prefix=NOFEATURES
// NOCHIP: no such option chip
// NOFEATURES: no such option features

// CHECK-LABEL: func.func @fence_init_untargeted(
// CHECK: nvvm.fence.mbarrier.init
func.func @fence_init_untargeted() {
  mbarrier.fence_init
  return
}

// -----

gpu.module @sm80 [#nvvm.target<chip = "sm_80">] {
  func.func @fence_init_needs_sm_90() {
    // expected-error @+1 {{needs sm_90 or newer for fence.mbarrier_init, but the target chip is sm_80}}
    mbarrier.fence_init
    return
  }
}

// -----

// CHECK-LABEL: gpu.module @no_target
// CHECK: nvvm.mbarrier.expect_tx
gpu.module @no_target {
  func.func @expect_tx_untargeted(%g: !mbarrier.group<1>, %i: index, %b: i32) {
    mbarrier.expect_tx %g[%i], %b : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @sm80 [#nvvm.target<chip = "sm_80">] {
  func.func @expect_tx_needs_sm_90(%g: !mbarrier.group<1>, %i: index, %b: i32) {
    // expected-error @+1 {{needs sm_90 or newer for mbarrier.expect_tx, but the target chip is sm_80}}
    mbarrier.expect_tx %g[%i], %b : !mbarrier.group<1>
    return
  }
}

// -----

// CHECK-LABEL: gpu.module @sm80
// CHECK: nvvm.mbarrier.arrive
gpu.module @sm80 [#nvvm.target<chip = "sm_80">] {
  func.func @local_arrive_is_fine_on_sm_80(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// expected-error @+1 {{'gpu.module' op target: unknown chip 'gfx90a': expected one the NVPTX backend knows}}
gpu.module @bad_chip [#nvvm.target<chip = "gfx90a">] {
  func.func @f() {
    mbarrier.fence_init
    return
  }
}
