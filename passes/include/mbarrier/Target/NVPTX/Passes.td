//===- Passes.td - NVPTX target passes ---------------------*- tablegen -*-===//
#ifndef MBARRIER_TARGET_NVPTX_PASSES_TD
#define MBARRIER_TARGET_NVPTX_PASSES_TD

include "mlir/Pass/PassBase.td"

def MBarrierAttachTarget : Pass<"mbarrier-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach an NVVM target to each gpu.module that has none";
  let description = [{
    Gives every `gpu.module` without a target an `#nvvm.target` with the
    given chip and optimization level. This is the one place the target is
    decided: every later pass reads the module's target. A module that
    already carries targets keeps them (they are validated, not replaced,
    and no second target is appended).

    The PTX ISA version: with `features` empty (the default), the chip's
    minimum (as the NVPTX backend says), marked *derived*
    (`mbarrier.derived_ptx` on the module): a later pass that emits an
    instruction of a later version raises it (the lowest version the
    backend knows at or above what the instruction needs;
    `convert-mbarrier-to-nvvm` raises it to what every op of the module
    needs). An explicit `+ptxNN` is kept if the backend knows it and it is
    not below the chip's minimum, and is never raised: an op it is too low
    for is a located error of `convert-mbarrier-to-nvvm`. Anything else (an
    unknown chip, a malformed feature string, an unknown or too-low PTX
    version) is a located error instead of an LLVM abort.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::gpu::GPUDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"::mlir::mbarrier::kDefaultChip",
           "Target chip, e.g. sm_90 (one the NVPTX backend knows)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features: +ptxNN, or empty to derive the PTX ISA version">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level, 0 to 3">,
  ];
}

#endif // MBARRIER_TARGET_NVPTX_PASSES_TD
