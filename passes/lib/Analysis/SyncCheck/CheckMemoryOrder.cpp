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
// - a cluster-form arrival with `scope = cta` executed by threads that
//   stored to memory since their last cluster barrier: the arrival cannot
//   publish those stores (with nothing to publish it is a fine rendezvous);
// - a `relaxed` cluster-form arrival executed by threads that stored to
//   memory since their last fence (fence.acq_rel / release at cluster scope
//   or wider, mbarrier.fence_release; `fence_release shared_cta` covers only
//   stores to the CTA's own shared memory): nothing orders the stores
//   before the arrival. Tracked per
//   thread: the (rank, thread) points that certainly stored and did not
//   fence (or pass a cluster barrier) since.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/FlowWalker.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// `mbarrier.fence_release shared_cta`: orders only the thread's accesses
/// to its own CTA's shared memory.
bool isSharedCTAReleaseFence(Operation *op) {
  auto fence = dyn_cast<FenceReleaseOp>(op);
  return fence && fence.getSharedCta();
}

/// A fence that makes the thread's earlier stores visible at cluster scope
/// to a later relaxed arrival.
bool isReleaseFence(Operation *op) {
  if (auto fence = dyn_cast<FenceReleaseOp>(op))
    return !fence.getSharedCta();
  return isUpstreamReleaseFence(op);
}

/// Per (rank, thread) point, on every path: `dirty`, it stored and has not
/// fenced (release, cluster scope) since; `unsynced`, it stored and has not
/// passed a cluster barrier since (a fence does not help a .cta arrival).
struct StoreState {
  // `dirty` for stores to anything but the CTA's own shared memory,
  // `dirtyShared` for those (a shared_cta release fence orders only them).
  llvm::BitVector dirty, dirtyShared, unsynced;

  bool operator==(const StoreState &o) const {
    return dirty == o.dirty && dirtyShared == o.dirtyShared &&
           unsynced == o.unsynced;
  }
  void join(const StoreState &o) {
    dirty &= o.dirty;
    dirtyShared &= o.dirtyShared;
    unsynced &= o.unsynced;
  }
  static StoreState mergeBranches(const StoreState &entry,
                                  ArrayRef<Branch<StoreState>> branches) {
    // Each thread takes one branch: where the sets are known, a point's
    // state is that of its branch; otherwise, what every branch agrees on.
    bool known = llvm::all_of(branches, [](auto &b) { return b.set.has_value(); });
    StoreState result = entry;
    if (known) {
      result.dirty.reset();
      result.dirtyShared.reset();
      result.unsynced.reset();
      for (const Branch<StoreState> &b : branches) {
        auto take = [&](const llvm::BitVector &from, llvm::BitVector &to) {
          llvm::BitVector mine = from;
          mine &= *b.set;
          to |= mine;
        };
        take(b.state.dirty, result.dirty);
        take(b.state.dirtyShared, result.dirtyShared);
        take(b.state.unsynced, result.unsynced);
      }
      return result;
    }
    result = branches.front().state;
    for (const Branch<StoreState> &b : branches)
      result.join(b.state);
    return result;
  }
};

/// Groups other CTAs arrive on (a remote view of the group, `on %cta`, a
/// multicast commit or bulk copy), unless the target is the CTA itself.
SmallVector<Value> remotelyArrived(FunctionOpInterface fn, SPMDModel &model) {
  SmallVector<Value> groups;
  fn->walk([&](Operation *op) {
    if (auto view = dyn_cast<RemoteViewOp>(op)) {
      if (!model.targetsOwnCTA(op))
        groups.push_back(rootOf(view.getBarriers()));
    } else if (isRemoteUse(model, op)) {
      if (std::optional<BarrierKey> key = barrierOf(op))
        groups.push_back(key->root);
    }
    for (Value operand : op->getOperands())
      if (auto ptr = operand.getDefiningOp<PtrOp>())
        if (isRemoteUse(model, op))
          groups.push_back(rootOf(ptr.getBarriers()));
  });
  return groups;
}

} // namespace

