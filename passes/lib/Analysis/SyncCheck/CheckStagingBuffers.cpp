//===- CheckStagingBuffers.cpp - a bulk store's source written too early --===//
//
// A bulk store to global memory (`cp.async.bulk.tensor` shared::cta ->
// global, the epilogue of CUTLASS and FA3) reads its shared source
// asynchronously. It carries no mbarrier: the issuing thread closes its bulk
// async-group with `cp.async.bulk.commit_group`, and only its
// `cp.async.bulk.wait_group.read N` tells that every group but the newest N
// has finished reading. A write into the source before that wait (the next
// tile staged into the same buffer) may overwrite data the store has not
// read yet: the tile lands in global memory corrupted, on some runs.
//
// The walk follows program order over structured control flow and keeps
// the stores that may still be reading, per the issuing thread's groups
// (how many groups were committed after each one's). A write to shared
// memory (a store, stmatrix, a bulk copy into shared memory) of a point of
// its executing set whose address falls into the first 16 bytes of a
// pending store's source (a box is at least 16 bytes; beyond, its extent is
// the tensor map's, which the IR does not hold) is reported: an error where
// the store is pending on every path and the write runs on every launch, a
// warning where only on some (a loop that may not run). Where a store's or
// a write's address, executing set or branch cannot be evaluated, the store
// is dropped: silence; except where the model's set is unknown only
// through conditions that are the same for every thread and change from
// trip to trip (a flattened persistent loop's `if` epilogue at a tile's
// last k-step: every thread takes the same branch, the walk joins both) and loops whose trips differ
// between the threads (CUTLASS ping-pong's scf.while per warpgroup: the
// points that may run a trip). What is found through those is a warning.
// A store's source may differ between its issuing threads (a staging
// buffer per warpgroup): a write into any of them conflicts.
//
//===----------------------------------------------------------------------===//
#include "Counter.h"
#include "mbarrier/Analysis/SyncCheck/FlowWalker.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

// A named namespace: the library is a unity build, and the other check
// files have their own `Pending`, `State`, ...
namespace staging_buffers {

/// A bulk store that may still read its source.
struct Pending {
  Operation *store;
  /// Pending on every path that reaches the current point.
  bool certain = true;
  /// Whether its group is committed: on every path, on none, or on some.
  enum class Group { Open, Committed, Mixed } group = Group::Open;
  /// The groups committed after its own, over the paths.
  int64_t newerMin = 0, newerMax = 0;
  bool operator==(const Pending &o) const {
    return store == o.store && certain == o.certain && group == o.group &&
           newerMin == o.newerMin && newerMax == o.newerMax;
  }
};

struct State {
  SmallVector<Pending, 4> pending;
  /// Set at the terminator of an scf.if region (StagingCheck::visit), for
  /// mergeBranches: the region, the points that run it where the model's
  /// executing set is unknown only through conditions that are the same
  /// for every thread (conditionalSet), and whether its own condition is
  /// such a one (every thread takes the same branch, which one is unknown).
  Region *lastRegion = nullptr;
  ExecSet lastSet;
  bool lastUniform = false;
  bool operator==(const State &o) const { return pending == o.pending; }

  Pending *find(Operation *store) {
    for (Pending &p : pending)
      if (p.store == store)
        return &p;
    return nullptr;
  }

  /// Paths meet: a store pending on one side only is pending on some paths.
  void join(const State &other) {
    SmallVector<Pending, 4> out;
    for (Pending p : pending) {
      auto it = llvm::find_if(other.pending, [&](const Pending &q) {
        return q.store == p.store;
      });
      if (it == other.pending.end()) {
        p.certain = false;
      } else {
        p.certain = p.certain && it->certain;
        if (p.group != it->group)
          p.group = Pending::Group::Mixed;
        p.newerMin = std::min(p.newerMin, it->newerMin);
        p.newerMax = std::max(p.newerMax, it->newerMax);
      }
      out.push_back(p);
    }
    for (const Pending &q : other.pending)
      if (!find(q.store)) {
        Pending p = q;
        p.certain = false;
        out.push_back(p);
      }
    pending = std::move(out);
  }

  /// The stores, commits and waits of the issuing thread are what the
  /// buffer sees: a branch some thread certainly takes does them, one no
  /// thread takes does nothing, one of an unknown set may or may not (its
  /// stores are dropped: undecidable).
  static State mergeBranches(const State &entry,
                             ArrayRef<Branch<State>> given) {
    State result = mergeKnown(entry, given);
    result.lastRegion = nullptr;
    result.lastSet.reset();
    result.lastUniform = false;
    return result;
  }

