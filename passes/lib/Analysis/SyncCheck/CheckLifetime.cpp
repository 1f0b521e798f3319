//===- CheckLifetime.cpp - init visibility, exit, inval (classes 1, 2, 8) -===//
//
// One forward walk in program order (FlowWalker) with, for every barrier,
// the set of states it may be in:
//
// - class 8: per barrier (group + index): never initialized here, live, or
//   invalidated. A use of a barrier that is invalidated on every path is an
//   error; on some path, a warning. An init of a barrier that may be live is
//   a warning (re-init of a live barrier).
// - class 1: per group: its init not fenced, fenced (fence_init), fenced and
//   cluster-arrived, or published (cluster wait) / never initialized here. A
//   remote arrival or multicast copy on a group whose init is unpublished on
//   every path is an error; on some path, a warning.
// - class 2: whether a remote access happened since the last cluster wait.
//   At the kernel's return: on every path and nothing in the kernel can
//   drain it (no wait on a barrier that other CTAs arrive on) an error;
//   otherwise a warning. Silent where every CTA the access reaches waits
//   on the barrier it reaches, in a wait that may come after it (CUTLASS's
//   producer_tail, the consumers' full waits): whether that wait covers the
//   access's phase is not followed, so the model cannot decide.
//
// An scf.if branch that some thread certainly takes (known, non-empty
// executing set) decides the state of what it touches: an init by thread 0
// initializes the barrier for the whole CTA.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/FlowWalker.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

// Class 8 states.
enum : uint8_t { kNone = 1, kLive = 2, kInval = 4 };
// Class 1 states; kOpaque: an opaque call (one that may synchronize) came
// after the init.
enum : uint8_t {
  kPublished = 1,
  kUnfenced = 2,
  kFenced = 4,
  kArrived = 8,
  kOpaque = 16
};
constexpr uint8_t kUnpublished = kUnfenced | kFenced | kArrived;
// Class 2 states.
enum : uint8_t { kClean = 1, kPending = 2 };

/// A map from keys to state masks, absent = `fallback`. `Same` gives each
/// key an identity that is equal exactly for the keys that are the same, so
/// that a lookup is a hash (a state holds every barrier of the kernel, and
/// each scf.if merges whole states).
template <typename Key, typename Same>
struct MaskMap {
  SmallVector<std::pair<Key, uint8_t>> entries;
  llvm::DenseMap<std::tuple<const void *, int64_t, int64_t>, unsigned> index;
  uint8_t get(const Key &key, uint8_t fallback) const {
    auto it = index.find(Same()(key));
    return it == index.end() ? fallback : entries[it->second].second;
  }
  void set(const Key &key, uint8_t mask) {
    auto [it, inserted] = index.try_emplace(Same()(key), entries.size());
    if (inserted)
      entries.push_back({key, mask});
    else
      entries[it->second].second = mask;
  }
  bool operator==(const MaskMap &other) const {
    if (entries.size() != other.entries.size())
      return false;
    for (auto &[k, m] : entries)
      if (other.get(k, 0) != m)
        return false;
    return true;
  }
};

/// The identity of a barrier: the keys that `sameAs` each other share it
/// (the group, and the constant index or else the SSA index).
struct SameKey {
  std::tuple<const void *, int64_t, int64_t> operator()(const BarrierKey &k) const {
    if (k.constIndex)
      return {k.root.getAsOpaquePointer(), 1, *k.constIndex};
    return {k.root.getAsOpaquePointer(), 0,
            reinterpret_cast<intptr_t>(k.index.getAsOpaquePointer())};
  }
};
struct SameValue {
  std::tuple<const void *, int64_t, int64_t> operator()(Value v) const {
    return {v.getAsOpaquePointer(), 0, 0};
  }
};

struct LifeState {
  MaskMap<BarrierKey, SameKey> barriers; // class 8
  MaskMap<Value, SameValue> groups;      // class 1
  uint8_t exit = kClean;                 // class 2
  // Remote accesses since the last cluster wait, in program order.
  SmallVector<Operation *> pendingOps;

  bool operator==(const LifeState &o) const {
    return barriers == o.barriers && groups == o.groups && exit == o.exit;
  }

  void join(const LifeState &o) {
    for (auto &[k, m] : o.barriers.entries)
      barriers.set(k, barriers.get(k, kNone) | m);
    for (auto &[k, m] : barriers.entries)
      m |= o.barriers.get(k, kNone);
    for (auto &[k, m] : o.groups.entries)
      groups.set(k, groups.get(k, kPublished) | m);
    for (auto &[k, m] : groups.entries)
      m |= o.groups.get(k, kPublished);
    exit |= o.exit;
    for (Operation *op : o.pendingOps)
      if (!llvm::is_contained(pendingOps, op))
        pendingOps.push_back(op);
  }

