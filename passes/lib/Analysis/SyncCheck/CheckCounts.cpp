//===- CheckCounts.cpp - arrivals against the init count (classes 3, 4) ---===//
//
// Counting, per barrier and per *context* (the innermost loop around an op,
// or the function): the arrivals one execution of an op makes on the
// barrier of each CTA (the executing set's points, times the op's count,
// to the CTA the op targets: its own, the remote view's, `on %cta`, or
// each CTA of a multicast mask), and the same for transaction bytes
// (arrive_expect_tx, expect_tx) and for the bytes of the bulk copies that
// complete on the barrier (cp.async.bulk's size, the stated box bytes of
// mbarrier.cp_async_bulk_tensor). A barrier is counted only when everything that
// could arrive on it is visible: its group and its addresses are used by
// mbarrier ops and known bulk copies only, and every executing set, count,
// predicate and target rank evaluates.
//
// - class 3: one op that arrives more times than the init count on one
//   CTA's barrier (an error where a wait observes the phases it completes
//   early in every launch: CountsInstances.cpp; else a warning); a loop
//   trip whose arrivals are not a multiple of the count, above it
//   (warning).
// - class 4: straight-line code whose arrivals on a CTA's barrier, over the
//   whole kernel, are fewer than the count while that CTA waits for the
//   first phase (error); a loop trip below the count (warning).
// - class 5 (parities and phases across trips): CheckPhases.cpp.
// - class 6 (expected transaction bytes against the copies'):
//   CheckExpectTx.cpp.
//
//===----------------------------------------------------------------------===//
#include "Counter.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::counting;
using Severity = Reporter::Severity;

Operation *counting::contextOf(Operation *op, Operation *fn) {
  for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
    if (isLoop(p))
      return p;
  return fn;
}

std::optional<Copy> counting::copyOf(Operation *op) {
  if (std::optional<BulkLoad> copy = bulkLoadOf(op))
    return Copy{copy->mbar, copy->size, copy->multicastMask};
  return std::nullopt;
}

namespace {
/// Sets the CTA (or CTAs) `e` reaches: its own, a rank (a remote view's,
/// `on %cta`; null when a view comes through a block argument) or a
/// multicast mask.
void setTarget(Event &e, const BarrierTarget &target) {
  switch (target.kind) {
  case BarrierTarget::Kind::Local:
    e.local = true;
    break;
  case BarrierTarget::Kind::RemoteView:
  case BarrierTarget::Kind::OnCta:
    e.rank = target.rank;
    if (target.constRank)
      e.rankAttr = *target.constRank;
    break;
  case BarrierTarget::Kind::Multicast:
    e.mask = target.mask;
    break;
  }
}

/// The transaction bytes an op expects (arrive_expect_tx, expect_tx), or null.
Value txBytesOf(Operation *op) {
  if (auto arrive = dyn_cast<ArriveExpectTxOp>(op))
    return arrive.getBytes();
  if (auto expect = dyn_cast<ExpectTxOp>(op))
    return expect.getBytes();
  return {};
}
} // namespace

void Counter::collect() {
  for (Value root : openRoots(fn)) {
    openGroups.push_back(root);
    openTx.push_back(root);
  }
  fn->walk([&](Operation *op) {
    Operation *ctx = contextOf(op, fn);
    if (auto init = dyn_cast<InitOp>(op))
      return inits.push_back(init);
    if (isa<MBarrierWaitOpInterface>(op))
      return waits.push_back(op);
    if (auto ptr = dyn_cast<PtrOp>(op))
      return collectCopies(ptr);
    auto barrierOp = dyn_cast<MBarrierOpInterface>(op);
    if (!barrierOp || !barrierOf(op))
      return;
    // arrive, arrive_expect_tx (count), tcgen05_commit (one arrival).
    Event e{op, *barrierOf(op), ctx, true, Value()};
    e.pred = barrierOp.getBarrierPredicate();
    setTarget(e, barrierOp.getBarrierTarget());
    if (auto arrival = dyn_cast<MBarrierArrivalOpInterface>(op)) {
      e.amount = arrival.getArrivalCount();
      arrivals.push_back(e);
    } else if (isa<Tcgen05CommitOp>(op)) {
      arrivals.push_back(e);
    } else if (auto noComplete = dyn_cast<ArriveNoCompleteOp>(op)) {
      e.amount = noComplete.getCount();
      arrivals.push_back(e);
    } else if (auto copy = dyn_cast<CpAsyncBulkTensorOp>(op)) {
      // A tensor copy that states its bytes (the box's size).
      e.arrival = false;
      e.constAmount = copy.getBytes();
      copies.push_back(e);
    }
    // arrive_expect_tx, expect_tx: transaction bytes.
    if (Value amount = txBytesOf(op)) {
      Event b = e;
      b.arrival = false;
      b.amount = amount;
      bytes.push_back(b);
    }
  });
}

