//===- Passes.h - mbarrier conversion passes --------------------*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_PASSES_H
#define MBARRIER_CONVERSION_PASSES_H

#include "mbarrier/Conversion/NVPTXTargets.h"

#include "mlir/Pass/Pass.h"
#include <memory>
#include <string>

namespace mlir::mbarrier {

#define GEN_PASS_DECL
#include "mbarrier/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mbarrier/Conversion/Passes.h.inc"

/// Options of the whole-pipeline `mbarrier-to-ptx`. Empty features derive
/// the PTX ISA version (see mbarrier-attach-target).
struct MBarrierToPTXOptions {
  std::string chip = kDefaultChip;
  std::string features;
  unsigned optLevel = 3;
  /// Run mbarrier-check-sync at the start of stage 1.
  bool checkSync = true;
  /// mbarrier-check-sync{strict}: its warnings are errors.
  bool checkSyncStrict = false;
  /// At optLevel >= 1: mbarrier-merge-release-fences first.
  bool mergeReleaseFences = true;
};

/// Stage 1: check synchronization (checkSync), merge release fences
/// (optLevel >= 1), attach the NVVM target to every gpu.module, lower
/// mbarrier ops.
void buildMBarrierToNVVMStage(OpPassManager &pm,
                              const MBarrierToPTXOptions &options);
/// Stage 2: lower scf, gpu, arith, func, cf and NVVM to the LLVM dialect.
void buildGPUToLLVMStage(OpPassManager &pm);

/// Appends the whole pipeline (stage 1, stage 2, serialization): attach an NVVM target, lower mbarrier, scf,
/// gpu, arith, func, cf and NVVM to LLVM, and serialize each gpu.module to
/// PTX (`gpu-module-to-binary{format=isa}`).
void buildMBarrierToPTXPipeline(OpPassManager &pm,
                                const MBarrierToPTXOptions &options);

/// Registers convert-mbarrier-to-nvvm and the mbarrier-to-ptx pipeline (once;
/// later calls do nothing).
void registerAllMBarrierPasses();

} // namespace mlir::mbarrier

#endif // MBARRIER_CONVERSION_PASSES_H