  /// The branches of an scf.if: what a taken branch did to a barrier
  /// decides its state; otherwise the union over the branches.
  static LifeState mergeBranches(const LifeState &entry,
                                 ArrayRef<Branch<LifeState>> branches) {
    LifeState result = entry;
    SmallVector<BarrierKey> keys;
    SmallVector<Value> groupKeys;
    for (const Branch<LifeState> &branch : branches) {
      for (auto &[k, m] : branch.state.barriers.entries)
        keys.push_back(k);
      for (auto &[k, m] : branch.state.groups.entries)
        groupKeys.push_back(k);
    }
    auto merge = [&](auto get) {
      uint8_t fromTaken = 0, all = 0;
      for (const Branch<LifeState> &branch : branches) {
        uint8_t m = get(branch.state);
        all |= m;
        if (branch.taken && m != get(entry))
          fromTaken |= m;
      }
      return fromTaken ? fromTaken : all;
    };
    for (const BarrierKey &k : keys)
      result.barriers.set(k, merge([&](const LifeState &s) {
                            return s.barriers.get(k, kNone);
                          }));
    for (Value k : groupKeys)
      result.groups.set(k, merge([&](const LifeState &s) {
                          return s.groups.get(k, kPublished);
                        }));
    result.exit = merge([](const LifeState &s) { return s.exit; });
    result.pendingOps.clear();
    for (const Branch<LifeState> &branch : branches)
      for (Operation *op : branch.state.pendingOps)
        if (!llvm::is_contained(result.pendingOps, op))
          result.pendingOps.push_back(op);
    if (!(result.exit & kPending))
      result.pendingOps.clear();
    return result;
  }
};

/// The group a barrier-completing op (a bulk copy) names through its
/// `mbar` operand, when that is an `mbarrier.ptr`.
Value copyGroup(Operation *op) {
  Value mbar = mbarOperand(op);
  if (!mbar)
    return {};
  if (auto ptr = mbar.getDefiningOp<PtrOp>())
    return rootOf(ptr.getBarriers());
  return {};
}

/// Groups whose barriers ops the walk does not see may initialize,
/// invalidate or arrive on: openRoots, and groups passed to an opaque call.
SmallVector<Value> opaqueGroups(FunctionOpInterface fn) {
  SmallVector<Value> groups = openRoots(fn);
  fn->walk([&](Operation *op) {
    if (isOpaqueCall(op))
      for (Value operand : op->getOperands())
        if (isa<GroupType, RemoteType>(operand.getType()))
          groups.push_back(rootOf(operand));
  });
  return groups;
}

/// The barrier a remote access reaches: its own (an arrival, expect_tx,
/// commit), or for a bulk copy the barrier of its `mbar` (mbarrier.ptr).
std::optional<BarrierKey> reachedBarrier(Operation *op) {
  if (std::optional<BarrierKey> key = barrierOf(op))
    return key;
  Value mbar = mbarOperand(op);
  if (auto ptr = mbar ? mbar.getDefiningOp<PtrOp>() : PtrOp())
    return barrierOf(ptr);
  return std::nullopt;
}

/// Whether the wait `wait` of the target CTA may come after `access` (so
/// that it may wait for the access's phase): it follows in program order,
/// a loop holds both (a later trip's wait), or no thread executes both (a
/// warp-specialized role: program order does not order other threads), or
/// an executing set is unknown.
bool mayFollow(Operation *wait, Operation *access, Operation *fn,
               SPMDModel &model,
               const llvm::DenseMap<Operation *, unsigned> &order) {
  if (order.lookup(wait) > order.lookup(access))
    return true;
  for (Operation *p = wait->getParentOp(); p && p != fn; p = p->getParentOp())
    if (isLoop(p) && p->isAncestor(access))
      return true;
  const ExecSet &waiters = model.execSet(wait);
  const ExecSet &accessors = model.execSet(access);
  return !waiters || !accessors || !waiters->anyCommon(*accessors);
}

