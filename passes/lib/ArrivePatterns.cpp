//===- ArrivePatterns.cpp - arrive, arrive_expect_tx, expect_tx -----------===//
//
// Local arrivals use the ptr<3> (.shared::cta) forms. Arrivals through a
// remote view or with `on %cta` map the owner-local address with
// `nvvm.mapa` and use the ptr<7> (.shared::cluster) forms: never the local
// instruction on a mapped address. A predicate becomes an scf.if around the
// arrival, since NVVM has no predicate on the shared::cluster forms.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// Operands and memory order common to both arrive ops, resolved once.
template <typename SourceOp>
struct ArriveParts {
  BarrierRef ref;
  NVVM::MemScopeKind scope;
  bool relaxed;

  ArriveParts(SourceOp op, typename SourceOp::Adaptor adaptor, OpBuilder &b)
      : ref(resolveBarrier(b, op.getLoc(), op.getBarriers().getType(),
                           adaptor.getBarriers(), adaptor.getIndex(),
                           adaptor.getCtaId())),
        scope(toNVVM(op.getEffectiveScope())),
        relaxed(op.getEffectiveSem() == Semantics::relaxed) {}
};

/// `mbarrier.arrive` -> `nvvm.mbarrier.arrive` on ptr<3> (local) or on the
/// mapa'd ptr<7> (cluster form), with the op's count, sem and scope.
struct ArriveLowering : ConvertOpToLLVMPattern<ArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArriveParts<ArriveOp> parts(op, adaptor, rewriter);
    Value count = adaptor.getCount();
    emitPredicated(rewriter, op.getLoc(), adaptor.getPred(),
                   [&](OpBuilder &b, Location loc) {
                     Value addr = addressFor(b, loc, parts.ref);
                     NVVM::MBarrierArriveOp::create(b, loc, Type(), addr, count,
                                                    parts.scope, parts.relaxed);
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.arrive_expect_tx` -> `nvvm.mbarrier.arrive.expect_tx`; with a
/// count (which the PTX instruction lacks), `nvvm.mbarrier.expect_tx` then
/// `nvvm.mbarrier.arrive` with that count. The phase cannot complete between
/// the two: this thread's own arrival is still pending.
struct ArriveExpectTxLowering : ConvertOpToLLVMPattern<ArriveExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArriveParts<ArriveExpectTxOp> parts(op, adaptor, rewriter);
    Value bytes = adaptor.getBytes();
    Value count = adaptor.getCount();
    emitPredicated(
        rewriter, op.getLoc(), adaptor.getPred(),
        [&](OpBuilder &b, Location loc) {
          Value addr = addressFor(b, loc, parts.ref);
          if (!count) {
            NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), addr, bytes,
                                                   parts.scope, parts.relaxed,
                                                   /*predicate=*/Value());
            return;
          }
          NVVM::MBarrierExpectTxOp::create(b, loc, addr, bytes, parts.scope);
          NVVM::MBarrierArriveOp::create(b, loc, Type(), addr, count,
                                         parts.scope, parts.relaxed);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.expect_tx` -> `nvvm.mbarrier.expect_tx` (always .relaxed), on
/// the mapa'd ptr<7> through a remote view.
struct ExpectTxLowering : ConvertOpToLLVMPattern<ExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BarrierRef ref =
        resolveBarrier(rewriter, loc, op.getBarriers().getType(),
                       adaptor.getBarriers(), adaptor.getIndex());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierExpectTxOp>(
        op, addressFor(rewriter, loc, ref), adaptor.getBytes(),
        toNVVM(op.getEffectiveScope()));
    return success();
  }
};

} // namespace

void lowering::populateArrivePatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<ArriveLowering, ArriveExpectTxLowering, ExpectTxLowering>(
      converter);
}
