//===- InitPatterns.cpp - init, fence_init, inval -------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.init` -> `nvvm.mbarrier.init` on the ptr<3> (mbarrier.init.shared.b64).
struct InitLowering : BarrierOpLowering<InitOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(InitOp op, OpAdaptor adaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(
        op, ref.localAddr, adaptor.getCount(), /*predicate=*/Value());
    return success();
  }
};

/// `mbarrier.fence_init` -> `nvvm.fence.mbarrier.init`
/// (fence.mbarrier_init.release.cluster).
struct FenceInitLowering : ConvertOpToLLVMPattern<FenceInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(FenceInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceMbarrierInitOp>(op);
    return success();
  }
};

/// `mbarrier.inval` -> `nvvm.mbarrier.inval` (mbarrier.inval.shared.b64).
struct InvalLowering : BarrierOpLowering<InvalOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(InvalOp op, OpAdaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInvalOp>(op, ref.localAddr);
    return success();
  }
};

} // namespace

void lowering::populateInitPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<InitLowering, FenceInitLowering, InvalLowering>(converter);
}