/// In a kernel that declares its cluster: whether every CTA that the remote
/// `access` reaches (every CTA, where its targets do not evaluate) waits on
/// the barrier
/// it reaches (a wait, try_wait or test_wait on a barrier of its group that
/// may be the same), in a wait that may come after it: the target may be
/// kept alive until the access lands, and which phases its wait covers is
/// not followed (CUTLASS's producer_tail waits on the empty barriers that
/// the peers' releases reach; the consumers wait on the full barriers that
/// the multicast copies complete on).
bool coveredByTargetWaits(Operation *access, Operation *fn, SPMDModel &model,
                          ArrayRef<Operation *> waits,
                          const llvm::DenseMap<Operation *, unsigned> &order) {
  std::optional<BarrierKey> key = reachedBarrier(access);
  // Without a declared cluster no target rank evaluates; without a barrier
  // (a load or store of the peer's shared memory) nothing waits for it.
  if (!key || !model.clusterDeclared())
    return false;
  std::optional<uint64_t> targets = model.targetRanks(access);
  SmallVector<Operation *> candidates;
  for (Operation *w : waits) {
    BarrierKey k = *barrierOf(w);
    if (k.root == key->root && !k.differentFrom(*key) &&
        mayFollow(w, access, fn, model, order))
      candidates.push_back(w);
  }
  for (int64_t r = 0; r < model.ranks(); ++r) {
    if (targets && !(*targets >> r & 1))
      continue;
    bool waitsThere = llvm::any_of(candidates, [&](Operation *w) {
      const ExecSet &set = model.execSet(w);
      return !set || model.hasRank(*set, r);
    });
    if (!waitsThere)
      return false;
  }
  return true;
}

/// Whether `key` names the same barrier wherever it is evaluated: a
/// constant index, or one defined in the function's body outside any loop
/// (an index that changes from trip to trip names another barrier each
/// time, so what a trip left on it says nothing of the next trip's).
bool fixedIndex(const BarrierKey &key, Operation *fn) {
  if (key.constIndex)
    return true;
  if (isa<BlockArgument>(key.index))
    return cast<BlockArgument>(key.index).getOwner()->getParentOp() == fn;
  Operation *def = key.index.getDefiningOp();
  return def && def->getParentOp() == fn;
}

} // namespace

