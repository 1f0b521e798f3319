// mbarrier-check-sync runs first in mbarrier-to-ptx (and its stage 1) and in
// mbarrier-compile: its errors stop the pipeline, its warnings are printed
// and the compilation goes on; check-sync=false / --no-check-sync turn it off.
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx)" 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm)" 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx{check-sync=false})" | FileCheck %s --check-prefix=OFF
// RUN: not mbarrier-compile %s --emit ptx 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: mbarrier-compile --no-check-sync %s --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: mbarrier-compile %S/Inputs/maybe-inval.mlir --emit ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// ERR: error: {{.*}}arrives 32 times on a barrier initialized with arrival count 1
// OFF: gpu.binary @whole_warp
// PTX: mbarrier.arrive.shared.b64
// WARN: maybe-inval.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: may use a barrier after mbarrier.inval

gpu.module @whole_warp {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
