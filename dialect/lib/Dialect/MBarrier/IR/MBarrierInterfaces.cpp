//===- MBarrierInterfaces.cpp - MBarrierOpInterface -----------------------===//
//
// Which barrier an op touches, in which CTA, under which predicate: asked of
// the op, so that the analyses, the fence pass and the lowering list no ops.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

using namespace mlir;
using namespace mlir::mbarrier;

#include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.cpp.inc"

BarrierTarget BarrierTarget::of(Value barriers, Value ctaId) {
  BarrierTarget target;
  if (ctaId) {
    target.kind = Kind::OnCta;
    target.rank = ctaId;
    return target;
  }
  if (!isa<RemoteType>(barriers.getType()))
    return target;
  target.kind = Kind::RemoteView;
  if (auto view = barriers.getDefiningOp<RemoteViewOp>()) {
    target.rank = view.getRank();
    if (std::optional<uint32_t> rank = view.getCtaRank())
      target.constRank = *rank;
  }
  return target;
}

BarrierTarget ArriveOp::getBarrierTarget() {
  return BarrierTarget::of(getBarriers(), getCtaId());
}
Value ArriveOp::getBarrierPredicate() { return getPred(); }

BarrierTarget ArriveExpectTxOp::getBarrierTarget() {
  return BarrierTarget::of(getBarriers(), getCtaId());
}
Value ArriveExpectTxOp::getBarrierPredicate() { return getPred(); }

BarrierTarget BarrierTarget::ofMulticast(Value mask, Value barriers) {
  if (!mask)
    return of(barriers);
  BarrierTarget target;
  target.kind = Kind::Multicast;
  target.mask = mask;
  return target;
}

BarrierTarget Tcgen05CommitOp::getBarrierTarget() {
  return BarrierTarget::ofMulticast(getMask(), getBarriers());
}

// A pipe names its whole group: its barriers are touched by the ops that
// mbarrier-lower-pipes makes of the pipe ops.
Value PipeCreateOp::getBarrierIndex() { return {}; }