void checksync::checkLifetime(FunctionOpInterface fn, SPMDModel &model,
                              Reporter &out) {
  if (!isStructured(fn))
    return;

  // Groups that other CTAs arrive on, and whether any of them is waited on
  // here (a wait can keep the CTA alive until the arrivals land).
  bool drains = false;
  SmallVector<Value> remoteTargets;
  SmallVector<Value> opaque = opaqueGroups(fn);
  fn->walk([&](Operation *op) {
    if (!isRemoteUse(model, op))
      return;
    Value group = barrierOf(op) ? barrierOf(op)->root : copyGroup(op);
    if (group)
      remoteTargets.push_back(group);
  });
  SmallVector<Operation *> waits;
  fn->walk([&](Operation *op) {
    if (isa<WaitOp, TryWaitOp, TestWaitOp>(op)) {
      waits.push_back(op);
      if (llvm::is_contained(remoteTargets, barrierOf(op)->root))
        drains = true;
    }
  });
  // Class 2: the remote accesses whose targets wait for them, once per op.
  llvm::DenseMap<Operation *, unsigned> order;
  llvm::DenseMap<Operation *, bool> covered;
  auto isCovered = [&](Operation *access) {
    if (order.empty())
      fn->walk<WalkOrder::PreOrder>(
          [&](Operation *op) { order.try_emplace(op, order.size()); });
    auto [it, inserted] = covered.try_emplace(access, false);
    if (inserted)
      it->second = coveredByTargetWaits(access, fn, model, waits, order);
    return it->second;
  };

  auto visit = [&](Operation *op, LifeState &state) {
    std::optional<BarrierKey> key = barrierOf(op);
    if (key && llvm::is_contained(opaque, key->root))
      key.reset(); // not followed
    bool remote = isRemoteUse(model, op);

    // An opaque call may be a cluster barrier (a helper the checker cannot
    // see into): what it may have published or drained is unknown.
    if (isOpaqueCall(op)) {
      for (auto &[group, m] : state.groups.entries)
        m |= kOpaque;
      state.exit = kClean;
      state.pendingOps.clear();
    }

    // Class 8: lifetime of each barrier.
    if (isa<InitOp>(op) && key) {
      uint8_t m = state.barriers.get(*key, kNone);
      if (m == kLive)
        out.report(op, Severity::Warning, kLifetimeSlot)
            << "re-initializes a barrier that is live: it was initialized "
               "before and not invalidated (mbarrier.inval); "
               "re-initializing a barrier that threads may still arrive on "
               "or wait on loses their arrivals";
      else if ((m & kLive) && fixedIndex(*key, fn))
        out.report(op, Severity::Warning, kLifetimeSlot)
            << "may re-initialize a live barrier: on some path it was "
               "initialized before and not invalidated (mbarrier.inval)";
      else
        out.clear(op, kLifetimeSlot);
      state.barriers.set(*key, kLive);
      state.groups.set(key->root, kUnfenced);
    } else if (isa<InvalOp>(op) && key) {
      state.barriers.set(*key, kInval);
    } else if (key && !remote &&
               !isa<RemoteType>(
                   cast<MBarrierOpInterface>(op).getBarrierGroup().getType())) {
      uint8_t m = state.barriers.get(*key, kNone);
      if (m == kInval)
        out.report(op, Severity::Error, kLifetimeSlot)
            << "uses a barrier after mbarrier.inval: an invalidated barrier "
               "must be initialized again (mbarrier.init) before any other "
               "operation";
      else if ((m & kInval) && fixedIndex(*key, fn))
        out.report(op, Severity::Warning, kLifetimeSlot)
            << "may use a barrier after mbarrier.inval: on some path the "
               "barrier is invalidated and not initialized again";
      else
        out.clear(op, kLifetimeSlot);
    }

    // Class 1: init visibility.
    if (isa<FenceInitOp>(op)) {
      for (auto &[group, m] : state.groups.entries)
        if (m & kUnfenced)
          m = (m & ~kUnfenced) | kFenced;
    }
    bool relaxed = false;
    if (isClusterArrive(op, &relaxed)) {
      for (auto &[group, m] : state.groups.entries) {
        uint8_t moved = kFenced | (relaxed ? 0 : kUnfenced);
        if (m & moved)
          m = (m & ~moved) | kArrived;
      }
    }
    if (isClusterWait(op)) {
      for (auto &[group, m] : state.groups.entries)
        if (m & kArrived)
          m = (m & ~kArrived) | kPublished;
      state.exit = kClean;
      state.pendingOps.clear();
    }
    if (remote) {
      Value group = key ? key->root : copyGroup(op);
      if (llvm::is_contained(opaque, group))
        group = nullptr;
      uint8_t m = group ? state.groups.get(group, kPublished) : kPublished;
      if ((m & kUnpublished) && !(m & kOpaque)) {
        bool every = !(m & kPublished);
        const char *missing =
            (m & kUnfenced) ? "no mbarrier.fence_init and cluster barrier "
                              "(nvvm.cluster.arrive + nvvm.cluster.wait)"
            : (m & kFenced) ? "no cluster barrier (nvvm.cluster.arrive + "
                              "nvvm.cluster.wait) after mbarrier.fence_init"
                            : "no nvvm.cluster.wait after nvvm.cluster.arrive";
        if (every && model.clusterDeclared())
          out.report(op, Severity::Error, kInitNotVisibleSlot)
              << "reaches another CTA's barrier before its mbarrier.init is "
                 "visible to the cluster: "
              << missing << " between the init and this remote arrival or copy";
        else if (every)
          // Without a declared cluster the launch may have one CTA per
          // cluster, where the target is the CTA itself: not every launch.
          out.report(op, Severity::Warning, kInitNotVisibleSlot)
              << "may reach another CTA's barrier before its mbarrier.init is "
                 "visible to the cluster: in a launch with clusters of more "
                 "than one CTA (the kernel declares no known_cluster_size), "
              << missing << " between the init and this remote arrival or copy";
        else
          out.report(op, Severity::Warning, kInitNotVisibleSlot)
              << "may reach another CTA's barrier before its mbarrier.init is "
                 "visible to the cluster: on some path, "
              << missing << " between the init and this remote arrival or copy";
      } else {
        out.clear(op, kInitNotVisibleSlot);
      }
    }

    // Class 2: exit while peers may still access this CTA's memory.
    // (In a declared cluster of one CTA there is no peer to outlive.)
    bool alone = model.clusterDeclared() && model.ranks() == 1;
    if (remote || (isRemoteMemoryAccess(op) && !alone)) {
      state.exit = kPending;
      if (!llvm::is_contained(state.pendingOps, op))
        state.pendingOps.push_back(op);
    }
    if (op->hasTrait<OpTrait::IsTerminator>() && op->getParentOp() == fn &&
        isKernelFunction(fn)) {
      for (Operation *remote : state.pendingOps) {
        if (isCovered(remote)) {
          out.clear(remote, kExitSlot);
          continue;
        }
        bool every = state.exit == kPending;
        bool error = every && !drains && model.clusterDeclared();
        if (error)
          out.report(remote, Severity::Error, kExitSlot)
              << "is followed by the kernel's exit with no cluster barrier "
                 "(nvvm.cluster.arrive + nvvm.cluster.wait) in between: a CTA "
                 "may exit, and its shared memory go away, while another CTA "
                 "still arrives on or accesses it";
        else
          out.report(remote, Severity::Warning, kExitSlot)
              << "may be followed by the kernel's exit with no cluster "
                 "barrier (nvvm.cluster.arrive + nvvm.cluster.wait) in "
                 "between: a CTA may exit, and its shared memory go away, "
                 "while another CTA still arrives on or accesses it (unless "
                 "every target waits for this access before it exits)";
      }
    }
  };

  LifeState state;
  auto walker = makeWalker<LifeState>(model, visit);
  walker.walkRegion(fn.getFunctionBody(), state);
}
