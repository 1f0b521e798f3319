// The target is decided once, by mbarrier-attach-target; the passes after it
// read the gpu.module's NVVM target. A PTX version attach-target derived (no
// +ptxNN given) is raised by the pass that emits a later form; an explicit
// one is kept and the conservative form is emitted.
// RUN: mbarrier-opt %s --mbarrier-attach-target --mbarrier-lower-pipes --mbarrier-merge-release-fences | FileCheck %s --check-prefix=DERIVED
// RUN: mbarrier-opt %s --mbarrier-attach-target="features=+ptx80" --mbarrier-lower-pipes --mbarrier-merge-release-fences | FileCheck %s --check-prefix=EXPLICIT
// The conversion raises a derived version to what its ops need (cluster
// forms: PTX 8.0), and reports an explicit one that is too low:
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target,mbarrier-lower-pipes,gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s --check-prefix=CONVERT
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{features=+ptx78},mbarrier-lower-pipes,gpu.module(convert-mbarrier-to-nvvm))" 2>&1 | FileCheck %s --check-prefix=TOOLOW

// CONVERT-LABEL: gpu.module @release_row [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">] attributes {mbarrier.derived_ptx} {
// CONVERT: nvvm.fence.sync_restrict {order = #nvvm.mem_order<release>}
// DERIVED-LABEL: gpu.module @release_row [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">] attributes {mbarrier.derived_ptx} {
// DERIVED: mbarrier.fence_release shared_cta
// EXPLICIT-LABEL: gpu.module @release_row [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
// EXPLICIT-NOT: mbarrier.fence_release
// EXPLICIT: mbarrier.arrive
gpu.module @release_row {
  gpu.func @k() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    %cs = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
    %cslot, %cnext = mbarrier.pipe.wait %p, %cs : !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    mbarrier.pipe.release %p[%cslot] : !mbarrier.pipe<2, tma, cluster = [2, 1], multicast = row>
    gpu.return
  }
}

// DERIVED-LABEL: gpu.module @two_remote [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">] attributes {mbarrier.derived_ptx} {
// DERIVED: mbarrier.fence_release{{$}}
// EXPLICIT-LABEL: gpu.module @two_remote [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
// EXPLICIT-NOT: mbarrier.fence_release
// CONVERT-LABEL: gpu.module @two_remote [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] attributes {mbarrier.derived_ptx} {
// CONVERT: nvvm.mapa
// TOOLOW: error: 'mbarrier.arrive' op needs PTX ISA 8.0
gpu.module @two_remote {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
