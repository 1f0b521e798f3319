// The stock mlir-opt of the MLIR wheel, with our plugin, runs the whole
// mbarrier-to-ptx pipeline; the PTX (in the gpu.binary's assembly string)
// has the cluster form for the remote view and never the local one, anywhere
// in the output (not only after the last match): no .shared.b64 form
// (mbarrier.arrive.shared.b64, ...) and no .shared::cta.b64 form.
// (check-sync=false: the kernel is an instruction-form snippet, not a barrier
// protocol; the plugin's mbarrier-check-sync runs in test/Analysis/SyncCheck/exit.mlir.)
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-to-ptx{chip=sm_90 features=+ptx86 check-sync=false})" \
// RUN:   | FileCheck %s --implicit-check-not=mbarrier.arrive.shared.b64 \
// RUN:       --implicit-check-not=.shared.b64 --implicit-check-not=.shared::cta.b64
// An optimization level outside 0-3 is an option error, not an assertion:
// RUN: not %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-to-ptx{O=9})" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: Cannot find option named '9'!
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s --check-prefix=NVVM --implicit-check-not=" mbarrier."

// CHECK: gpu.binary @kernels
// CHECK-SAME: chip = "sm_90"
// CHECK-SAME: mapa.shared::cluster.u64
// CHECK-SAME: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd
// CHECK-NOT: mbarrier.arrive.shared.b64

// NVVM-LABEL: gpu.func @arrive_remote(
// NVVM: nvvm.mapa
// NVVM-NEXT: llvm.getelementptr
// NVVM-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];"
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @arrive_remote() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      gpu.return
    }
  }
}
