//===- WaitPatterns.cpp - wait, try_wait, test_wait -----------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// The parity the instruction waits for: `phase ^ phase_offset`.
template <typename SourceOp>
static Value parityOf(SourceOp op, Value phase, OpBuilder &b) {
  if (op.getPhaseOffset() == 0)
    return phase;
  return LLVM::XOrOp::create(b, op.getLoc(), phase,
                             i32Constant(b, op.getLoc(), op.getPhaseOffset()));
}

template <typename SourceOp>
static bool isRelaxed(SourceOp op) {
  return op.getSem() == Semantics::relaxed;
}

/// One `nvvm.mbarrier.try_wait` in parity form
/// (mbarrier.try_wait.parity{.sem}{.scope}.shared::cta.b64).
template <typename SourceOp>
static Value emitTryWait(SourceOp op, Value addr, Value parity, OpBuilder &b,
                         Location loc) {
  return NVVM::MBarrierTryWaitOp::create(b, loc, b.getI1Type(), addr, parity,
                                         /*ticks=*/Value(), toNVVM(op.getEffectiveScope()),
                                         isRelaxed(op));
}

/// `mbarrier.wait` -> an scf.while around try_wait.parity until it succeeds.
struct WaitLowering : ConvertOpToLLVMPattern<WaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BarrierRef ref =
        resolveBarrier(rewriter, loc, op.getBarriers().getType(),
                       adaptor.getBarriers(), adaptor.getIndex());
    Value parity = parityOf(op, adaptor.getPhase(), rewriter);
    scf::WhileOp::create(
        rewriter, loc, TypeRange{}, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value ready = emitTryWait(op, ref.localAddr, parity, b, l);
          Value notReady = LLVM::XOrOp::create(
              b, l, ready,
              LLVM::ConstantOp::create(b, l, b.getI1Type(), b.getBoolAttr(true)));
          scf::ConditionOp::create(b, l, notReady, ValueRange{});
        },
        [&](OpBuilder &b, Location l, ValueRange) {
          scf::YieldOp::create(b, l);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// `mbarrier.try_wait` -> one `nvvm.mbarrier.try_wait` (parity form), i1.
struct TryWaitLowering : ConvertOpToLLVMPattern<TryWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(TryWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BarrierRef ref =
        resolveBarrier(rewriter, loc, op.getBarriers().getType(),
                       adaptor.getBarriers(), adaptor.getIndex());
    Value parity = parityOf(op, adaptor.getPhase(), rewriter);
    rewriter.replaceOp(op, emitTryWait(op, ref.localAddr, parity, rewriter, loc));
    return success();
  }
};

/// `mbarrier.test_wait` -> `nvvm.mbarrier.test.wait` (parity form), i1.
struct TestWaitLowering : ConvertOpToLLVMPattern<TestWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(TestWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BarrierRef ref =
        resolveBarrier(rewriter, loc, op.getBarriers().getType(),
                       adaptor.getBarriers(), adaptor.getIndex());
    Value parity = parityOf(op, adaptor.getPhase(), rewriter);
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTestWaitOp>(
        op, rewriter.getI1Type(), ref.localAddr, parity, toNVVM(op.getEffectiveScope()),
        isRelaxed(op));
    return success();
  }
};

} // namespace

void lowering::populateWaitPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<WaitLowering, TryWaitLowering, TestWaitLowering>(converter);
}
