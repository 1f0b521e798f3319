//===- ConvertMBarrierToNVVM.cpp - the conversion pass --------------------===//
#include "PatternCommon.h"
#include "mbarrier/Conversion/Passes.h"
#include "mbarrier/Target/NVPTX/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
    if (pipes.wasInterrupted())
      return signalPassFailure();
    // A derived PTX version becomes what the module's ops need; then every
    // op is checked against its module's target.
    SmallVector<gpu::GPUModuleOp> modules;
    if (auto module = dyn_cast<gpu::GPUModuleOp>(root))
      modules.push_back(module);
    else
      root->walk([&](gpu::GPUModuleOp module) { modules.push_back(module); });
    for (gpu::GPUModuleOp module : modules)
      if (failed(raiseDerivedPTXVersion(module, getRequiredPTXVersion(module))))
        return signalPassFailure();
    if (failed(checkMBarrierTargetSupport(root, chip, features)) ||
        failed(lowering::checkNamedBarrierIds(root)))
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