void Counter::collectCopies(PtrOp ptr) {
  // The address is for bulk copies that complete tx on the barrier (local,
  // non-tensor: counted); anything else may arrive on it.
  Value root = rootOf(ptr.getBarriers());
  for (OpOperand &use : ptr->getUses()) {
    std::optional<Copy> copy = copyOf(use.getOwner());
    if (copy && copy->mbar == use.get() &&
        isa<GroupType>(ptr.getBarriers().getType())) {
      Event e{use.getOwner(), keyOf(ptr.getBarriers(), ptr.getIndex()),
              contextOf(use.getOwner(), fn), false, copy->size};
      e.local = !copy->mask;
      e.mask = copy->mask;
      copies.push_back(e);
      continue;
    }
    if (std::optional<CpAsyncArrive> arrive =
            cpAsyncMBarrierArriveOf(use.getOwner());
        arrive && arrive->barrier == use.get() &&
        isa<GroupType>(ptr.getBarriers().getType())) {
      // One arrival per thread with .noinc; without it the pending count
      // is incremented first: a net zero (PTX ISA, cp.async.mbarrier.arrive).
      Event e{use.getOwner(), keyOf(ptr.getBarriers(), ptr.getIndex()),
              contextOf(use.getOwner(), fn), true, Value()};
      e.local = true;
      e.constAmount = arrive->noinc ? 1 : 0;
      arrivals.push_back(e);
      continue;
    }
    if (isBulkCopy(use.getOwner()))
      openTx.push_back(root); // tensor copies: bytes unknown
    else
      openGroups.push_back(root);
  }
}

bool Counter::closedWorld(Value root) {
  if (!root || isa<BlockArgument>(root) || llvm::is_contained(openGroups, root))
    return false;
  // Every use of the group (and of its remote views) is a barrier op (the
  // uses of its mbarrier.ptr addresses are collectCopies'). For views, the
  // group is their pointer: its other uses are openRoots'.
  return forEachGroupUser(root, [](Operation *user) {
    return barrierOf(user).has_value();
  });
}

/// Whether `e` runs at point `p` (its `if %pred` holds); none where the
/// predicate does not evaluate.
static std::optional<bool> runsAt(const Event &e, SPMDModel &model, Point p) {
  if (!e.pred)
    return true;
  std::optional<int64_t> pred = model.evalInt(e.pred, p);
  if (!pred)
    return std::nullopt;
  return *pred != 0;
}

/// What one execution of `e` at point `p` brings (its `count`, bytes); none
/// where it does not evaluate.
static std::optional<int64_t> amountAt(const Event &e, SPMDModel &model,
                                       Point p) {
  if (!e.amount)
    return e.constAmount.value_or(1);
  std::optional<int64_t> a = model.evalInt(e.amount, p);
  if (!a || *a < 0)
    return std::nullopt;
  return *a;
}

bool counting::forEachActing(
    const Event &e, const llvm::BitVector &set, SPMDModel &model,
    llvm::function_ref<bool(unsigned, Point, int64_t)> fn) {
  for (unsigned b : set.set_bits()) {
    Point p = model.point(b);
    std::optional<bool> runs = runsAt(e, model, p);
    if (!runs)
      return false;
    if (!*runs)
      continue;
    std::optional<int64_t> amount = amountAt(e, model, p);
    if (!amount || !fn(b, p, *amount))
      return false;
  }
  return true;
}

