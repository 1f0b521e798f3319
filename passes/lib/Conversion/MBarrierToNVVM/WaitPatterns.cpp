//===- WaitPatterns.cpp - wait, try_wait, test_wait -----------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// The parity the instruction waits for: `phase ^ phase_offset`.
template <typename SourceOp>
Value parityOf(SourceOp op, Value phase, OpBuilder &b) {
  if (op.getPhaseOffset() == 0)
    return phase;
  return LLVM::XOrOp::create(b, op.getLoc(), phase,
                             i32Constant(b, op.getLoc(), op.getPhaseOffset()));
}

/// One test of the phase, in parity form, with the op's sem and scope:
/// `mbarrier.try_wait.parity{.sem}{.scope}.shared::cta.b64` for wait and
/// try_wait, `mbarrier.test_wait.parity...` for test_wait.
/// With `suspend_time %t` (wait, try_wait), `%t` is the instruction's
/// suspendTimeHint operand.
template <typename SourceOp>
Value emitTest(SourceOp op, Value addr, Value parity, OpBuilder &b,
               Location loc, Value suspendTime = {}) {
  NVVM::MemScopeKind scope = toNVVM(op.getEffectiveScope());
  bool relaxed = op.getSem() == Semantics::relaxed;
  if constexpr (std::is_same_v<SourceOp, TestWaitOp>)
    return NVVM::MBarrierTestWaitOp::create(b, loc, b.getI1Type(), addr,
                                            parity, scope, relaxed);
  else
    return NVVM::MBarrierTryWaitOp::create(b, loc, b.getI1Type(), addr, parity,
                                           /*ticks=*/suspendTime, scope,
                                           relaxed);
}

/// `mbarrier.wait` -> an scf.while around try_wait.parity until it succeeds;
/// with debug-waits, the bounded loop of DebugWaits.cpp.
struct WaitLowering : BarrierOpLowering<WaitOp> {
  WaitLowering(LLVMTypeConverter &converter, uint64_t debugWaitsNs)
      : BarrierOpLowering(converter), debugWaitsNs(debugWaitsNs) {}

  LogicalResult rewrite(WaitOp op, OpAdaptor adaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    Value parity = parityOf(op, adaptor.getPhase(), rewriter);
    auto test = [&](OpBuilder &b, Location l) {
      return emitTest(op, ref.localAddr, parity, b, l,
                      adaptor.getSuspendTime());
    };
    if (debugWaitsNs) {
      emitBoundedWait(rewriter, op.getLoc(),
                      siteText(op.getLoc(), op.getBarriers()),
                      ref.localAddr, ref.index, parity, debugWaitsNs, test);
      rewriter.eraseOp(op);
      return success();
    }
    scf::WhileOp::create(
        rewriter, op.getLoc(), TypeRange{}, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value ready = test(b, l);
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

private:
  uint64_t debugWaitsNs;
};

/// `mbarrier.try_wait` / `mbarrier.test_wait` -> one NVVM test, an i1.
template <typename SourceOp>
struct SingleTestLowering : BarrierOpLowering<SourceOp> {
  using BarrierOpLowering<SourceOp>::BarrierOpLowering;
  using OpAdaptor = typename SourceOp::Adaptor;

  LogicalResult rewrite(SourceOp op, OpAdaptor adaptor, const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    Value parity = parityOf(op, adaptor.getPhase(), rewriter);
    Value suspendTime;
    if constexpr (std::is_same_v<SourceOp, TryWaitOp>)
      suspendTime = adaptor.getSuspendTime();
    rewriter.replaceOp(op, emitTest(op, ref.localAddr, parity, rewriter,
                                    op.getLoc(), suspendTime));
    return success();
  }
};

} // namespace

void lowering::populateWaitPatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    uint64_t debugWaitsNs) {
  patterns.add<WaitLowering>(converter, debugWaitsNs);
  patterns.add<SingleTestLowering<TryWaitOp>, SingleTestLowering<TestWaitOp>>(
      converter);
}
