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
// Class 16: a rank computed from the CTA's id in the grid (`%ctaid`,
// gpu.block_id: blockIdx) instead of its rank in the cluster, which the
// model cannot evaluate per point. It is evaluated for the CTAs of the
// grid's first clusters along x, whose ids in the grid follow from their
// ranks: outside the cluster in the first (every launch has it) is an
// error; in a later one an error too where the kernel declares its grid
// (`known_grid_size`: every launch has that cluster), else a warning (a
// launch of one cluster works), for the second cluster only.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// Whether `v` is computed from a CTA id of the grid (`%ctaid`,
/// gpu.block_id), through at most 64 ops.
bool readsBlockId(Value v, unsigned *work) {
  Operation *def = v.getDefiningOp();
  if (!def || ++*work > 64)
    return false;
  if (isGridCtaId(def))
    return true;
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return readsBlockId(operand, work); });
}

/// The CTAs of the declared cluster along x (the model's cluster shape).
int64_t clusterX(Operation *fn) {
  for (const char *name : kClusterShapeAttrNames)
    if (auto dims = fn->getAttrOfType<DenseI32ArrayAttr>(name))
      return dims.empty() || dims[0] < 1 ? 1 : dims[0];
  return 1;
}

/// Clusters along x that class 16 evaluates at most where the grid is
/// declared (each one evaluates every point of the op's executing set).
constexpr int64_t kMaxGridClusters = 8;

/// Class 16 at `op`, whose target `rank` reads a CTA id of the grid.
/// `gridX`: the CTAs of the declared grid along x, if declared, in
/// clusters of `clusterX` CTAs along x.
void checkGridRank(Operation *op, Value rank, Operation *namedBy,
                   const llvm::BitVector &points, SPMDModel &model,
                   std::optional<int64_t> gridX, int64_t clusterX,
                   Reporter &out) {
  // The clusters every launch has: the first, and with a declared grid
  // each of them; without one the second is evaluated for a warning.
  int64_t certain = 1, evaluated = 2;
  if (gridX && *gridX % clusterX == 0)
    certain = evaluated = std::min(*gridX / clusterX, kMaxGridClusters);
  for (int64_t cluster = 0; cluster < evaluated; ++cluster) {
    for (unsigned b : points.set_bits()) {
      Point p = model.point(b);
      std::optional<int64_t> target = model.evalIntInCluster(rank, p, cluster);
      if (!target)
        return;
      if (*target >= 0 && *target < model.ranks())
        continue;
      bool every = cluster < certain;
      auto message = out.report(op, every ? Severity::Error : Severity::Warning,
                                kGridRankSlot);
      message << "targets CTA rank " << *target << " from CTA " << p.rank
              << " of the grid's ";
      if (cluster == 0)
        message << "first";
      else if (cluster == 1)
        message << "second";
      else
        message << "cluster " << cluster << " (from 0) along x, not the first";
      message << (cluster < 2 ? " cluster" : "")
              << ": the rank is computed from the CTA's id in the grid "
                 "(blockIdx, %ctaid), which leaves the cluster of "
              << model.ranks() << " CTAs";
      if (!every)
        message << " in a launch of more than one cluster";
      else if (cluster > 0)
        message << " in every launch of the declared grid (known_grid_size: "
                << *gridX << " CTAs along x)";
      message << "; mapa of a rank outside the cluster is undefined (take the "
                 "rank in the cluster: %cluster_ctarank, gpu.cluster_block_id)";
      out.note(op, kGridRankSlot, namedBy->getLoc(),
               "the rank is computed here");
      return;
    }
  }
}

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
      unsigned work = 0;
      if (!target && readsBlockId(rank, &work))
        return checkGridRank(op, rank, namedBy, *points, model,
                             declaredGridX(fn), clusterX(fn), out);
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