void checksync::checkMemoryOrder(FunctionOpInterface fn, SPMDModel &model,
                                 Reporter &out) {
  SmallVector<Value> remote = remotelyArrived(fn, model);

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
        out.report(op, Severity::Warning, kCTAScopeWaitSlot)
            << "waits with scope cta on a barrier that other CTAs arrive "
               "on: a .cta acquire is not morally strong with their "
               ".release.cluster arrivals, so the data they wrote before "
               "arriving is not guaranteed visible after the wait (use "
               "scope cluster, the default in a cluster kernel)";
    }
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
  // A release by the threads of `set` (all threads where it is unknown)
  // publishes their stores: clear them from each of `tracked`.
  auto release = [](const ExecSet &set,
                    std::initializer_list<llvm::BitVector *> tracked) {
    llvm::BitVector keep;
    if (set) {
      keep = *set;
      keep.flip();
    }
    for (llvm::BitVector *bits : tracked) {
      if (set)
        *bits &= keep;
      else
        bits->reset();
    }
  };
  auto visit = [&](Operation *op, StoreState &state) {
    if (isStore(op)) {
      ExecSet set = setOf(op);
      if (set) {
        (isLocalSharedStore(op) ? state.dirtyShared : state.dirty) |= *set;
        state.unsynced |= *set;
      }
      return;
    }
    if (isSharedCTAReleaseFence(op)) {
      release(setOf(op), {&state.dirtyShared});
      return;
    }
    bool relaxedBarrier = false;
    if (isClusterArrive(op, &relaxedBarrier) && !relaxedBarrier) {
      // barrier.cluster.arrive is a release: what the thread stored before
      // is visible to every CTA after the cluster wait.
      release(setOf(op),
              {&state.dirty, &state.dirtyShared, &state.unsynced});
      return;
    }
    if (isReleaseFence(op)) {
      release(setOf(op), {&state.dirty, &state.dirtyShared});
      return;
    }
    if (isOpaqueCall(op)) {
      // It may fence or be a cluster barrier: what was stored before is
      // no longer certainly unpublished.
      release(setOf(op), {&state.dirty, &state.dirtyShared, &state.unsynced});
      return;
    }
    auto weakRemote = [&](auto arrive) {
      if (!isRemoteUse(model, op))
        return;
      ExecSet set = setOf(op);
      if (arrive.getEffectiveScope() == Scope::cta) {
        if (set && set->anyCommon(state.unsynced))
          out.report(op, Severity::Warning, kCTAScopeArrivalSlot)
              << "arrives on another CTA's barrier with scope cta after "
                 "stores: a .cta release is not morally strong with the "
                 "owner's wait, so it does not publish them (use scope "
                 "cluster, the default of the cluster form)";
        else
          out.clear(op, kCTAScopeArrivalSlot);
        return;
      }
      if (arrive.getEffectiveSem() != Semantics::relaxed)
        return;
      if (set && (set->anyCommon(state.dirty) ||
                  set->anyCommon(state.dirtyShared)))
        out.report(op, Severity::Warning, kRelaxedArrivalSlot)
            << "is a relaxed arrival on another CTA's barrier after stores "
               "with no release fence in between: nothing orders those "
               "stores before the arrival, so the waiting CTA may not see "
               "them (put a fence.acq_rel.cluster between the stores and "
               "the arrival, or arrive with sem release)";
      else
        out.clear(op, kRelaxedArrivalSlot);
    };
    if (auto arrive = dyn_cast<MBarrierArrivalOpInterface>(op))
      weakRemote(arrive);
  };
  StoreState state{llvm::BitVector(points, false),
                   llvm::BitVector(points, false),
                   llvm::BitVector(points, false)};
  auto walker = makeWalker<StoreState>(model, visit);
  walker.walkRegion(fn.getFunctionBody(), state);
}
