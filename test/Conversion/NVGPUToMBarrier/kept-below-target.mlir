// What stays nvgpu after mbarrier-raise-nvgpu (a group kept with a remark)
// is lowered the upstream way, whose mbarrier intrinsics need sm_80: below
// it, the first such op of the module is a located error, not an LLVM abort
// ("Cannot select: intrinsic %llvm.nvvm.mbarrier.init.shared", found by the
// fuzzer).
// RUN: mbarrier-opt %s -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-to-ptx{raise-nvgpu=true chip=sm_61 features=+ptx76 O=0})"

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kept_group() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'nvgpu.mbarrier.create' op stays nvgpu, and upstream's lowering of it (convert-nvgpu-to-nvvm) needs sm_80 or newer, but the target chip is sm_61}}
      %g = nvgpu.mbarrier.create -> !barriers
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        // expected-remark @+1 {{keeps its barrier group in nvgpu (mbarrier-raise-nvgpu): the arrival count 0 is outside [1, 1048575]}}
        nvgpu.mbarrier.init %g[%c0], %c0 : !barriers
      }
      gpu.return
    }
  }
}
