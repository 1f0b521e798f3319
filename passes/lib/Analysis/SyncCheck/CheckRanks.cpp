//===- CheckRanks.cpp - target ranks outside the cluster (class 9) --------===//
//
// A cluster-form arrival, expect_tx, commit or barrier address names its
// target CTA by a rank: `on %cta`, or the rank of a remote view. The
// verifier rejects a constant rank outside the declared cluster; a computed
// one (`rank + 1` without the modulo, say) is evaluated here at every point
// that executes the op: where it leaves [0, cluster size), `mapa` has no
// CTA to map to and the access is undefined. An error: the op does this
// whenever that point executes it.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// The computed target rank of `op` and the op that names it, if any.
std::pair<Value, Operation *> targetRank(Operation *op) {
  if (auto arrive = dyn_cast<ArriveOp>(op); arrive && arrive.getCtaId())
    return {arrive.getCtaId(), op};
  if (auto arrive = dyn_cast<ArriveExpectTxOp>(op); arrive && arrive.getCtaId())
    return {arrive.getCtaId(), op};
  if (!barrierOf(op) || isa<InitOp, InvalOp, WaitOp, TryWaitOp, TestWaitOp>(op))
    return {};
  if (auto view = op->getOperand(0).getDefiningOp<RemoteViewOp>())
    if (view.getRank())
      return {view.getRank(), view};
  return {};
}
} // namespace

void checksync::checkRanks(FunctionOpInterface fn, SPMDModel &model,
                           Reporter &out) {
  if (!model.countable() || !model.clusterDeclared())
    return;
  fn->walk([&](Operation *op) {
    auto [rank, namedBy] = targetRank(op);
    if (!rank || getConstantInt(rank))
      return; // none, or the verifier's
    const ExecSet &points = actingPoints(op, model);
    if (!points)
      return;
    for (unsigned b : points->set_bits()) {
      Point p = model.point(b);
      std::optional<int64_t> target = model.evalInt(rank, p);
      if (!target)
        return;
      if (*target >= 0 && *target < model.ranks())
        continue;
      out.report(op, Severity::Error, kRankSlot)
          << "targets CTA rank " << *target << " from CTA " << p.rank
          << ", thread " << p.tid << ", but the cluster has " << model.ranks()
          << " CTAs (ranks 0 to " << model.ranks() - 1
          << "): mapa of a rank outside the cluster is undefined (wrap the "
             "rank modulo the cluster size)";
      if (namedBy != op)
        out.note(op, kRankSlot, namedBy->getLoc(), "the rank is computed here");
      return;
    }
  });
}
