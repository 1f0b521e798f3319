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
// - class 20 (checkRemoteRewrites): a store into another CTA's shared
//   memory in a loop whose target reads that memory in the loop, while
//   nothing in the loop comes back from the target to the storing CTA (no
//   arrival of the target on a barrier of the storer, no cluster barrier):
//   a later trip's store may overwrite what the target has not read yet.
//
// An scf.if branch that some thread certainly takes (known, non-empty
// executing set) decides the state of what it touches: an init by thread 0
// initializes the barrier for the whole CTA.
//
//===----------------------------------------------------------------------===//
#include "Counter.h"
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

/// The rank that the cluster-form barrier op `arrival` targets at `p`
/// (through a remote view or `on %cta`), or none.
std::optional<int64_t> arrivalTarget(Operation *arrival, Point p,
                                     SPMDModel &model) {
  auto barrierOp = dyn_cast<MBarrierOpInterface>(arrival);
  if (!barrierOp)
    return std::nullopt;
  BarrierTarget target = barrierOp.getBarrierTarget();
  if (target.kind != BarrierTarget::Kind::RemoteView &&
      target.kind != BarrierTarget::Kind::OnCta)
    return std::nullopt;
  if (target.constRank)
    return *target.constRank;
  return target.rank ? model.evalInt(target.rank, p) : std::nullopt;
}

/// Whether every loop around `inner` also holds `outer`: whenever `outer`
/// runs, so does `inner` (for the same points), the loops' trips aside.
bool inLoopsOf(Operation *inner, Operation *outer, Operation *fn) {
  for (Operation *p = inner->getParentOp(); p && p != fn; p = p->getParentOp())
    if (isLoop(p) && !p->isAncestor(outer))
      return false;
  return true;
}

/// Whether the load or store `access` of another CTA's shared memory
/// (through `nvvm.mapa`) is followed, at every point that executes it, by
/// an arrival of the same thread on a barrier of the CTA it accessed (the
/// same rank at that point; later in program order, in no loop that the
/// access is not in), whose targets wait for it (coveredByTargetWaits):
/// the arrival's release orders the access before it, and the target's
/// wait on the phase keeps it alive until then (FA3's combine over DSMEM,
/// CUTLASS's ClusterBarrier::arrive(cta_id) after the stores).
bool coveredByLaterArrival(Operation *access, Operation *fn, SPMDModel &model,
                           ArrayRef<Operation *> arrivals,
                           ArrayRef<Operation *> waits,
                           const llvm::DenseMap<Operation *, unsigned> &order) {
  std::optional<ClusterAccess> cluster = clusterAccessOf(access);
  const ExecSet &accessors = model.execSet(access);
  if (!cluster || !accessors || accessors->none() || !model.clusterDeclared())
    return false;
  for (Operation *arrival : arrivals) {
    if (order.lookup(arrival) <= order.lookup(access) ||
        !inLoopsOf(arrival, access, fn))
      continue;
    const ExecSet &arrivers = actingPoints(arrival, model);
    if (!arrivers)
      continue;
    bool sameTargets = llvm::all_of(accessors->set_bits(), [&](unsigned b) {
      Point p = model.point(b);
      std::optional<int64_t> rank = model.evalInt(cluster->rank, p);
      return arrivers->test(b) && rank && rank == arrivalTarget(arrival, p, model);
    });
    if (sameTargets && coveredByTargetWaits(arrival, fn, model, waits, order))
      return true;
  }
  return false;
}