/// What one execution of `e` by the points of `set` brings to each CTA's
/// barrier; none where a target does not evaluate.
static std::optional<PerRank> perRankOver(const Event &e,
                                          const llvm::BitVector &set,
                                          SPMDModel &model) {
  int64_t ranks = model.ranks();
  PerRank result(ranks, 0);
  bool known = forEachActing(e, set, model, [&](unsigned, Point p,
                                                int64_t amount) {
    if (e.mask) {
      std::optional<int64_t> mask = model.evalInt(e.mask, p);
      if (!mask || !model.clusterDeclared())
        return false;
      uint64_t bits = static_cast<uint64_t>(*mask) & 0xffff;
      for (int64_t r = 0; r < 16; ++r)
        if (bits >> r & 1) {
          if (r >= ranks)
            return false;
          result[r] += amount;
        }
      return true;
    }
    int64_t target;
    if (e.local) {
      target = p.rank;
    } else if (e.rankAttr) {
      target = *e.rankAttr;
    } else if (e.rank) {
      std::optional<int64_t> r = model.evalInt(e.rank, p);
      if (!r)
        return false;
      target = *r;
    } else {
      return false;
    }
    if (target < 0 || target >= ranks || (!e.local && !model.clusterDeclared()))
      return false;
    result[target] += amount;
    return true;
  });
  if (!known)
    return std::nullopt;
  return result;
}

std::optional<PerRank> Counter::perRank(const Event &e) {
  const ExecSet &set = model.execSet(e.op);
  if (!set)
    return std::nullopt;
  // The counts are per barrier: an index that may differ between the
  // threads (a barrier per warp, a stage that depends on the warp group)
  // names several barriers at once, or one at different times.
  if (!e.key.constIndex && !model.uniform(e.key.index))
    return std::nullopt;
  return perRankOver(e, *set, model);
}

/// perRank over the points that may execute `e` (SPMDModel::mayExecSet: a
/// loop whose trip count is loaded from memory at an address that does not
/// differ between the threads is entered by every point that reaches it):
/// what one execution brings where those threads run the same trips.
static std::optional<PerRank> perRankMay(const Event &e, SPMDModel &model) {
  const ExecSet &set = model.mayExecSet(e.op);
  if (!set ||
      (!e.key.constIndex && !model.uniformOverLoads(e.key.index)))
    return std::nullopt;
  return perRankOver(e, *set, model);
}

std::optional<int64_t> Counter::initCount(const BarrierKey &key) {
  // The inits of each group, with their keys, once.
  if (initsByRoot.empty())
    for (InitOp init : inits) {
      BarrierKey k = keyOf(init.getBarriers(), init.getIndex());
      initsByRoot[k.root].push_back({init, k});
    }
  std::optional<int64_t> count;
  bool any = false;
  for (auto &[init, k] : initsByRoot.lookup(key.root)) {
    if (k.differentFrom(key))
      continue;
    std::optional<int64_t> c = constantOf(init.getCount());
    if (!c || (any && c != count))
      return std::nullopt;
    count = c;
    any = true;
  }
  return count;
}


std::optional<int64_t> Counter::largestInitCount(const BarrierKey &key) {
  // Only a ring whose stages are known ([first, second) of its index) and
  // inits whose indices are known (a constant, a ring-init loop's range):
  // a stage widened to the whole group would mix the full barriers' count
  // with the empty ones'.
  if (!key.range || key.range->second - key.range->first > 64)
    return std::nullopt;
  std::optional<int64_t> most;
  initCount(key); // fills initsByRoot
  for (auto &[init, k] : initsByRoot.lookup(key.root)) {
    // The indices the init covers: its range, or the induction variable's
    // of a ring-init loop of constant bounds.
    std::optional<std::pair<int64_t, int64_t>> covers = k.range;
    if (auto iv = dyn_cast<BlockArgument>(k.index); !covers && iv) {
      Operation *loop = iv.getOwner()->getParentOp();
      if (loop && isForLoop(loop) && iv.getArgNumber() == 0 &&
          loop->getNumOperands() >= 3 && constantOf(loop->getOperand(0)) &&
          constantOf(loop->getOperand(1)))
        covers = std::make_pair(*constantOf(loop->getOperand(0)),
                                *constantOf(loop->getOperand(1)));
    }
    if (!covers)
      return std::nullopt;
    if (covers->second <= key.range->first ||
        key.range->second <= covers->first)
      continue;
    std::optional<int64_t> c = constantOf(init.getCount());
    if (!c)
      return std::nullopt;
    most = std::max(most.value_or(*c), *c);
  }
  return most;
}

