// Ops are checked against the target before lowering: a lower chip or PTX
// version is a located error naming the op and what it needs.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))"

gpu.module @cluster_forms_need_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @remote_view_needs_sm_90(%g: !mbarrier.group<1>) {
    // expected-error @+1 {{needs sm_90 or newer for a remote view (mapa.shared::cluster), but the target chip is sm_80}}
    %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @on_cta_needs_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @arrive_on_cta_needs_sm_90(%g: !mbarrier.group<1>, %i: index, %cta: i32) {
    // expected-error @+1 {{needs sm_90 or newer for the shared::cluster arrive form, but the target chip is sm_80}}
    mbarrier.arrive %g[%i] on %cta : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @wait_needs_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @wait_needs_try_wait_sm_90(%g: !mbarrier.group<1>, %i: index, %p: i32) {
    // expected-error @+1 {{needs sm_90 or newer for mbarrier.try_wait, but the target chip is sm_80}}
    mbarrier.wait %g[%i], %p : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @relaxed_needs_ptx86 [#nvvm.target<chip = "sm_90">] {
  func.func @relaxed_arrive_needs_ptx_8_6(%g: !mbarrier.group<1>, %i: index) {
    // expected-error @+1 {{sem relaxed needs PTX ISA 8.6, but the target (sm_90, features '') emits PTX 7.8: add +ptx86 to the target features}}
    mbarrier.arrive %g[%i] {sem = #mbarrier.sem<relaxed>} : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @tcgen05_needs_sm_100a [#nvvm.target<chip = "sm_90", features = "+ptx86">] {
  func.func @tcgen05_commit_needs_sm_100a(%g: !mbarrier.group<1>, %i: index) {
    // expected-error @+1 {{needs sm_100a or sm_101a (tcgen05.commit), but the target chip is sm_90}}
    mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<1>
    return
  }
}
