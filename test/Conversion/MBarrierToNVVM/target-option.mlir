// Without an NVVM target on the module, the pass checks against its
// chip/features options; with neither, it checks nothing.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --convert-mbarrier-to-nvvm="chip=sm_80"
// RUN: mbarrier-opt %s -split-input-file --convert-mbarrier-to-nvvm | FileCheck %s
// RUN: not mbarrier-opt %s --convert-mbarrier-to-nvvm="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=BADCHIP

// CHECK-LABEL: func.func @fence_init_needs_sm_90(
// CHECK: nvvm.fence.mbarrier.init
// BADCHIP: error: unknown chip 'gfx90a': expected one the NVPTX backend knows ({{.*}}sm_90{{.*}})
func.func @fence_init_needs_sm_90() {
  // expected-error @+1 {{needs sm_90 or newer for fence.mbarrier_init, but the target chip is sm_80}}
  mbarrier.fence_init
  return
}

// -----

// CHECK-LABEL: func.func @expect_tx_needs_sm_90(
// CHECK: nvvm.mbarrier.expect_tx
func.func @expect_tx_needs_sm_90(%g: !mbarrier.group<1>, %i: index, %b: i32) {
  // expected-error @+1 {{needs sm_90 or newer for mbarrier.expect_tx, but the target chip is sm_80}}
  mbarrier.expect_tx %g[%i], %b : !mbarrier.group<1>
  return
}

// -----

// CHECK-LABEL: func.func @local_arrive_is_fine_on_sm_80(
// CHECK: nvvm.mbarrier.arrive
func.func @local_arrive_is_fine_on_sm_80(%g: !mbarrier.group<1>, %i: index) {
  mbarrier.arrive %g[%i] : !mbarrier.group<1>
  return
}

