//===- Pipelines.h - the mbarrier-to-ptx pipeline and its stages -*- C++ -*-===//
#ifndef MBARRIER_PIPELINES_PIPELINES_H
#define MBARRIER_PIPELINES_PIPELINES_H

#include "mbarrier/Target/NVPTX/NVPTXTargets.h"

#include "mlir/Pass/PassManager.h"
#include <cstdint>
#include <string>

namespace mlir::mbarrier {

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
  /// convert-mbarrier-to-nvvm's debug-waits: the bound in ns of every
  /// blocking wait, past which it records where it is stuck and traps (0:
  /// off, the waits unbounded).
  uint64_t debugWaits = 0;
  /// mbarrier-raise-nvgpu after the target is attached, and
  /// convert-nvgpu-to-nvvm inside gpu.modules after the mbarrier lowering
  /// (for the nvgpu ops that have no counterpart or stay nvgpu): nvgpu
  /// kernels compile through the pipeline (docs/interop.md).
  bool raiseNVGPU = false;
  /// mbarrier-allocate-named-barriers' `reserved`: hardware barrier ids not
  /// to assign to named barriers declared without one ("0,1-7").
  std::string namedBarrierReserved = "0";
};

/// Stage 1: attach the NVVM target to every gpu.module (the one target
/// decision), raise nvgpu (raiseNVGPU), lower pipes, assign named-barrier
/// ids, check synchronization (checkSync), merge release fences
/// (optLevel >= 1), lower mbarrier ops (and, with raiseNVGPU, what is left
/// of nvgpu).
void buildMBarrierToNVVMStage(OpPassManager &pm,
                              const MBarrierToPTXOptions &options);
/// Stage 2: lower scf, gpu, arith, func, cf and NVVM to the LLVM dialect.
void buildGPUToLLVMStage(OpPassManager &pm);

/// Appends the whole pipeline (stage 1, stage 2, serialization): attach an NVVM target, lower mbarrier, scf,
/// gpu, arith, func, cf and NVVM to LLVM, and serialize each gpu.module to
/// PTX (`gpu-module-to-binary{format=isa}`).
void buildMBarrierToPTXPipeline(OpPassManager &pm,
                                const MBarrierToPTXOptions &options);

/// Registers every pass of the project (dialect transforms, check-sync,
/// convert-mbarrier-to-nvvm, attach-target) and the mbarrier-to-ptx pipeline
/// and its stages (once; later calls do nothing).
void registerAllMBarrierPasses();

} // namespace mlir::mbarrier

#endif // MBARRIER_PIPELINES_PIPELINES_H
