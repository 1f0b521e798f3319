// Ops are checked against the target before lowering: a lower chip or PTX
// version is a located error naming the op and what it needs.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))"

gpu.module @cluster_forms_need_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @remote_address_needs_sm_90(%g: !mbarrier.group<1>, %i: index) -> !llvm.ptr<7> {
    // A view alone emits no instruction; its mapped address does.
    %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    // expected-error @+1 {{needs sm_90 or newer for the shared::cluster address (mapa.shared::cluster), but the target chip is sm_80}}
    %p = mbarrier.ptr %r[%i] : !mbarrier.remote<1> -> !llvm.ptr<7>
    return %p : !llvm.ptr<7>
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
    // expected-error @+1 {{needs PTX ISA 8.6 for sem relaxed, but the target (sm_90, features '') emits PTX 7.8: raise it to +ptx86, or give no features to derive the version}}
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

// -----

gpu.module @cluster_forms_need_ptx80 [#nvvm.target<chip = "sm_90">] {
  func.func @remote_arrive_needs_ptx_8_0(%g: !mbarrier.group<1>, %i: index) {
    %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    // expected-error @+1 {{needs PTX ISA 8.0 for the shared::cluster arrive form, but the target (sm_90, features '') emits PTX 7.8: raise it to +ptx80, or give no features to derive the version}}
    mbarrier.arrive %r[%i] : !mbarrier.remote<1>
    return
  }
}

// -----

gpu.module @counted_arrive_needs_sm_90 [#nvvm.target<chip = "sm_80", features = "+ptx86">] {
  func.func @counted_arrive_needs_sm_90(%g: !mbarrier.group<1>, %i: index, %c: i32) {
    // expected-error @+1 {{needs sm_90 or newer for a counted arrive, but the target chip is sm_80}}
    mbarrier.arrive %g[%i], count %c : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @test_wait_needs_ptx71 [#nvvm.target<chip = "sm_80">] {
  func.func @test_wait_needs_ptx_7_1(%g: !mbarrier.group<1>, %i: index, %p: i32) -> i1 {
    // expected-error @+1 {{needs PTX ISA 7.1 for mbarrier.test_wait.parity, but the target (sm_80, features '') emits PTX 7.0: raise it to +ptx71, or give no features to derive the version}}
    %ok = mbarrier.test_wait %g[%i], %p : !mbarrier.group<1>
    return %ok : i1
  }
}

// -----

gpu.module @fence_init_needs_ptx80 [#nvvm.target<chip = "sm_90">] {
  func.func @fence_init_needs_ptx_8_0() {
    // expected-error @+1 {{needs PTX ISA 8.0 for fence.mbarrier_init}}
    mbarrier.fence_init
    return
  }
}

// -----

// expected-error @+1 {{target: unknown chip 'sm_91': expected one the NVPTX backend knows (}}
gpu.module @unknown_chip_is_an_error [#nvvm.target<chip = "sm_91">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

gpu.module @tcgen05_is_not_on_sm_100f [#nvvm.target<chip = "sm_100f">] {
  func.func @tcgen05_commit_needs_the_a_variant(%g: !mbarrier.group<1>, %i: index) {
    // expected-error @+1 {{needs sm_100a or sm_101a (tcgen05.commit), but the target chip is sm_100f}}
    mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<1>
    return
  }
}