/// Class 20 in `loop`, at the remote store `store` (the innermost loop
/// around it): see the file comment. Silent where a target, an executing
/// set or an arrival's target does not evaluate, and where the loop holds
/// a cluster barrier, a call or inline PTX (any of which may order it).
void checkRemoteRewrite(Operation *store, const ClusterAccess &access,
                        Operation *loop, SPMDModel &model, Reporter &out) {
  Attribute buffer = allocationOf(access.localAddress);
  const ExecSet &storers = model.execSet(store);
  if (!buffer || !storers || storers->none())
    return;
  // The (storing CTA, target CTA) pairs.
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (unsigned b : storers->set_bits()) {
    Point p = model.point(b);
    std::optional<int64_t> target = model.evalInt(access.rank, p);
    if (!target || *target < 0 || *target >= model.ranks())
      return; // unknown, or class 9's
    if (*target != p.rank && !llvm::is_contained(pairs, std::make_pair(p.rank, *target)))
      pairs.push_back({p.rank, *target});
  }
  // What the loop holds: the target's reads, the arrivals back, and the
  // local arrivals and waits (where the slot is freed on the wrong CTA).
  SmallVector<Operation *> reads, localArrivals, waits;
  SmallVector<std::pair<int64_t, int64_t>> back; // (arriving CTA, target)
  bool unknown = false;
  auto ranksOf = [&](const llvm::BitVector &set, int64_t r) {
    return model.hasRank(set, r);
  };
  loop->walk([&](Operation *op) {
    if (isClusterArrive(op) || isClusterWait(op) || isOpaqueCall(op) ||
        !inlinePTX(op).empty() || isBulkCopy(op)) {
      unknown = true;
      return;
    }
    if (isLocalSharedLoad(op) && allocationOf(op->getOperand(0)) == buffer) {
      if (!model.execSet(op))
        unknown = true;
      reads.push_back(op);
    }
    if (isa<WaitOp>(op))
      waits.push_back(op);
    if (!isa<MBarrierArrivalOpInterface>(op))
      return;
    const ExecSet &set = actingPoints(op, model);
    if (!set) {
      unknown = true;
      return;
    }
    if (!isRemoteUse(model, op)) {
      localArrivals.push_back(op);
      return;
    }
    for (unsigned b : set->set_bits()) {
      Point p = model.point(b);
      std::optional<int64_t> target = arrivalTarget(op, p, model);
      if (!target) {
        unknown = true;
        return;
      }
      back.push_back({p.rank, *target});
    }
  });
  if (unknown)
    return;
  auto before = [](Operation *a, Operation *b) {
    return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
  };
  for (auto [from, to] : pairs) {
    Operation *read = nullptr;
    for (Operation *r : reads)
      if (ranksOf(*model.execSet(r), to))
        read = read ? read : r;
    if (!read || llvm::is_contained(back, std::make_pair(to, from)))
      continue;
    // The slot freed on the target's own barrier of a group that the
    // storing CTA waits on before its store: the remote view left out.
    Operation *ownRelease = nullptr;
    for (Operation *arrival : localArrivals) {
      std::optional<BarrierKey> key = barrierOf(arrival);
      bool waitedBeforeStore =
          key && llvm::any_of(waits, [&](Operation *w) {
            const ExecSet &set = model.execSet(w);
            return barrierOf(w)->root == key->root && set &&
                   ranksOf(*set, from) && before(w, store);
          });
      if (waitedBeforeStore && before(read, arrival) &&
          ranksOf(*actingPoints(arrival, model), to))
        ownRelease = ownRelease ? ownRelease : arrival;
    }
    if (ownRelease) {
      out.report(ownRelease, Severity::Warning, kRemoteRewriteSlot)
          << "frees the slot on CTA " << to << "'s own barrier after CTA "
          << to << " read it, but CTA " << from
          << ", which stores into it (" << buffer
          << "), waits on its own barrier of this group before the store: "
             "this arrival never reaches CTA "
          << from << ", and nothing else in the loop comes back from CTA "
          << to << " to CTA " << from
          << ", so a later trip's store may overwrite what CTA " << to
          << " has not read yet (arrive on the storing CTA's barrier, "
             "through a remote view of the group)";
      out.note(ownRelease, kRemoteRewriteSlot, store->getLoc(),
               "the store into CTA " + std::to_string(to) + "'s memory");
      return;
    }
    out.report(store, Severity::Warning, kRemoteRewriteSlot)
        << "stores into CTA " << to << "'s shared memory (" << buffer
        << ") from CTA " << from
        << " in every trip of a loop in which CTA " << to
        << " reads it, but nothing in the loop comes back from CTA " << to
        << " to CTA " << from << " (no arrival of CTA " << to
        << " on a barrier of CTA " << from
        << ", no cluster barrier): a later trip's store may overwrite what "
           "CTA "
        << to << " has not read yet (free the slot by arriving on the "
                 "sender's barrier, through a remote view of it)";
    out.note(store, kRemoteRewriteSlot, loop->getLoc(), "the loop");
    return;
  }
}

