// mbarrier-attach-target: a module's own target is kept (never a second one
// appended); a module without one gets the chip and its minimum PTX version,
// marked derived (mbarrier.derived_ptx), which convert-mbarrier-to-nvvm then
// raises to the lowest version the module's ops need; bad chips and
// features are located errors, never an LLVM abort.
// RUN: mbarrier-opt %s -split-input-file --pass-pipeline="builtin.module(mbarrier-attach-target,gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s
// RUN: mbarrier-opt %s -split-input-file --pass-pipeline="builtin.module(mbarrier-attach-target{chip=sm_120},gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s --check-prefix=SM120
// Attached alone: the chip's minimum, derived; never on a module's own target.
// RUN: mbarrier-opt %s -split-input-file --pass-pipeline="builtin.module(mbarrier-attach-target)" | FileCheck %s --check-prefix=ATTACH
// ATTACH-LABEL: gpu.module @own_target_is_kept [#nvvm.target<chip = "sm_90a">] {
// ATTACH-LABEL: gpu.module @remote_arrival [#nvvm.target<O = 3, chip = "sm_90">] attributes {mbarrier.derived_ptx} {
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{chip=sm_120 features=+ptx86})" 2>&1 | FileCheck %s --check-prefix=BELOW
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{features=+ptx100})" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{features=ptx86})" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{features=+ptx80,+ptx86})" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-attach-target{chip=sm_999})" 2>&1 | FileCheck %s --check-prefix=CHIP

// BELOW: error: target features '+ptx86' ask for PTX ISA 8.6, but sm_120 needs at least PTX ISA 8.7: raise it to +ptx87, or give no features to get the lowest version the chip and the ops need
// UNKNOWN: error: unknown PTX ISA version in target features '+ptx100': this NVPTX backend knows {{.*}}+ptx86
// MALFORMED: error: malformed target features 'ptx86': the NVPTX target takes one PTX ISA version, written +ptxNN
// TWICE: error: target features '+ptx80,+ptx86' name more than one PTX ISA version
// CHIP: error: unknown chip 'sm_999': expected one the NVPTX backend knows ({{.*}}sm_90{{.*}})

// CHECK-LABEL: gpu.module @own_target_is_kept [#nvvm.target<chip = "sm_90a">]
// SM120-LABEL: gpu.module @own_target_is_kept [#nvvm.target<chip = "sm_90a">]
module attributes {gpu.container_module} {
  gpu.module @own_target_is_kept [#nvvm.target<chip = "sm_90a">] {
  }
}

// -----

// Local arrivals and waits: the chip's own minimum (no +ptx feature).
// CHECK-LABEL: gpu.module @local_ops [#nvvm.target<O = 3, chip = "sm_90">]
// SM120-LABEL: gpu.module @local_ops [#nvvm.target<O = 3, chip = "sm_120">]
module attributes {gpu.container_module} {
  gpu.module @local_ops {
    gpu.func @k(%phase: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      gpu.return
    }
  }
}

// -----

// The cluster forms need PTX 8.0, above sm_90's minimum of 7.8.
// CHECK-LABEL: gpu.module @remote_arrival [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// SM120-LABEL: gpu.module @remote_arrival [#nvvm.target<O = 3, chip = "sm_120">]
module attributes {gpu.container_module} {
  gpu.module @remote_arrival {
    gpu.func @k(%peer: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] on %peer : !mbarrier.group<1>
      gpu.return
    }
  }
}

// -----

// `.relaxed` needs PTX 8.6 (and sm_120's 8.7 covers it).
// CHECK-LABEL: gpu.module @relaxed [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">]
// SM120-LABEL: gpu.module @relaxed [#nvvm.target<O = 3, chip = "sm_120">]
module attributes {gpu.container_module} {
  gpu.module @relaxed {
    gpu.func @k(%peer: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] on %peer {sem = #mbarrier.sem<relaxed>} : !mbarrier.group<1>
      gpu.return
    }
  }
}
