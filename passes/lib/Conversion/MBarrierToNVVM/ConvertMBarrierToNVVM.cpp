//===- ConvertMBarrierToNVVM.cpp - the conversion pass --------------------===//
#include "PatternCommon.h"
#include "mbarrier/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_CONVERTMBARRIERTONVVM
#include "mbarrier/Conversion/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

void mbarrier::populateMBarrierToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  lowering::populateViewPatterns(converter, patterns);
  lowering::populateInitPatterns(converter, patterns);
  lowering::populateFencePatterns(converter, patterns);
  lowering::populateArrivePatterns(converter, patterns);
  lowering::populateWaitPatterns(converter, patterns);
  lowering::populateTcgen05Patterns(converter, patterns);
}

namespace {
struct ConvertMBarrierToNVVMPass
    : mbarrier::impl::ConvertMBarrierToNVVMBase<ConvertMBarrierToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkMBarrierTargetSupport(root, chip, features)))
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
    populateMBarrierToNVVMConversionPatterns(converter, patterns);
    target.addIllegalDialect<MBarrierDialect>();
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
