// mbarrier.fence_release: fence.release.cluster through LLVM's fence
// (syncscope "cluster", release; the NVPTX backend prints fence.release from
// PTX 8.6 on), and with shared_cta the restricted NVVM fence.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not=nvvm.fence --implicit-check-not=llvm.fence

// CHECK-LABEL: func.func @fences(
// CHECK-NEXT: llvm.fence syncscope("cluster") release
// CHECK-NEXT: nvvm.fence.sync_restrict {order = #nvvm.mem_order<release>}
// CHECK-NEXT: return
func.func @fences() {
  mbarrier.fence_release
  mbarrier.fence_release shared_cta
  return
}
