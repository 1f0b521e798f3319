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

// -----

// A module's own target is validated too: sm_120 cannot take PTX 8.6.
// expected-error @+1 {{target: target features '+ptx86' ask for PTX ISA 8.6, but sm_120 needs at least PTX ISA 8.7}}
gpu.module @own_target_below_chip_minimum [#nvvm.target<chip = "sm_120", features = "+ptx86">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// A module's own target is parsed as the NVPTX backend would take it: a
// feature string that is not one +ptxNN is a located error, not an abort.
// expected-error @+1 {{'gpu.module' op target: malformed target features 'ptx86': the NVPTX target takes one PTX ISA version, written +ptxNN (e.g. +ptx86), or nothing to derive the lowest version the chip and the ops need}}
gpu.module @malformed_features [#nvvm.target<chip = "sm_90", features = "ptx86">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// expected-error @+1 {{'gpu.module' op target: unknown PTX ISA version in target features '+ptx99': this NVPTX backend knows +ptx}}
gpu.module @unknown_ptx_version [#nvvm.target<chip = "sm_90", features = "+ptx99">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// The release fence of fence merging is PTX 8.6 (fence.release), sm_90.
gpu.module @fence_release_needs_ptx86 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @fence_release_needs_ptx_8_6() {
    // expected-error @+1 {{needs PTX ISA 8.6 for fence.release.cluster, but the target (sm_90, features '+ptx80') emits PTX 8.0: raise it to +ptx86, or give no features to derive the version}}
    mbarrier.fence_release
    return
  }
}

// -----

gpu.module @fence_release_shared_cta_needs_ptx86 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @fence_release_shared_cta_needs_ptx_8_6() {
    // expected-error @+1 {{needs PTX ISA 8.6 for fence.release.sync_restrict::shared::cta.cluster, but the target (sm_90, features '+ptx80') emits PTX 8.0}}
    mbarrier.fence_release shared_cta
    return
  }
}

// -----

gpu.module @fence_release_needs_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @fence_release_needs_sm_90() {
    // expected-error @+1 {{needs sm_90 or newer for fence.release.cluster, but the target chip is sm_80}}
    mbarrier.fence_release
    return
  }
}

// -----

// expected-error @+1 {{'gpu.module' op target: target features '+ptx80,+ptx86' name more than one PTX ISA version}}
gpu.module @two_ptx_versions [#nvvm.target<chip = "sm_90", features = "+ptx80,+ptx86">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// expected-error @+1 {{'gpu.module' op target: target features '+ptx70' ask for PTX ISA 7.0, but sm_90 needs at least PTX ISA 7.8: raise it to +ptx78, or give no features to get the lowest version the chip and the ops need}}
gpu.module @ptx_version_below_the_chip [#nvvm.target<chip = "sm_90", features = "+ptx70">] {
  func.func @any_mbarrier_op(%g: !mbarrier.group<1>, %i: index) {
    mbarrier.arrive %g[%i] : !mbarrier.group<1>
    return
  }
}

// -----

// A barrier group as a kernel parameter, even one no op uses (the verifier
// sees only the ops that use it).
gpu.module @group_kernel_parameter {
  // expected-error @+1 {{'gpu.func' op kernel parameter #1 cannot be '!mbarrier.remote<2>' (a shared-memory address means nothing outside its CTA); make the group inside the kernel with mbarrier.alloc or mbarrier.view}}
  gpu.func @unused_group_parameter(%x: i32, %r: !mbarrier.remote<2>) kernel {
    gpu.return
  }
}

// -----

// An upstream bulk copy beside ours: into the CTA's own shared memory (a
// ptr<3> destination) it is the .shared::cta form, PTX 8.6; below, the NVPTX
// backend would stop with "Cannot select" (found by test/fuzz on the
// production corpus's deepep_tma_ring with features +ptx84).
gpu.module @bulk_copy_into_shared_cta [#nvvm.target<chip = "sm_90a", features = "+ptx84">] {
  func.func @bulk_copy_ptx84(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>, %n: i32) {
    // expected-error @+1 {{'nvvm.cp.async.bulk.shared.cluster.global' op needs PTX ISA 8.6 for cp.async.bulk into .shared::cta (a !llvm.ptr<3> destination), but the target (sm_90a, features '+ptx84') emits PTX 8.4: raise it to +ptx86, or give no features to derive the version}}
    nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %n : !llvm.ptr<3>, !llvm.ptr<1>
    return
  }
}

// -----

// The bulk copies need sm_90.
gpu.module @bulk_store_needs_sm_90 [#nvvm.target<chip = "sm_80">] {
  func.func @bulk_store_sm80(%dst: !llvm.ptr<1>, %src: !llvm.ptr<3>, %n: i32) {
    // expected-error @+1 {{'nvvm.cp.async.bulk.global.shared.cta' op needs sm_90 or newer for cp.async.bulk, but the target chip is sm_80}}
    nvvm.cp.async.bulk.global.shared.cta %dst, %src, %n : !llvm.ptr<1>, !llvm.ptr<3>
    return
  }
}

// -----

// Into a ptr<7> destination (.shared::cluster) PTX 8.4 is enough.
gpu.module @bulk_copy_into_shared_cluster [#nvvm.target<chip = "sm_90a", features = "+ptx84">] {
  func.func @bulk_copy_cluster_ptx84(%dst: !llvm.ptr<7>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>, %n: i32) {
    nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %n : !llvm.ptr<7>, !llvm.ptr<1>
    return
  }
}