  /// Branches whose executing set the model does not know take the
  /// conditional set their terminator recorded; where the if's condition
  /// is the same for every thread and unknown, one branch runs for all:
  /// the branches' states meet (what only one does is on some paths).
  static State mergeKnown(const State &entry, ArrayRef<Branch<State>> given) {
    Operation *ifOp = given.empty() || !given.front().state.lastRegion
                          ? nullptr
                          : given.front().state.lastRegion->getParentOp();
    SmallVector<Branch<State>, 2> branches(given.begin(), given.end());
    bool uniform = false;
    for (auto [i, b] : llvm::enumerate(branches)) {
      bool own = ifOp && i < ifOp->getNumRegions() &&
                 !ifOp->getRegion(i).empty() &&
                 b.state.lastRegion == &ifOp->getRegion(i);
      if (b.set || !own)
        continue;
      uniform |= b.state.lastUniform;
      b.set = b.state.lastSet;
      b.taken = b.set && b.set->any();
    }
    if (uniform) {
      // A store issued in a branch is pending on some paths; one pending
      // before that a branch commits or waits for is undecidable (a wait
      // under a kernel parameter), and dropped.
      State result = branches.front().state;
      for (const Branch<State> &b : ArrayRef(branches).drop_front())
        result.join(b.state);
      if (branches.size() == 1)
        result.join(entry);
      llvm::erase_if(result.pending, [&](const Pending &p) {
        return llvm::any_of(entry.pending,
                            [&](const Pending &q) { return q.store == p.store; }) &&
               llvm::any_of(branches, [&](const Branch<State> &b) {
                 return touched(entry, b.state, p.store);
               });
      });
      return result;
    }
    return mergeSets(entry, branches);
  }

  static State mergeSets(const State &entry,
                         ArrayRef<Branch<State>> branches) {
    std::optional<State> out;
    bool unknown = false;
    for (const Branch<State> &b : branches) {
      if (!b.set) {
        unknown = true;
        continue;
      }
      if (!b.taken)
        continue;
      if (out)
        out->join(b.state);
      else
        out = b.state;
    }
    State result = out ? *out : entry;
    if (!unknown)
      return result;
    // A branch of an unknown set may or may not have run: the stores it
    // touched (committed, waited for) are undecidable, and dropped.
    for (const Branch<State> &b : branches)
      if (!b.set)
        llvm::erase_if(result.pending, [&](const Pending &p) {
          return touched(entry, b.state, p.store);
        });
    return result;
  }

  /// Whether a branch that led from `entry` to `after` issued, committed or
  /// waited for `store`.
  static bool touched(const State &entry, const State &after,
                      Operation *store) {
    auto in = [&](const State &s) -> const Pending * {
      for (const Pending &p : s.pending)
        if (p.store == store)
          return &p;
      return nullptr;
    };
    const Pending *before = in(entry), *now = in(after);
    if (!before || !now)
      return bool(before) != bool(now);
    return before->group != now->group || before->newerMin != now->newerMin ||
           before->newerMax != now->newerMax;
  }
};

/// A pointer evaluated at one point: its allocation and byte offset.
struct Place {
  Address address;
  int64_t offset;
};

std::optional<Place> placeAt(SPMDModel &model, const Address &address,
                             Point p) {
  int64_t offset = address.constant;
  for (auto [index, scale] : address.scaled) {
    std::optional<int64_t> v = model.evalInt(index, p);
    if (!v)
      return std::nullopt;
    offset += *v * scale;
  }
  return Place{address, offset};
}

/// Whether a loop around `op` may run no trip.
bool inLoopThatMayNotRun(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isLoop(parent) && !runsAtLeastOnce(parent))
      return true;
  return false;
}

class StagingCheck {
public:
  StagingCheck(SPMDModel &model, Reporter &out) : model(model), out(out) {}

  void visit(Operation *op, State &state) {
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      Region *region = op->getParentRegion();
      bool ofIf = isIfOp(region->getParentOp());
      state.lastRegion = ofIf ? region : nullptr;
      state.lastSet = ofIf ? conditionalSet(region) : ExecSet();
      state.lastUniform = ofIf && !model.regionSet(region) &&
                          unevaluatedUniform(region->getParentOp());
      return;
    }
    if (bulkStoreSource(op))
      return issue(op, state);
    if (isBulkCommitGroup(op))
      return commit(state);
    if (std::optional<BulkWait> wait = bulkWaitGroup(op))
      return waitGroups(wait->groups, state);
    MemoryWrite write = memoryWriteOf(op);
    if (write.address)
      checkWrite(op, write, state);
  }

