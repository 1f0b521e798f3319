// mbarrier-check-sync{strict=true}: warnings are errors and fail the pass;
// through the pipeline as mbarrier-to-ptx{check-sync-strict=true}, and
// `mbarrier-compile --check-sync-strict`. Without it the same kernel only
// warns and compiles.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync="strict=true"
// RUN: mbarrier-opt %s --mbarrier-check-sync 2>&1 -o /dev/null | FileCheck %s --check-prefix=WARN
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{check-sync-strict=true})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm)" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not mbarrier-compile %s --check-sync-strict --emit ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: mbarrier-compile %s --emit ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN

// WARN: warning: may use a barrier after mbarrier.inval
// WARN-NOT: error: may use
// STRICT: error: {{.*}}may use a barrier after mbarrier.inval

// On some path (a runtime flag) the barrier is invalidated before the
// arrival: a warning, an error when strict.
gpu.module @maybe_inval {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %flag {
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
    }
    // expected-error @+1 {{may use a barrier after mbarrier.inval: on some path the barrier is invalidated and not initialized again}}
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    gpu.return
  }
}
