//===- Tcgen05Patterns.cpp - tcgen05_commit --------------------------------===//
#include "PatternCommon.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::lowering;

namespace {

/// `mbarrier.tcgen05_commit` -> `nvvm.tcgen05.commit` on the ptr<3>, with the
/// multicast mask and cta_group (sm_100a). Through a remote view (the 2-CTA
/// form signalling the leader CTA, CUTLASS's `umma_arrive_2x1SM`) the barrier
/// is mapped with `nvvm.mapa` and the `.shared::cluster` instruction takes
/// that address: NVVM's commit takes only a shared::cta or a generic pointer,
/// and the NVPTX backend prints `.shared::cluster` for both, so a generic
/// (cvta'd) address would be wrong there.
struct Tcgen05CommitLowering : BarrierOpLowering<Tcgen05CommitOp> {
  using BarrierOpLowering::BarrierOpLowering;

  LogicalResult rewrite(Tcgen05CommitOp op, OpAdaptor adaptor,
                        const BarrierRef &ref,
                        ConversionPatternRewriter &rewriter) const override {
    auto group = op.getCtaGroup() == 2 ? NVVM::CTAGroupKind::CTA_2
                                       : NVVM::CTAGroupKind::CTA_1;
    if (ref.isCluster()) {
      Value addr = addressFor(rewriter, op.getLoc(), ref);
      LLVM::InlineAsmOp::create(
          rewriter, op.getLoc(), TypeRange{}, ValueRange{addr},
          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
          ".b64 [$0];",
          "l,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
          /*operand_attrs=*/{});
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(
        op, ref.localAddr, adaptor.getMask(),
        NVVM::CTAGroupKindAttr::get(op.getContext(), group));
    return success();
  }
};

} // namespace

void lowering::populateTcgen05Patterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<Tcgen05CommitLowering>(converter);
}