void Counter::checkMixedCounts(Operation *ctx, ArrayRef<const Event *> group,
                               const BarrierKey &key, int64_t most) {
  // A ring whose barriers have different counts (CUTLASS's stages of
  // count 2 but three of them initialized with 3): a loop trip that brings
  // fewer arrivals than a count of a barrier its index may name leaves
  // that barrier's phase for a later trip (or for none).
  if (ctx == fn.getOperation() || !closedWorld(key.root))
    return;
  bool waitedInLoop = llvm::any_of(waits, [&](Operation *w) {
    return isa<WaitOp, TryWaitOp>(w) && barrierOf(w)->root == key.root &&
           contextOf(w, fn) != fn.getOperation();
  });
  if (!waitedInLoop)
    return;
  PerRank total(model.ranks(), 0);
  for (const Event *e : group) {
    std::optional<PerRank> amounts = perRank(*e);
    if (!amounts)
      return;
    for (int64_t r = 0; r < model.ranks(); ++r)
      total[r] += (*amounts)[r];
  }
  for (int64_t r = 0; r < model.ranks(); ++r) {
    if (total[r] == 0 || total[r] >= most)
      continue;
    out.report(group.front()->op, Severity::Warning, kUnderArrivalSlot)
        << "each trip of the loop makes " << total[r]
        << " arrival(s) on a barrier of the group"
        << (model.clusterDeclared() ? " of CTA " + std::to_string(r) : "")
        << ", some of whose barriers it may name are initialized with "
           "arrival count "
        << most
        << ": fewer arrivals than the count, so a phase needs several "
           "trips (or never completes)";
    return;
  }
}

