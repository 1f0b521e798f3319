//===- ConvertMBarrierToNVVM.cpp - the conversion pass --------------------===//
#include "PatternCommon.h"
#include "mbarrier/Conversion/Passes.h"
#include "mbarrier/Target/NVPTX/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_CONVERTMBARRIERTONVVM
#include "mbarrier/Conversion/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

void mbarrier::populateMBarrierToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const MBarrierLoweringOptions &options) {
  lowering::populateViewPatterns(converter, patterns);
  lowering::populateInitPatterns(converter, patterns);
  lowering::populateFencePatterns(converter, patterns);
  lowering::populateArrivePatterns(converter, patterns);
  lowering::populateWaitPatterns(converter, patterns, options.debugWaitsNs);
  lowering::populateTcgen05Patterns(converter, patterns);
  lowering::populateRaisedPatterns(converter, patterns);
  lowering::populateNamedBarrierPatterns(converter, patterns);
}

namespace {
/// The sm an nvgpu op that stays nvgpu needs from upstream's lowering of it
/// (convert-nvgpu-to-nvvm): mbarrier objects sm_80; the parity wait,
/// expect_tx, TMA and warpgroup ops sm_90; 0 for ops not listed.
unsigned keptNVGPUOpSM(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "nvgpu.mbarrier.try_wait.parity" ||
      name == "nvgpu.mbarrier.arrive.expect_tx" ||
      name.starts_with("nvgpu.tma.") || name.starts_with("nvgpu.warpgroup."))
    return 90;
  return name.starts_with("nvgpu.mbarrier.") ? 80 : 0;
}

/// What stays nvgpu (a group kept with a remark) is lowered the upstream
/// way, whose intrinsics the NVPTX backend cannot select below their sm (an
/// LLVM abort): the first such op of each gpu.module is a located error.
LogicalResult checkKeptNVGPUOps(Operation *root) {
  bool failed = false;
  root->walk([&](gpu::GPUModuleOp module) {
    SmallVector<NVPTXTarget> targets = getNVPTXTargets(module);
    if (targets.empty())
      return;
    unsigned sm = targets.front().sm;
    module.walk([&](Operation *op) {
      if (!isa<nvgpu::NVGPUDialect>(op->getDialect()) ||
          keptNVGPUOpSM(op) <= sm)
        return WalkResult::advance();
      op->emitOpError() << "stays nvgpu, and upstream's lowering of it "
                           "(convert-nvgpu-to-nvvm) needs sm_"
                        << keptNVGPUOpSM(op) << " or newer, but the target chip is "
                        << targets.front().chip;
      failed = true;
      return WalkResult::interrupt();
    });
  });
  return failure(failed);
}

/// Input this pipeline cannot compile, caught before the conversion, whose
/// own error ("failed to legalize operation 'gpu.func'") would not say what
/// to do: a `gpu.launch` (only `gpu.module` kernels are compiled) and, with
/// `rejectNVGPU`, nvgpu ops (nothing after this pass lowers them). One error
/// per launch and per gpu.module, in source order.
LogicalResult checkCompilableInput(Operation *root, bool rejectNVGPU) {
  bool failed = false;
  root->walk([&](gpu::LaunchOp launch) {
    launch.emitOpError()
        << "is not outlined: mbarrier-to-ptx compiles gpu.module kernels; "
           "run gpu-kernel-outlining first (mbarrier-opt "
           "--gpu-kernel-outlining), which moves the body into one";
    failed = true;
    return WalkResult::skip();
  });
  if (!rejectNVGPU)
    return failure(failed || ::mlir::failed(checkKeptNVGPUOps(root)));
  auto firstNVGPUOp = [](Operation *scope) -> Operation * {
    Operation *found = nullptr;
    scope->walk([&](Operation *op) {
      if (!isa<nvgpu::NVGPUDialect>(op->getDialect()))
        return WalkResult::advance();
      found = op;
      return WalkResult::interrupt();
    });
    return found;
  };
  SmallVector<Operation *> scopes;
  root->walk([&](gpu::GPUModuleOp module) { scopes.push_back(module); });
  if (scopes.empty())
    scopes.push_back(root);
  for (Operation *scope : scopes)
    if (Operation *op = firstNVGPUOp(scope)) {
      op->emitOpError()
          << "is an nvgpu op, which this pipeline lowers only after raising "
             "nvgpu into the mbarrier dialect: pass raise-nvgpu=true "
             "(mbarrier-compile --raise-nvgpu, compile(raise_nvgpu=True))";
      failed = true;
    }
  return failure(failed);
}

struct ConvertMBarrierToNVVMPass
    : mbarrier::impl::ConvertMBarrierToNVVMBase<ConvertMBarrierToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    // Pipeline ops are mbarrier-lower-pipes' to lower.
    auto isPipeType = [](Type t) {
      return isa<PipeType, PipeStateType, SlotType>(t);
    };
    WalkResult pipes = root->walk([&](Operation *op) {
      if (!isa<MBarrierDialect>(op->getDialect()) ||
          (llvm::none_of(op->getOperandTypes(), isPipeType) &&
           llvm::none_of(op->getResultTypes(), isPipeType)))
        return WalkResult::advance();
      op->emitOpError() << "is a pipeline op: run mbarrier-lower-pipes "
                           "before convert-mbarrier-to-nvvm";
      return WalkResult::interrupt();
    });
    if (pipes.wasInterrupted() ||
        failed(checkCompilableInput(root, rejectNVGPU)))
      return signalPassFailure();
    // A derived PTX version becomes what the module's ops need; then every
    // op is checked against its module's target.
    SmallVector<gpu::GPUModuleOp> modules;
    if (auto module = dyn_cast<gpu::GPUModuleOp>(root))
      modules.push_back(module);
    else
      root->walk([&](gpu::GPUModuleOp module) { modules.push_back(module); });
    // Each gpu.module on its own, in source order, and all of them even
    // after one failed: every module's errors are reported.
    SmallVector<Operation *> scopes(modules.begin(), modules.end());
    if (scopes.empty())
      scopes.push_back(root);
    bool failedScope = false;
    for (Operation *scope : scopes) {
      auto module = dyn_cast<gpu::GPUModuleOp>(scope);
      if ((module && failed(raiseDerivedPTXVersion(
                         module, getRequiredPTXVersion(module)))) ||
          failed(checkMBarrierTargetSupport(scope)) ||
          failed(lowering::checkNamedBarrierIds(scope)))
        failedScope = true;
    }
    if (failedScope)
      return signalPassFailure();
    // The patterns then read each wait's scope from its attribute.
    materializeDefaultWaitScopes(root);

    MLIRContext *ctx = &getContext();
    // Op patterns: index -> i64 and friends, plus the mbarrier types.
    LLVMTypeConverter converter(ctx);
    populateMBarrierTypeConversions(converter);
    // Structural patterns (signatures, branches, scf regions) touch only the
    // mbarrier types, so that an index induction variable stays an index.
    TypeConverter structural;
    structural.addConversion([](Type type) { return type; });
    populateMBarrierTypeConversions(structural);

    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    populateMBarrierStructuralConversions(structural, patterns, target);
    MBarrierLoweringOptions lowering;
    lowering.debugWaitsNs = debugWaits;
    populateMBarrierToNVVMConversionPatterns(converter, patterns, lowering);
    target.addIllegalDialect<MBarrierDialect>();
    // Named-barrier declarations stay until their uses have read the ids.
    target.addLegalOp<NamedBarrierOp>();
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();
    lowering::eraseNamedBarrierDeclarations(root);
  }
};
} // namespace
