//===- Tcgen05Patterns.cpp - tcgen05_commit --------------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.tcgen05_commit` -> `nvvm.tcgen05.commit` on the ptr<3>, with the
/// multicast mask and cta_group (sm_100a). Through a remote view (2-CTA form)
/// the barrier is mapped with `nvvm.mapa` and passed as a generic address:
/// NVVM's commit takes a shared::cta or a generic pointer.
struct Tcgen05CommitLowering : ConvertOpToLLVMPattern<Tcgen05CommitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(Tcgen05CommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BarrierRef ref =
        resolveBarrier(rewriter, op.getLoc(), op.getBarriers().getType(),
                       adaptor.getBarriers(), adaptor.getIndex());
    auto group = op.getCtaGroup() == 2 ? NVVM::CTAGroupKind::CTA_2
                                       : NVVM::CTAGroupKind::CTA_1;
    Value addr = ref.localAddr;
    if (ref.isCluster())
      addr = LLVM::AddrSpaceCastOp::create(
          rewriter, op.getLoc(), LLVM::LLVMPointerType::get(op.getContext()),
          addressFor(rewriter, op.getLoc(), ref));
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(
        op, addr, adaptor.getMask(),
        NVVM::CTAGroupKindAttr::get(op.getContext(), group));
    return success();
  }
};

} // namespace

void lowering::populateTcgen05Patterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<Tcgen05CommitLowering>(converter);
}