private:
  /// Whether the condition of the scf.if `ifOp` is the same for every
  /// thread of a CTA (uniformInCTA: the buffers and the bulk groups are
  /// the CTA's) and does not evaluate: a trip's test of the loop's
  /// induction variable (a flattened persistent loop's epilogue at the
  /// tile's last k-step), a kernel parameter.
  /// Only a condition that changes from trip to trip (it reads an
  /// induction variable or iter_arg of a loop around the if) is joined: one
  /// the same in every trip (a kernel parameter: an alignment test around a
  /// whole epilogue) stays undecidable.
  bool unevaluatedUniform(Operation *ifOp) {
    Value cond = ifCondition(ifOp);
    unsigned work = 0, trip = 0;
    return cond && uniformInCTA(cond, &work) &&
           !model.evalInt(cond, Point{0, 0}) && readsTrip(cond, ifOp, &trip);
  }

  /// Whether `v` reads a block argument of a loop around `op`, through at
  /// most 64 values.
  static bool readsTrip(Value v, Operation *op, unsigned *work) {
    if (++*work > 64)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      return isLoop(owner) && owner->isProperAncestor(op);
    }
    Operation *def = v.getDefiningOp();
    return def && llvm::any_of(def->getOperands(), [&](Value operand) {
             return readsTrip(operand, op, work);
           });
  }

  /// The points that may run `region`: the model's executing set where
  /// that is known; else where every condition around it that is uniform
  /// and does not evaluate holds, and every loop around it (also one whose
  /// trips differ between the threads) runs a trip; none where another
  /// condition does not evaluate. For warnings only (pointsOf).
  const ExecSet &conditionalSet(Region *region) {
    auto [it, inserted] = conditionalSets.try_emplace(region);
    if (!inserted)
      return it->second;
    ExecSet result;
    Operation *parent = region->getParentOp();
    if (const ExecSet &known = model.regionSet(region)) {
      result = known;
    } else if (isa<FunctionOpInterface>(parent)) {
      result = llvm::BitVector(model.ranks() * model.threads(), true);
    } else if (ExecSet base = conditionalSet(parent->getParentRegion())) {
      if (isIfOp(parent) && !unevaluatedUniform(parent)) {
        // Evaluated at the points of the conditional set around it.
        bool then = region == &parent->getRegion(0);
        llvm::BitVector set(base->size());
        bool known = true;
        for (unsigned b : base->set_bits()) {
          std::optional<int64_t> c =
              model.evalInt(ifCondition(parent), model.point(b));
          known &= c.has_value();
          if (c && (*c != 0) == then)
            set.set(b);
        }
        if (known)
          result = std::move(set);
      } else if (isIfOp(parent) || isExecuteRegion(parent) || isLoop(parent)) {
        // A loop whose trips differ between the threads (a persistent
        // scf.while per warpgroup): the points that may run a trip.
        result = std::move(base);
      }
    }
    // `it` may be invalidated by the recursion's insertions.
    return conditionalSets[region] = std::move(result);
  }

  /// The points that execute `op` (actingPoints), or where the model does
  /// not know them, its conditional set.
  ExecSet pointsOf(Operation *op) {
    if (const ExecSet &known = actingPoints(op, model))
      return known;
    return conditionalSet(op->getParentRegion());
  }

  void issue(Operation *store, State &state) {
    // A store issued again (the next trip) replaces the earlier one: that
    // one is in an older group, so it is freed no later.
    llvm::erase_if(state.pending,
                   [&](const Pending &p) { return p.store == store; });
    state.pending.push_back(Pending{store});
  }

  static void commit(State &state) {
    for (Pending &p : state.pending) {
      switch (p.group) {
      case Pending::Group::Open:
        p.group = Pending::Group::Committed;
        p.newerMin = p.newerMax = 0;
        break;
      case Pending::Group::Committed:
        ++p.newerMin;
        ++p.newerMax;
        break;
      case Pending::Group::Mixed:
        p.group = Pending::Group::Committed;
        p.newerMin = 0;
        ++p.newerMax;
        break;
      }
    }
  }

  /// At most `groups` of the newest groups still pending: the stores of
  /// older groups are done (wait_group waits for the writes too, so frees
  /// the sources as well); the thread's open group is not waited for.
  static void waitGroups(int64_t groups, State &state) {
    llvm::erase_if(state.pending, [&](const Pending &p) {
      return p.group == Pending::Group::Committed && p.newerMin >= groups;
    });
    for (Pending &p : state.pending)
      if (p.group != Pending::Group::Open && p.newerMax >= groups)
        p.certain = false;
  }

  /// The source of `store`: its allocation and its byte offset at each
  /// point of its executing set (each value once: a staging buffer per
  /// warpgroup, CUTLASS ping-pong's, has one per issuing thread).
  struct Source {
    Address address;
    SmallVector<int64_t, 2> offsets;
  };
  std::optional<Source> sourceOf(Operation *store) {
    std::optional<Address> address = decomposeAddress(bulkStoreSource(store));
    ExecSet points = pointsOf(store);
    if (!address || !points || points->none())
      return std::nullopt;
    Source source{*address, {}};
    for (unsigned b : points->set_bits()) {
      std::optional<Place> at = placeAt(model, *address, model.point(b));
      if (!at)
        return std::nullopt;
      if (!llvm::is_contained(source.offsets, at->offset))
        source.offsets.push_back(at->offset);
    }
    return source;
  }

  void checkWrite(Operation *op, const MemoryWrite &write, State &state) {
    if (state.pending.empty())
      return;
    std::optional<Address> address = decomposeAddress(write.address);
    ExecSet points = pointsOf(op);
    if (!address || !points)
      return;
    for (const Pending &p : state.pending) {
      std::optional<Source> src = sourceOf(p.store);
      if (!src || !src->address.sameAllocation(*address))
        continue;
      std::optional<Point> hit;
      for (unsigned b : points->set_bits()) {
        Point point = model.point(b);
        std::optional<Place> at = placeAt(model, *address, point);
        if (!at)
          break;
        if (llvm::any_of(src->offsets, [&](int64_t offset) {
              return at->offset < offset + kMinBoxBytes &&
                     at->offset + write.bytes > offset;
            })) {
          hit = point;
          break;
        }
      }
      if (hit)
        return report(op, p, *hit);
    }
  }

  void report(Operation *op, const Pending &p, Point hit) {
    // A write under a condition the model does not evaluate may not run.
    bool every = p.certain && !inLoopThatMayNotRun(op) &&
                 actingPoints(op, model).has_value();
    auto diag = out.report(op, every ? Severity::Error : Severity::Warning,
                           kStagingSlot);
    diag << "writes shared memory that a bulk store may still be reading"
        << (every ? "" : " on some launches") << " (thread " << hit.tid;
    if (model.ranks() > 1)
      diag << " of CTA " << hit.rank;
    diag << " writes into its source): ";
    if (p.group == Pending::Group::Open)
      diag << "the store's bulk async-group is not committed "
             "(cp.async.bulk.commit_group), so no wait_group.read waits for "
             "it";
    else
      diag << "wait for it with cp.async.bulk.wait_group.read "
          << std::max<int64_t>(p.newerMin, 0)
          << " by the thread that issued it before the buffer is written "
             "again ("
          << p.newerMin << " group(s) were committed after the store's own)";
    out.note(op, kStagingSlot, p.store->getLoc(),
             "the bulk store that reads the buffer");
  }

  SPMDModel &model;
  Reporter &out;
  std::map<Region *, ExecSet> conditionalSets; // stable references
};

