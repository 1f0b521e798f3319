//===- Pipeline.cpp - the whole mbarrier-to-ptx pipeline ------------------===//
//
// Hides the pass order that matters: the target is attached first (every
// later pass reads it: the release forms, the op checks), mbarrier lowers before
// scf-to-cf (its predicates and wait loops are scf), and convert-nvvm-to-llvm
// runs before serialization (some NVVM ops are inline PTX).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Pipelines/Pipelines.h"
#include "mbarrier/Conversion/Passes.h"
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h"
#include "mbarrier/Target/NVPTX/Passes.h"
#include "mbarrier/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::mbarrier;

void mbarrier::buildMBarrierToNVVMStage(OpPassManager &pm,
                                        const MBarrierToPTXOptions &options) {
  // The target first: the one decision every later pass reads from the
  // module (a derived PTX version is raised by the passes that need more).
  MBarrierAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.features;
  attach.optLevel = options.optLevel;
  pm.addPass(createMBarrierAttachTarget(attach));
  // nvgpu barriers and TMA loads become mbarrier ops, so that everything
  // after (the checker first) sees them.
  if (options.raiseNVGPU)
    pm.addPass(createMBarrierRaiseNVGPU());
  // Pipelines become mbarrier ops, so that everything after sees them.
  pm.addPass(createMBarrierLowerPipes());
  // Named barriers get their hardware ids, which the checker and the
  // lowering read.
  MBarrierAllocateNamedBarriersOptions allocate;
  allocate.reserved = options.namedBarrierReserved;
  pm.addPass(createMBarrierAllocateNamedBarriers(allocate));
  // The synchronization checker next, on the barriers as the user wrote them.
  if (options.checkSync) {
    MBarrierCheckSyncOptions check;
    check.strict = options.checkSyncStrict;
    pm.addPass(createMBarrierCheckSync(check));
  }
  // Then the merge, before the lowering that reads the merged arrivals.
  if (options.optLevel >= 1 && options.mergeReleaseFences)
    pm.addPass(createMBarrierMergeReleaseFences());
  // On the whole module, not nested on each gpu.module: the modules are
  // then checked and lowered in source order, one after the other, so that
  // the errors of every module are reported, the same on every run (nested,
  // they are converted in parallel and MLIR starts no module after the
  // first failure).
  ConvertMBarrierToNVVMOptions convert;
  convert.debugWaits = options.debugWaits;
  convert.rejectNVGPU = !options.raiseNVGPU;
  pm.addPass(createConvertMBarrierToNVVM(convert));
  // What stays nvgpu (a group kept with a remark, prefetches, wgmma) lowers
  // the upstream way, before stage 2's gpu-to-nvvm.
  if (options.raiseNVGPU)
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVGPUToNVVMPass());
}

void mbarrier::buildGPUToLLVMStage(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  OpPassManager &gpuPM = pm.nest<gpu::GPUModuleOp>();
  // Strided memrefs (a memref.subview as a TMA destination, upstream's
  // usual shape) become a base plus offset arithmetic that gpu-to-nvvm
  // lowers, as in upstream's gpu-lower-to-nvvm-pipeline.
  gpuPM.addPass(memref::createExpandStridedMetadataPass());
  gpuPM.addPass(createLowerAffinePass());
  gpuPM.addPass(createConvertGpuOpsToNVVMOps());
  gpuPM.addPass(createConvertNVVMToLLVMPass());
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(createReconcileUnrealizedCastsPass());
}

void mbarrier::buildMBarrierToPTXPipeline(OpPassManager &pm,
                                          const MBarrierToPTXOptions &options) {
  buildMBarrierToNVVMStage(pm, options);
  buildGPUToLLVMStage(pm);
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
}

