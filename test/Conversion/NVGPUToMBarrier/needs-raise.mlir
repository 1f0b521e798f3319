// nvgpu ops through mbarrier-to-ptx without raise-nvgpu=true: nothing in
// that pipeline lowers nvgpu, so the first nvgpu op of each gpu.module is an
// error that names the option (it was "failed to legalize operation
// 'gpu.func'"). mbarrier-compile prints it once, located.
// RUN: mbarrier-opt %s -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-to-ptx{chip=sm_90 check-sync=false})"
// RUN: not mbarrier-compile %s --emit ptx 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not="failed to legalize"
// With it, the same input compiles.
// RUN: mbarrier-compile %s --raise-nvgpu --emit ptx | FileCheck %s --check-prefix=RAISED

// CHECK: needs-raise.mlir:[[# @LINE + 13]]:12: error: 'nvgpu.mbarrier.create' op is an nvgpu op, which this pipeline lowers only after raising nvgpu into the mbarrier dialect: pass raise-nvgpu=true (mbarrier-compile --raise-nvgpu, compile(raise_nvgpu=True))
// RAISED-LABEL: .entry local_wait(
// RAISED: mbarrier.try_wait.parity.shared.b64

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @local_wait() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %false = arith.constant false
      %ticks = arith.constant 1000 : index
      // expected-error @+1 {{is an nvgpu op, which this pipeline lowers only after raising nvgpu into the mbarrier dialect: pass raise-nvgpu=true (mbarrier-compile --raise-nvgpu, compile(raise_nvgpu=True))}}
      %g = nvgpu.mbarrier.create -> !barriers
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %g[%c0], %c1 : !barriers
      }
      gpu.barrier
      scf.if %leader {
        %t = nvgpu.mbarrier.arrive %g[%c0] : !barriers -> !nvgpu.mbarrier.token
      }
      nvgpu.mbarrier.try_wait.parity %g[%c0], %false, %ticks : !barriers
      gpu.return
    }
  }
}