//===----------------------------------------------------------------------===//
// Rings of staging buffers (DeepEP#657, lang's StorePipeline)
//===----------------------------------------------------------------------===//

/// A ring index in trip k of an scf.for of lower bound lb and step 1:
/// ((k + shift) mod depth) * scale.
struct RingIndex {
  int64_t depth, shift, scale;
};

/// `v` as a ring index of `loop` (its induction variable plus a constant,
/// modulo a constant, times a constant; through casts and lang's floor-mod
/// fix-up `r + (r < 0 != d < 0 && r != 0) * d`, zero for a non-negative
/// induction variable).
std::optional<RingIndex> ringIndexOf(Value v, Operation *loop,
                                     unsigned depth = 0) {
  if (depth > 16)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isIntegerCast(def))
    return ringIndexOf(def->getOperand(0), loop, depth + 1);
  if (isIntegerMul(def))
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c = constantOf(def->getOperand(1 - i)))
        if (auto r = ringIndexOf(def->getOperand(i), loop, depth + 1)) {
          r->scale *= *c;
          return r;
        }
  if (isIntegerAdd(def)) {
    // lang's fix-up: rem + extui(...) * D with the same D.
    for (unsigned i = 0; i < 2; ++i) {
      Operation *rem = def->getOperand(i).getDefiningOp();
      Operation *fix = def->getOperand(1 - i).getDefiningOp();
      bool remSigned = false;
      if (isIntegerRem(rem, &remSigned) && remSigned && isIntegerMul(fix) &&
          isZeroExtend(fix->getOperand(0).getDefiningOp()) &&
          constantOf(fix->getOperand(1)) == constantOf(rem->getOperand(1)))
        return ringIndexOf(def->getOperand(i), loop, depth + 1);
    }
  }
  if (isIntegerRem(def)) {
    std::optional<int64_t> d = constantOf(def->getOperand(1));
    if (!d || *d < 1 || *d > 64)
      return std::nullopt;
    Value x = def->getOperand(0);
    int64_t shift = 0;
    for (unsigned i = 0; i < 4; ++i) {
      Operation *xd = x.getDefiningOp();
      if (isIntegerCast(xd) && !isIntegerTrunc(xd)) {
        x = xd->getOperand(0);
      } else if (isIntegerAdd(xd) &&
                 constantOf(xd->getOperand(1))) {
        shift += *constantOf(xd->getOperand(1));
        x = xd->getOperand(0);
      } else {
        break;
      }
    }
    auto iv = dyn_cast<BlockArgument>(x);
    if (!iv || iv.getOwner()->getParentOp() != loop || iv.getArgNumber() != 0)
      return std::nullopt;
    std::optional<int64_t> lb = constantOf(loop->getOperand(0));
    std::optional<int64_t> step = constantOf(loop->getOperand(2));
    if (!lb || *lb < 0 || step != 1 || shift < 0)
      return std::nullopt;
    return RingIndex{*d, (*lb + shift) % *d, 1};
  }
  return std::nullopt;
}

