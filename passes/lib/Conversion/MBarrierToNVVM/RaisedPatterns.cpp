//===- RaisedPatterns.cpp - arrive_nocomplete, cp_async_bulk_tensor -------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.arrive_nocomplete` -> `nvvm.mbarrier.arrive.nocomplete` on the
/// ptr<3> (mbarrier.arrive.noComplete.shared.b64; its state is unused).
struct ArriveNoCompleteLowering : BarrierOpLowering<ArriveNoCompleteOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(ArriveNoCompleteOp op, OpAdaptor adaptor,
                        const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    NVVM::MBarrierArriveNocompleteOp::create(
        rewriter, op.getLoc(), rewriter.getI64Type(), ref.localAddr,
        adaptor.getCount());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.cp_async_bulk_tensor` ->
/// `nvvm.cp.async.bulk.tensor.shared.cluster.global` (tile mode) with the
/// barrier's ptr<3>, the destination as a shared::cluster address of this
/// CTA, the multicast mask; under `if %pred`.
struct CpAsyncBulkTensorLowering : BarrierOpLowering<CpAsyncBulkTensorOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(CpAsyncBulkTensorOp op, OpAdaptor adaptor,
                        const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    emitPredicated(
        rewriter, op.getLoc(), adaptor.getPred(),
        [&](OpBuilder &b, Location loc) {
          // A shared::cta address is a shared::cluster address of this CTA.
          Value dst = LLVM::AddrSpaceCastOp::create(
              b, loc, LLVM::LLVMPointerType::get(ctx, kSharedCluster),
              adaptor.getDst());
          Value map = adaptor.getTensorMap();
          if (cast<LLVM::LLVMPointerType>(map.getType()).getAddressSpace())
            map = LLVM::AddrSpaceCastOp::create(
                b, loc, LLVM::LLVMPointerType::get(ctx, 0), map);
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, loc, dst, map, adaptor.getCoordinates(), ref.localAddr,
              ValueRange{}, adaptor.getMask(), Value(),
              NVVM::TMALoadMode::TILE, false, nullptr, Value());
        });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void lowering::populateRaisedPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ArriveNoCompleteLowering, CpAsyncBulkTensorLowering>(converter);
}
