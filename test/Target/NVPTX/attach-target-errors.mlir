// mbarrier-attach-target: a chip or feature string the NVPTX backend would
// not take, given as a pass option or carried by a gpu.module, is a located
// error, never an LLVM abort. One input per option set (split-file).
// RUN: split-file %s %t
// RUN: mbarrier-opt %t/unknown-chip.mlir -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target{chip=sm_91})"
// RUN: mbarrier-opt %t/malformed.mlir -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target{features=ptx86})"
// RUN: mbarrier-opt %t/unknown-ptx.mlir -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target{features=+ptx99})"
// RUN: mbarrier-opt %t/too-low.mlir -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target{chip=sm_90 features=+ptx70})"
// RUN: mbarrier-opt %t/own-target.mlir -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-attach-target)"
// The same through the whole pipeline and mbarrier-compile:
// (printed as compilers do, without MLIR's note of the op in generic form):
// RUN: not mbarrier-compile %t/too-low.mlir --chip sm_90 --features=+ptx70 --emit ptx 2>&1 | FileCheck %s --check-prefix=COMPILE --implicit-check-not=Traceback --implicit-check-not="see current operation"
// COMPILE: {{^.*}}too-low.mlir:2:1: error: target features '+ptx70' ask for PTX ISA 7.0, but sm_90 needs at least PTX ISA 7.8

//--- unknown-chip.mlir
// expected-error @+1 {{unknown chip 'sm_91': expected one the NVPTX backend knows (}}
module {
  gpu.module @m {
  }
}

//--- malformed.mlir
// expected-error @+1 {{malformed target features 'ptx86': the NVPTX target takes one PTX ISA version, written +ptxNN (e.g. +ptx86), or nothing to derive the lowest version the chip and the ops need}}
module {
  gpu.module @m {
  }
}

//--- unknown-ptx.mlir
// expected-error @+1 {{unknown PTX ISA version in target features '+ptx99': this NVPTX backend knows +ptx}}
module {
  gpu.module @m {
  }
}

//--- too-low.mlir
// expected-error @+1 {{target features '+ptx70' ask for PTX ISA 7.0, but sm_90 needs at least PTX ISA 7.8: raise it to +ptx78, or give no features to get the lowest version the chip and the ops need}}
module {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

//--- own-target.mlir
// A module's own target is validated, not replaced.
module {
  // expected-error @+1 {{'gpu.module' op target: target features '+ptx80,+ptx86' name more than one PTX ISA version}}
  gpu.module @two_versions [#nvvm.target<chip = "sm_90", features = "+ptx80,+ptx86">] {
  }
}

// -----

module {
  // expected-error @+1 {{'gpu.module' op target: unknown chip 'sm_91': expected one the NVPTX backend knows (}}
  gpu.module @unknown_chip [#nvvm.target<chip = "sm_91">] {
  }
}