namespace {
/// LLVM's optimization levels, as an enum so that the option parser rejects
/// anything else (NVVMTargetAttr asserts on O > 3).
enum class OptLevel : unsigned { O0, O1, O2, O3 };

struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  MBarrierToPTXOptions get() const {
    MBarrierToPTXOptions options; // defaults: Passes.h
    options.chip = chip;
    options.features = features;
    options.optLevel = static_cast<unsigned>(static_cast<OptLevel>(optLevel));
    options.checkSync = checkSync;
    options.checkSyncStrict = checkSyncStrict;
    options.mergeReleaseFences = mergeReleaseFences;
    options.debugWaits = debugWaits;
    options.raiseNVGPU = raiseNVGPU;
    options.namedBarrierReserved = namedBarrierReserved;
    return options;
  }
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip, e.g. sm_90"),
                           llvm::cl::init(MBarrierToPTXOptions().chip)};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features: +ptxNN, or empty (the default) for "
                     "the lowest PTX ISA version the chip and the ops need"),
      llvm::cl::init(MBarrierToPTXOptions().features)};
  Option<OptLevel> optLevel{
      *this, "O", llvm::cl::desc("LLVM optimization level, 0 to 3"),
      llvm::cl::init(OptLevel::O3),
      llvm::cl::values(clEnumValN(OptLevel::O0, "0", "-O0"),
                       clEnumValN(OptLevel::O1, "1", "-O1"),
                       clEnumValN(OptLevel::O2, "2", "-O2"),
                       clEnumValN(OptLevel::O3, "3", "-O3"))};
  Option<bool> checkSync{
      *this, "check-sync",
      llvm::cl::desc("Run mbarrier-check-sync first (errors stop the "
                     "pipeline, warnings are reported)"),
      llvm::cl::init(MBarrierToPTXOptions().checkSync)};
  Option<bool> checkSyncStrict{
      *this, "check-sync-strict",
      llvm::cl::desc("mbarrier-check-sync{strict=true}: its warnings are "
                     "errors too"),
      llvm::cl::init(MBarrierToPTXOptions().checkSyncStrict)};
  Option<bool> mergeReleaseFences{
      *this, "merge-release-fences",
      llvm::cl::desc("At O >= 1, run mbarrier-merge-release-fences: one "
                     "fence.release.cluster + .relaxed.cluster arrivals for "
                     "consecutive .release.cluster arrivals (PTX 8.6)"),
      llvm::cl::init(MBarrierToPTXOptions().mergeReleaseFences)};
  Option<uint64_t> debugWaits{
      *this, "debug-waits",
      llvm::cl::desc("Bound in ns of every blocking wait: past it, the wait "
                     "records where it is stuck (file:line:col, barrier, "
                     "parity, CTA, warp) and traps (0: off)"),
      llvm::cl::init(MBarrierToPTXOptions().debugWaits)};
  Option<bool> raiseNVGPU{
      *this, "raise-nvgpu",
      llvm::cl::desc("Raise nvgpu barrier and TMA-load ops into the mbarrier "
                     "dialect first (mbarrier-raise-nvgpu), and lower what "
                     "stays nvgpu with convert-nvgpu-to-nvvm"),
      llvm::cl::init(MBarrierToPTXOptions().raiseNVGPU)};
  Option<std::string> namedBarrierReserved{
      *this, "named-barrier-reserved",
      llvm::cl::desc("Hardware barrier ids that mbarrier-allocate-named-"
                     "barriers does not assign, e.g. 0,1-7 (default 0)"),
      llvm::cl::init(MBarrierToPTXOptions().namedBarrierReserved)};
};
} // namespace

void mbarrier::registerAllMBarrierPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerConvertMBarrierToNVVM();
  registerMBarrierAttachTarget();
  registerMBarrierCheckSync();
  registerMBarrierMergeReleaseFences();
  registerMBarrierLowerPipes();
  registerMBarrierRaiseNVGPU();
  registerMBarrierAllocateNamedBarriers();
  PassPipelineRegistration<PipelineOptions>(
      "mbarrier-to-ptx",
      "Lower gpu.module kernels that use mbarrier ops to PTX "
      "(gpu-module-to-binary{format=isa})",
      [](OpPassManager &pm, const PipelineOptions &opts) {
        buildMBarrierToPTXPipeline(pm, opts.get());
      });
  // The stages of mbarrier-to-ptx, for drivers that stop in between
  // (mbarrier-compile --emit nvvm/llvm).
  PassPipelineRegistration<PipelineOptions>(
      "mbarrier-to-ptx-stage-nvvm",
      "Stage 1 of mbarrier-to-ptx: attach the NVVM target, lower pipes, assign "
      "named-barrier ids, check, merge "
      "release fences (O >= 1), lower mbarrier",
      [](OpPassManager &pm, const PipelineOptions &opts) {
        buildMBarrierToNVVMStage(pm, opts.get());
      });
  PassPipelineRegistration<>(
      "mbarrier-to-ptx-stage-llvm",
      "Stage 2 of mbarrier-to-ptx: lower scf, gpu, arith, func, cf and NVVM "
      "inside gpu.modules to the LLVM dialect",
      [](OpPassManager &pm) { buildGPUToLLVMStage(pm); });
}