void Counter::checkArrivals() {
  forEachBarrier(arrivals, [&](Operation *ctx, ArrayRef<const Event *> group) {
    const BarrierKey &key = group.front()->key;
    std::optional<int64_t> count = initCount(key);
    if (!count) {
      if (std::optional<int64_t> most = largestInitCount(key))
        checkMixedCounts(ctx, group, key, *most);
      return;
    }
    if (*count < 1 || !closedWorld(key.root))
      return;
    int64_t ranks = model.ranks();
    PerRank total(ranks, 0);
    bool reportedOne = false; // an op above the count on its own
    // Every launch runs at least two trips: an scf.for of constant bounds.
    bool everyLaunchTwoTrips = isForLoop(ctx) && !atMostOneTrip(ctx) &&
                               constantTrips(ctx).has_value();
    for (const Event *e : group) {
      std::optional<PerRank> amounts = perRank(*e);
      if (!amounts)
        return checkMayOverArrival(group, key, *count);
      for (int64_t r = 0; r < ranks; ++r)
        total[r] += (*amounts)[r];
      for (int64_t r = 0; r < ranks; ++r) {
        if ((*amounts)[r] > *count) {
          // Harmless at run time only if nothing ever waits on the group.
          std::string where = model.clusterDeclared()
                                  ? " of CTA " + std::to_string(r)
                                  : std::string();
          // An error where a wait observes the phases it completes early
          // in every launch (CountsInstances.cpp): where no stage is ever
          // refilled, say, nothing waits for them, and the launch is right.
          // Also a loop of constant trips (two or more) that waits on the
          // barrier once per trip: the second trip's wait is for a phase the
          // first trip's extra arrivals complete (the protocol model stops
          // at 64 trips).
          bool observed =
              waited(key.root) &&
              ((everyLaunchTwoTrips && waitsPerTrip(key, ctx, r) == 1) ||
               overArrivalObservedEvery(protocolModel(), e->op));
          out.report(e->op, observed ? Severity::Error : Severity::Warning,
                     kOverArrivalSlot)
              << "arrives " << (*amounts)[r] << " times on a barrier" << where
              << " initialized with arrival count " << *count
              << ": the threads that execute it complete the phase and "
                 "arrive again on the next one (more arrivals per phase "
                 "than the count)";
          reportedOne = true;
          break;
        }
      }
    }
    // Who waits on this barrier, and how.
    auto waitsIn = [&](int64_t r, bool inLoop, bool firstPhase) {
      for (Operation *w : waits) {
        std::optional<BarrierKey> wk = barrierOf(w);
        if (wk->root != key.root)
          continue;
        if (firstPhase && (!isa<WaitOp>(w) || !wk->sameAs(key)))
          continue;
        if (inLoop && (!isa<WaitOp, TryWaitOp>(w) ||
                       contextOf(w, fn) == fn.getOperation()))
          continue;
        if (!inLoop && contextOf(w, fn) != ctx)
          continue;
        if (firstPhase) {
          auto wait = cast<WaitOp>(w);
          std::optional<int64_t> phase = constantOf(wait.getPhase());
          if (!phase || ((*phase ^ wait.getPhaseOffset()) & 1) != 0)
            continue;
        }
        const ExecSet &set = model.execSet(w);
        // In a loop, a wait whose executing set is unknown (under a
        // condition on the trip: the producer's `if (k >= stages)`) may
        // be one; the loop reports it gates are warnings, or need
        // waitsPerTrip's known sets.
        if ((set && model.hasRank(*set, r)) || (inLoop && !set))
          return w;
      }
      return static_cast<Operation *>(nullptr);
    };
    const char *where = model.clusterDeclared() ? " of CTA " : "";
    auto rankText = [&](int64_t r) {
      return model.clusterDeclared() ? std::to_string(r) : std::string();
    };
    if (ctx == fn.getOperation()) {
      // Straight-line code runs once: fewer arrivals than the count in the
      // whole kernel (every arrival on the group is here) never complete
      // the first phase.
      bool elsewhere = llvm::any_of(arrivals, [&](const Event &e) {
        return e.key.root == key.root && e.context != ctx;
      });
      if (elsewhere)
        return;
      for (int64_t r = 0; r < ranks; ++r)
        if (total[r] < *count)
          if (Operation *w = waitsIn(r, false, true))
            out.report(w, Severity::Error, kUnderArrivalSlot)
                << "waits for a phase that never completes: the barrier"
                << where << rankText(r) << " receives " << total[r]
                << " arrival(s) in the whole kernel but is initialized with "
                   "arrival count "
                << *count;
      return;
    }
    // An op above the count on its own has its report (the same op and
    // slot): the trip's sum adds nothing to it.
    if (reportedOne)
      return;
    bool every = everyLaunchTwoTrips;
    for (int64_t r = 0; r < ranks; ++r) {
      if (total[r] == 0 || !waitsIn(r, true, false))
        continue;
      if (total[r] % *count == 0) {
        // k phases per trip (k >= 2) for a waiter that waits once per trip:
        // its waits fall behind the phases from the first trip on.
        int64_t phases = total[r] / *count;
        if (phases < 2 || waitsPerTrip(key, ctx, r) != 1)
          continue;
        out.report(group.front()->op,
                   every ? Severity::Error : Severity::Warning, kOverArrivalSlot)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", " << phases << " times its arrival count " << *count
            << ", but the barrier is waited on once per trip: " << phases
            << " phases complete per trip, so from the second trip on the "
               "wait is for a phase of an earlier trip (more arrivals per "
               "phase than the count)";
        break;
      }
      if (total[r] > *count && every && waitsPerTrip(key, ctx, r) == 1)
        // The second trip's phase completes with the (count + 1)-th
        // arrival after the first phase, before that trip's own arrivals
        // (more than the count) are all made: its wait returns for a phase
        // of the trips before, or waits for one past the last arrival.
        out.report(group.front()->op, Severity::Error, kOverArrivalSlot)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", initialized with arrival count " << *count
            << ": more arrivals per phase than the count, so the phases "
               "drift from the trips; the barrier is waited on once per trip "
               "of a loop of " << *constantTrips(ctx)
            << " trips, so from the second trip on the wait is for a phase "
               "that completes before the trip's arrivals are made";
      else if (total[r] > *count)
        out.report(group.front()->op, Severity::Warning, kOverArrivalSlot)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", initialized with arrival count " << *count
            << ": more arrivals per phase than the count, so the phases "
               "drift from the trips";
      else
        out.report(group.front()->op, Severity::Warning, kUnderArrivalSlot)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", initialized with arrival count " << *count
            << ": fewer arrivals than the count, so a phase needs several "
               "trips (or never completes)";
      break;
    }
  });
}

