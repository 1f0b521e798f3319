//===- ArrivePatterns.cpp - arrive, arrive_expect_tx, expect_tx -----------===//
//
// Local arrivals use the ptr<3> (.shared::cta) forms. Arrivals through a
// remote view or with `on %cta` map the owner-local address with
// `nvvm.mapa` and use the ptr<7> (.shared::cluster) forms: never the local
// instruction on a mapped address. A predicate becomes an scf.if around the
// arrival, since NVVM has no predicate on the shared::cluster forms, except
// on the count-less cluster arrive (inline PTX), which takes it as `@p`.
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// Whether `op` is a cluster-form arrive of count 1 (no count, or a
/// constant 1): the count-less instruction.
bool isCountlessClusterArrive(ArriveOp op) {
  return op.isClusterForm() &&
         (!op.getCount() || matchPattern(op.getCount(), m_One()));
}
bool isCountlessClusterArrive(ArriveExpectTxOp) { return false; }

/// The count-less `shared::cluster` arrive,
/// `{@p} mbarrier.arrive{.sem}{.scope}.shared::cluster.b64 _, [addr];`, as
/// inline PTX. NVVM's arrive on a ptr<7> always passes a count (its
/// intrinsic has one), and with `[addr], %r` ptxas emits the counted
/// `SYNCS.ARRIVE...ART0` with the count in a register; the count-less form
/// is `A1T0`, as in hand-written code. A predicate guards the instruction
/// itself (`@p`, as CUTLASS's ClusterBarrier::arrive(cta_id, pred) does):
/// no branch, and no block for LLVM to thread or duplicate (an inline asm
/// call is not convergent). Qualifiers as the NVPTX backend prints them:
/// none for the PTX default `.release.cta`. What this needs of the target
/// (sm_90, PTX 8.0; 8.6 for `.relaxed`) is what TargetChecks.cpp requires
/// of every cluster-form arrive.
void emitCountlessClusterArrive(Value addr, Value pred,
                                NVVM::MemScopeKind scope, bool relaxed,
                                OpBuilder &b, Location loc) {
  std::string qualifiers;
  if (relaxed || scope == NVVM::MemScopeKind::CLUSTER) {
    qualifiers = relaxed ? ".relaxed" : ".release";
    qualifiers += scope == NVVM::MemScopeKind::CLUSTER ? ".cluster" : ".cta";
  }
  std::string text = "mbarrier.arrive" + qualifiers +
                     ".shared::cluster.b64 _, [$0];";
  SmallVector<Value, 2> operands{addr};
  std::string constraints = "l,~{memory}";
  if (pred) {
    text = "@$1 " + text; // an i1 in a predicate register ("b")
    operands.push_back(pred);
    constraints = "l,b,~{memory}";
  }
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
      /*operand_attrs=*/{});
}

/// The NVVM arrive of `mbarrier.arrive`: count, sem and scope as the op
/// says (the count-less cluster form is emitted by the pattern itself).
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
    if (isCountlessClusterArrive(op)) {
      emitCountlessClusterArrive(addressFor(rewriter, op.getLoc(), ref),
                                 adaptor.getPred(), scope, relaxed, rewriter,
                                 op.getLoc());
      rewriter.eraseOp(op);
      return success();
    }
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