/// Class 20 over the function: each remote store and its innermost loop,
/// where that loop may take two trips or more.
void checkRemoteRewrites(FunctionOpInterface fn, SPMDModel &model,
                         Reporter &out) {
  if (!model.countable() || !model.clusterDeclared() || model.ranks() < 2)
    return;
  fn->walk([&](Operation *op) {
    std::optional<ClusterAccess> access = clusterAccessOf(op);
    if (!access || !access->store)
      return;
    Operation *loop = op->getParentOp();
    while (loop && loop != fn && !isLoop(loop))
      loop = loop->getParentOp();
    if (loop && loop != fn &&
        !(isForLoop(loop) && counting::atMostOneTrip(loop)))
      checkRemoteRewrite(op, *access, loop, model, out);
  });
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

/// Class 2 where the target waits on the barrier, but not for every phase
/// that the arrivals on it complete (ExitPhases.cpp).
void reportPastLastWait(Operation *arrival, const ArrivalPastLastWait &past,
                        Reporter &out) {
  Reporter::Message message =
      out.report(arrival, Severity::Warning, kExitSlot);
  message << "arrives on CTA " << past.target
          << "'s barrier after the last phase that CTA " << past.target
          << "'s own waits on it wait for: ";
  if (past.sampled)
    message << "with the kernel's parameters at " << past.sample << ", ";
  message << "its waits require " << past.required << " of the "
          << past.phases
          << " phase(s) its arrivals complete, so it may exit, and its "
             "shared memory go away, before this arrival lands (wait for "
             "the last phase of each barrier that other CTAs arrive on "
             "before exiting, as CUTLASS's producer_tail does, or end with a "
             "cluster barrier)";
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
  SmallVector<Operation *> remoteArrivals; // on another CTA's barrier
  SmallVector<Value> opaque = opaqueGroups(fn);
  fn->walk([&](Operation *op) {
    if (!isRemoteUse(model, op))
      return;
    if (isa<ArriveOp, ArriveExpectTxOp>(op))
      remoteArrivals.push_back(op);
    Value group = barrierOf(op) ? barrierOf(op)->root : copyGroup(op);
    if (group)
      remoteTargets.push_back(group);
  });
  SmallVector<Operation *> waits;
  fn->walk([&](Operation *op) {
    if (isa<MBarrierWaitOpInterface>(op)) {
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
      it->second = coveredByTargetWaits(access, fn, model, waits, order) ||
                   coveredByLaterArrival(access, fn, model, remoteArrivals,
                                         waits, order);
    return it->second;
  };

  // The covered remote arrivals whose target's waits still end before the
  // arrivals do (ExitPhases.cpp), from the protocol model, built once.
  std::optional<std::optional<llvm::DenseMap<Operation *, ArrivalPastLastWait>>>
      past;
  auto pastLastWait = [&](Operation *op) -> const ArrivalPastLastWait * {
    if (!isa<MBarrierArrivalOpInterface>(op) || !model.clusterDeclared())
      return nullptr;
    if (!past)
      past = remoteArrivalsPastLastWait(fn, model);
    if (!*past)
      return nullptr;
    auto it = (*past)->find(op);
    return it == (*past)->end() ? nullptr : &it->second;
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
          if (const ArrivalPastLastWait *past = pastLastWait(remote)) {
            reportPastLastWait(remote, *past, out);
            continue;
          }
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
  checkRemoteRewrites(fn, model, out);
}
