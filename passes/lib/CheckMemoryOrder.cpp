//===- CheckMemoryOrder.cpp - cross-CTA memory order (class 7) ------------===//
//
// A cross-CTA hand-off synchronizes only if the arrival's release and the
// wait's acquire are morally strong with each other: both at cluster scope
// (docs/design.md, "Memory order"). Warnings, since the analysis cannot see
// whether an arrival publishes anything:
//
// - a wait with an explicit `scope = cta` on a barrier that other CTAs
//   arrive on (a remote view of its group, `on %cta`, a multicast commit or
//   copy exists in the function);
// - a cluster-form arrival with an explicit `scope = cta`;
// - a `relaxed` cluster-form arrival executed by threads that stored to
//   memory since their last fence (fence.acq_rel / release at cluster scope
//   or wider): nothing orders the stores before the arrival. Tracked per
//   thread: the (rank, thread) points that certainly stored and did not
//   fence since.
//
//===----------------------------------------------------------------------===//
#include "SyncModel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

bool isStore(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name == "llvm.store" || name == "memref.store" ||
         name == "vector.store" || name == "nvvm.stmatrix";
}

/// A fence that makes the thread's earlier stores visible at cluster scope
/// to a later relaxed arrival.
bool isReleaseFence(Operation *op) {
  if (auto fence = dyn_cast<LLVM::FenceOp>(op)) {
    StringRef scope = fence.getSyncscope().value_or("");
    if (scope == "block" || scope == "cta" || scope == "singlethread")
      return false;
    auto ordering = fence.getOrdering();
    return ordering == LLVM::AtomicOrdering::release ||
           ordering == LLVM::AtomicOrdering::acq_rel ||
           ordering == LLVM::AtomicOrdering::seq_cst;
  }
  StringRef name = op->getName().getStringRef();
  return name == "nvvm.fence.sc.cluster" || name == "nvvm.memory.barrier" ||
         name == "nvvm.fence.sync_restrict" ||
         name == "nvvm.fence.proxy.release";
}

/// The points that stored and have not fenced since, on every path.
struct StoreState {
  llvm::BitVector dirty;

  bool operator==(const StoreState &o) const { return dirty == o.dirty; }
  void join(const StoreState &o) { dirty &= o.dirty; }
  static StoreState mergeBranches(const StoreState &entry,
                                  ArrayRef<Branch<StoreState>> branches) {
    // Each thread takes one branch: where the sets are known, a point's
    // state is that of its branch; otherwise, what every branch agrees on.
    bool known = llvm::all_of(branches, [](auto &b) { return b.set.has_value(); });
    StoreState result = entry;
    if (known) {
      result.dirty.reset();
      for (const Branch<StoreState> &b : branches) {
        llvm::BitVector mine = b.state.dirty;
        mine &= *b.set;
        result.dirty |= mine;
      }
      return result;
    }
    result.dirty = branches.front().state.dirty;
    for (const Branch<StoreState> &b : branches)
      result.dirty &= b.state.dirty;
    return result;
  }
};

/// Groups other CTAs arrive on (a remote view of the group, `on %cta`, a
/// multicast commit or bulk copy).
SmallVector<Value> remotelyArrived(FunctionOpInterface fn) {
  SmallVector<Value> groups;
  fn->walk([&](Operation *op) {
    if (auto view = dyn_cast<RemoteViewOp>(op))
      groups.push_back(rootOf(view.getBarriers()));
    else if (isRemoteBarrierUse(op))
      if (std::optional<BarrierKey> key = barrierOf(op))
        groups.push_back(key->root);
    for (Value operand : op->getOperands())
      if (auto ptr = operand.getDefiningOp<PtrOp>())
        if (isRemoteBarrierUse(op))
          groups.push_back(rootOf(ptr.getBarriers()));
  });
  return groups;
}

} // namespace

void checksync::checkMemoryOrder(FunctionOpInterface fn, SPMDModel &model,
                                 Reporter &out) {
  SmallVector<Value> remote = remotelyArrived(fn);

  fn->walk([&](Operation *op) {
    if (isa<WaitOp, TryWaitOp, TestWaitOp>(op)) {
      std::optional<Scope> scope;
      if (auto w = dyn_cast<WaitOp>(op))
        scope = w.getScope();
      else if (auto w = dyn_cast<TryWaitOp>(op))
        scope = w.getScope();
      else
        scope = cast<TestWaitOp>(op).getScope();
      if (scope == Scope::cta &&
          llvm::is_contained(remote, barrierOf(op)->root))
        out.report(op, Severity::Warning, 7)
            << "waits with scope cta on a barrier that other CTAs arrive "
               "on: a .cta acquire is not morally strong with their "
               ".release.cluster arrivals, so the data they wrote before "
               "arriving is not guaranteed visible after the wait (use "
               "scope cluster, the default in a cluster kernel)";
    }
    auto arriveScope = [&](auto arrive) {
      if (arrive.isClusterForm() && arrive.getScope() == Scope::cta)
        out.report(op, Severity::Warning, 7)
            << "arrives on another CTA's barrier with scope cta: a .cta "
               "release is not morally strong with the owner's wait, so it "
               "publishes nothing to it (use scope cluster, the default of "
               "the cluster form)";
    };
    if (auto arrive = dyn_cast<ArriveOp>(op))
      arriveScope(arrive);
    if (auto arrive = dyn_cast<ArriveExpectTxOp>(op))
      arriveScope(arrive);
  });

  if (!isStructured(fn))
    return;
  // Relaxed remote arrivals after stores with no fence, per thread. Without
  // a known block size the whole CTA is one point (every path must store).
  size_t points = model.countable() ? model.ranks() * model.threads() : 1;
  auto setOf = [&](Operation *op) -> ExecSet {
    if (!model.countable())
      return llvm::BitVector(1, true);
    return model.execSet(op);
  };
  auto visit = [&](Operation *op, StoreState &state) {
    if (isStore(op)) {
      ExecSet set = setOf(op);
      if (set)
        state.dirty |= *set;
      return;
    }
    if (isReleaseFence(op)) {
      ExecSet set = setOf(op);
      if (set) {
        llvm::BitVector keep = *set;
        keep.flip();
        state.dirty &= keep;
      } else {
        state.dirty.reset();
      }
      return;
    }
    auto relaxedRemote = [&](auto arrive) {
      if (!arrive.isClusterForm() ||
          arrive.getEffectiveSem() != Semantics::relaxed)
        return;
      ExecSet set = setOf(op);
      if (set && set->anyCommon(state.dirty))
        out.report(op, Severity::Warning, 70)
            << "is a relaxed arrival on another CTA's barrier after stores "
               "with no release fence in between: nothing orders those "
               "stores before the arrival, so the waiting CTA may not see "
               "them (put a fence.acq_rel.cluster between the stores and "
               "the arrival, or arrive with sem release)";
      else
        out.clear(op, 70);
    };
    if (auto arrive = dyn_cast<ArriveOp>(op))
      relaxedRemote(arrive);
    if (auto arrive = dyn_cast<ArriveExpectTxOp>(op))
      relaxedRemote(arrive);
  };
  StoreState state{llvm::BitVector(points, false)};
  auto walker = makeWalker<StoreState>(model, visit);
  walker.walkRegion(fn.getFunctionBody(), state);
}
