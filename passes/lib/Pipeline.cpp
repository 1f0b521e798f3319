//===- Pipeline.cpp - the whole mbarrier-to-ptx pipeline ------------------===//
//
// Hides the pass order that matters: the target is attached first (so the
// mbarrier lowering can check ops against it), mbarrier lowers before
// scf-to-cf (its predicates and wait loops are scf), and convert-nvvm-to-llvm
// runs before serialization (some NVVM ops are inline PTX).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::mbarrier;

void mbarrier::buildMBarrierToPTXPipeline(OpPassManager &pm,
                                          const MBarrierToPTXOptions &options) {
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.features;
  attach.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertMBarrierToNVVM());
  pm.addPass(createSCFToControlFlowPass());
  OpPassManager &gpuPM = pm.nest<gpu::GPUModuleOp>();
  gpuPM.addPass(createConvertGpuOpsToNVVMOps());
  gpuPM.addPass(createConvertNVVMToLLVMPass());
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
}

namespace {
struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip, e.g. sm_90"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features; +ptx86 enables .relaxed"),
      llvm::cl::init("+ptx86")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM opt level"),
                            llvm::cl::init(3)};
};
} // namespace

void mbarrier::registerAllMBarrierPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerConvertMBarrierToNVVM();
  PassPipelineRegistration<PipelineOptions>(
      "mbarrier-to-ptx",
      "Lower gpu.module kernels that use mbarrier ops to PTX "
      "(gpu-module-to-binary{format=isa})",
      [](OpPassManager &pm, const PipelineOptions &opts) {
        MBarrierToPTXOptions options;
        options.chip = opts.chip;
        options.features = opts.features;
        options.optLevel = opts.optLevel;
        buildMBarrierToPTXPipeline(pm, options);
      });
}