/// An address of the loop's ring: the allocation, the other bytes at each
/// point of `op`'s executing set (each value once), and the ring index.
struct RingPlace {
  Address address;
  SmallVector<int64_t> bases;
  RingIndex ring;
};

std::optional<RingPlace> ringPlaceOf(Value ptr, Operation *op, Operation *loop,
                                     SPMDModel &model) {
  std::optional<Address> address = decomposeAddress(ptr);
  const ExecSet &points = actingPoints(op, model);
  if (!address || !points || points->none())
    return std::nullopt;
  std::optional<RingIndex> ring;
  Address rest = *address;
  rest.scaled.clear();
  for (auto [index, scale] : address->scaled) {
    if (std::optional<RingIndex> r = ringIndexOf(index, loop)) {
      if (ring)
        return std::nullopt;
      ring = RingIndex{r->depth, r->shift, r->scale * scale};
    } else {
      rest.scaled.push_back({index, scale});
    }
  }
  if (!ring)
    return std::nullopt;
  SmallVector<int64_t> bases;
  for (unsigned b : points->set_bits()) {
    std::optional<Place> at = placeAt(model, rest, model.point(b));
    if (!at)
      return std::nullopt;
    if (!llvm::is_contained(bases, at->offset))
      bases.push_back(at->offset);
  }
  return RingPlace{*address, bases, *ring};
}

/// The bulk stores, commits, waits and writes of one trip of `loop`, in
/// program order (scf.if regions of a known executing set included); false
/// where a nested loop or an unknown branch holds any of them.
bool tripEvents(Operation *loop, SmallVectorImpl<Operation *> &events,
                SPMDModel &model) {
  bool ok = true;
  loop->getRegion(0).walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool event = bulkStoreSource(op) || isBulkCommitGroup(op) ||
                 bulkWaitGroup(op) || memoryWriteOf(op).address;
    if (!event)
      return WalkResult::advance();
    for (Operation *p = op->getParentOp(); p != loop; p = p->getParentOp())
      if (!isIfOp(p) || !model.execSet(op) || model.execSet(op)->none())
        ok = false;
    events.push_back(op);
    return WalkResult::advance();
  });
  return ok;
}