void Counter::checkMayOverArrival(ArrayRef<const Event *> group,
                                  const BarrierKey &key, int64_t count) {
  // A loop whose trip count every thread loads from the same address (a
  // grouped GEMM's k-tiles of its problem shape in device memory): the
  // executing set is unknown, but where its threads run the same trips, one
  // execution of the op is made by every point that reaches the loop. More
  // arrivals than the count then complete a phase early on each stage: a
  // warning (the trips are the same only where the memory says so).
  if (!waited(key.root))
    return;
  for (const Event *e : group) {
    if (model.execSet(e->op))
      continue;
    std::optional<PerRank> amounts = perRankMay(*e, model);
    if (!amounts)
      continue;
    for (int64_t r = 0; r < model.ranks(); ++r) {
      if ((*amounts)[r] <= count)
        continue;
      out.report(e->op, Severity::Warning, kOverArrivalSlot)
          << "arrives " << (*amounts)[r] << " times on a barrier"
          << (model.clusterDeclared() ? " of CTA " + std::to_string(r) : "")
          << " initialized with arrival count " << count
          << " where the threads that reach its loop run the same trips (its "
             "trip count is loaded from memory at an address that does not "
             "differ between them): they complete the phase and arrive again "
             "on the next one, so the phase completes before the last of "
             "them has arrived (more arrivals per phase than the count)";
      return;
    }
  }
}

void Counter::checkNetZeroArrivals() {
  // A barrier whose every arrival is a cp.async.mbarrier.arrive without
  // .noinc (a net zero) never completes a phase: every wait for phase 0
  // (parity 0 after the phase offset) waits forever.
  SmallVector<Value> roots;
  for (const Event &e : arrivals)
    if (e.constAmount == 0 && !llvm::is_contained(roots, e.key.root))
      roots.push_back(e.key.root);
  for (Value root : roots) {
    if (!root || !closedWorldOnce(root))
      continue;
    const Event *first = nullptr;
    bool none = llvm::all_of(arrivals, [&](const Event &e) {
      if (e.key.root != root)
        return true;
      std::optional<PerRank> amounts = perRankOnce(e);
      if (!amounts || llvm::any_of(*amounts, [](int64_t a) { return a; }))
        return false;
      if (!first && e.constAmount == 0)
        first = &e;
      return true;
    });
    if (!none || !first)
      continue;
    std::optional<int64_t> count = initCount(first->key);
    if (!count || *count < 1)
      continue;
    // Who waits for phase 0: in every instance of the protocol model (each
    // sampled trip count), or only in some.
    const ProtocolModel &protocol = protocolModel();
    if (!protocol.ok())
      return;
    bool anyFull = llvm::any_of(protocol.instances(),
                                [](const ProtocolInstance &in) { return in.full(); });
    Operation *waitOp = nullptr;
    bool every = true;
    for (const ProtocolInstance &in : protocol.instances()) {
      if (anyFull && !in.full())
        continue;
      Operation *here = nullptr;
      for (const std::vector<SyncEvent> &trace : in.traces)
        for (const SyncEvent &s : trace)
          if (!here && s.kind == SyncEvent::Wait && !s.named() &&
              s.parity == 0 && isa<WaitOp>(s.op) &&
              barrierOf(s.op)->root == root)
            here = s.op;
      every &= here != nullptr;
      if (!waitOp)
        waitOp = here;
    }
    if (!waitOp)
      continue;
    Severity severity = every ? Severity::Error : Severity::Warning;
    out.report(first->op, severity, kUnderArrivalSlot)
        << "arrives with cp.async.mbarrier.arrive without .noinc, which "
           "increments the barrier's pending count before its arrival (a net "
           "zero), and nothing else arrives on the barrier (initialized with "
           "arrival count "
        << *count
        << "): its phase never completes, so the wait for its first phase "
           "waits forever"
        << (every ? "" : " on some launches")
        << "; use .noinc (cpasync_barrier_arrive_noinc: the arrival counted in "
           "the init count)";
    out.note(first->op, kUnderArrivalSlot, waitOp->getLoc(),
             "the wait for a phase that never completes");
  }
}

void Counter::run() {
  collect();
  if (model.countable()) {
    checkArrivals();
    checkNetZeroArrivals();
    checkBytes();
    checkBytesPerStep();
  }
  checkParity();
  checkParityAfterLoop();
  checkRunAhead();
  checkStartupDeadlock();
}


void checksync::checkCounts(FunctionOpInterface fn, SPMDModel &model,
                            Reporter &out) {
  Counter(fn, model, out).run();
}
