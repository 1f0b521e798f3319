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

/// The NVVM arrive of `mbarrier.arrive`: count, sem and scope as the op says.
void emitArrive(ArriveOp op, ArriveOp::Adaptor adaptor, Value addr,
                NVVM::MemScopeKind scope, bool relaxed, OpBuilder &b,
                Location loc) {
  NVVM::MBarrierArriveOp::create(b, loc, Type(), addr, adaptor.getCount(),
                                 scope, relaxed);
}

/// The NVVM arrive of `mbarrier.arrive_expect_tx`. PTX's arrive.expect_tx
/// has no count: with one, `nvvm.mbarrier.expect_tx` then the counted
/// `nvvm.mbarrier.arrive` (the phase cannot complete in between: this
/// thread's own arrival is still pending).
void emitArrive(ArriveExpectTxOp op, ArriveExpectTxOp::Adaptor adaptor,
                Value addr, NVVM::MemScopeKind scope, bool relaxed,
                OpBuilder &b, Location loc) {
  if (!adaptor.getCount()) {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), addr,
                                           adaptor.getBytes(), scope, relaxed,
                                           /*predicate=*/Value());
    return;
  }
  NVVM::MBarrierExpectTxOp::create(b, loc, addr, adaptor.getBytes(), scope);
  NVVM::MBarrierArriveOp::create(b, loc, Type(), addr, adaptor.getCount(),
                                 scope, relaxed);
}

/// `mbarrier.arrive` / `mbarrier.arrive_expect_tx` -> the NVVM arrive on
/// ptr<3> (local) or on the mapa'd ptr<7> (cluster form), under `if %pred`.
template <typename SourceOp>
struct ArriveLowering : BarrierOpLowering<SourceOp> {
  using BarrierOpLowering<SourceOp>::BarrierOpLowering;
  using OpAdaptor = typename SourceOp::Adaptor;

  LogicalResult rewrite(SourceOp op, OpAdaptor adaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    NVVM::MemScopeKind scope = toNVVM(op.getEffectiveScope());
    bool relaxed = op.getEffectiveSem() == Semantics::relaxed;
    emitPredicated(rewriter, op.getLoc(), adaptor.getPred(),
                   [&](OpBuilder &b, Location loc) {
                     emitArrive(op, adaptor, addressFor(b, loc, ref), scope,
                                relaxed, b, loc);
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.expect_tx` -> `nvvm.mbarrier.expect_tx` (always .relaxed), on
/// the mapa'd ptr<7> through a remote view.
struct ExpectTxLowering : BarrierOpLowering<ExpectTxOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(ExpectTxOp op, OpAdaptor adaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierExpectTxOp>(
        op, addressFor(rewriter, op.getLoc(), ref), adaptor.getBytes(),
        toNVVM(op.getEffectiveScope()));
    return success();
  }
};

} // namespace

void lowering::populateArrivePatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<ArriveLowering<ArriveOp>, ArriveLowering<ArriveExpectTxOp>,
               ExpectTxLowering>(converter);
}