/// In a loop of trips k = 0, 1, ..., a write into ring buffer
/// (k + cw) mod D while the store of trip j < k from buffer (j + cb) mod D
/// may still read it: one commit per trip, after the store; the issuing
/// thread's last wait_group.read N before the write in the trip frees the
/// stores of trips j <= k - 1 - N (no wait in the trip: none). The first
/// conflict is at distance d0 = (cb - cw) mod D (D where 0): the write of
/// trip d0 hits the store of trip 0 when N >= d0.
void checkRings(FunctionOpInterface fn, SPMDModel &model, Reporter &out) {
  fn->walk([&](Operation *loop) {
    if (!isForLoop(loop) || loop->getNumOperands() < 3)
      return;
    SmallVector<Operation *> events;
    if (!tripEvents(loop, events, model))
      return;
    int64_t commits = llvm::count_if(events, isBulkCommitGroup);
    if (commits != 1)
      return;
    for (size_t si = 0; si < events.size(); ++si) {
      Operation *store = events[si];
      if (!bulkStoreSource(store))
        continue;
      std::optional<RingPlace> src =
          ringPlaceOf(bulkStoreSource(store), store, loop, model);
      bool committedAfter = llvm::any_of(
          ArrayRef(events).drop_front(si + 1), isBulkCommitGroup);
      if (!src || src->bases.size() != 1 || !committedAfter)
        continue;
      int64_t srcBase = src->bases.front();
      for (size_t wi = 0; wi < si; ++wi) {
        Operation *write = events[wi];
        MemoryWrite w = memoryWriteOf(write);
        if (!w.address || bulkStoreSource(write))
          continue;
        std::optional<RingPlace> dst =
            ringPlaceOf(w.address, write, loop, model);
        if (!dst || !dst->address.sameAllocation(src->address) ||
            dst->ring.depth != src->ring.depth ||
            dst->ring.scale != src->ring.scale ||
            llvm::none_of(dst->bases, [&](int64_t base) {
              return base < srcBase + kMinBoxBytes &&
                     base + w.bytes > srcBase;
            }))
          continue;
        // The last wait before the write in the trip; a commit between it
        // and the write (there is none before the store): not followed.
        std::optional<int64_t> freedAfter; // N
        Operation *lastWait = nullptr;
        for (size_t i = 0; i < wi; ++i)
          if (std::optional<BulkWait> wait = bulkWaitGroup(events[i])) {
            freedAfter = wait->groups;
            lastWait = events[i];
          }
        int64_t d = src->ring.depth;
        int64_t d0 = ((src->ring.shift - dst->ring.shift) % d + d) % d;
        if (d0 == 0)
          d0 = d;
        if (freedAfter && *freedAfter < d0)
          continue;
        std::optional<int64_t> trips = counting::constantTrips(loop);
        if (trips && *trips <= d0)
          continue;
        bool every = trips.has_value();
        // Where the trip waits, but with an N too large, the wait is the
        // bug (CUTLASS's tma_store_wait<Stages> for <Stages - 1>): the
        // report is at the wait, with a note at the write; with no wait at
        // all, at the write.
        Operation *at = lastWait ? lastWait : write;
        auto diag = out.report(at,
                               every ? Severity::Error : Severity::Warning,
                               kStagingSlot);
        if (lastWait)
          diag << "frees too few bulk async-groups for the write after it, "
                  "which ";
        diag << "writes a staging buffer of a ring of " << d
             << " that the bulk store of " << d0
             << " trip(s) earlier may still be reading";
        if (!every)
          diag << " (in a launch of more than " << d0 << " trips)";
        diag << ": the loop commits one bulk async-group per trip, and ";
        if (freedAfter)
          diag << "the cp.async.bulk.wait_group.read " << *freedAfter
               << " before the write keeps the newest " << *freedAfter
               << " group(s) pending";
        else
          diag << "no cp.async.bulk.wait_group.read precedes the write in "
                  "the trip";
        diag << "; wait with cp.async.bulk.wait_group.read " << d0 - 1
             << " (StorePipeline.acquire()) by the issuing thread before the "
                "buffer is written again";
        if (lastWait)
          out.note(at, kStagingSlot, write->getLoc(),
                   "the write into the buffer");
        out.note(at, kStagingSlot, store->getLoc(),
                 "the bulk store that reads the buffer");
        return;
      }
    }
  });
}
} // namespace staging_buffers

using namespace staging_buffers;

void checksync::checkStagingBuffers(FunctionOpInterface fn, SPMDModel &model,
                                    Reporter &out) {
  if (!model.countable() || !isStructured(fn))
    return;
  bool stores = fn->walk([](Operation *op) {
                    return bulkStoreSource(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
                  }).wasInterrupted();
  if (!stores)
    return;
  StagingCheck check(model, out);
  auto walker = makeWalker<State>(
      model, [&](Operation *op, State &state) { check.visit(op, state); });
  State state;
  walker.walkRegion(fn.getFunctionBody(), state);
  checkRings(fn, model, out);
}
