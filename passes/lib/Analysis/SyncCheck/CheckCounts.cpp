//===- CheckCounts.cpp - arrivals, parity, tx bytes (classes 3, 4, 5, 6) --===//
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
//   CTA's barrier (error); a loop trip whose arrivals are not a multiple of
//   the count, above it (warning).
// - class 4: straight-line code whose arrivals on a CTA's barrier, over the
//   whole kernel, are fewer than the count while that CTA waits for the
//   first phase (error); a loop trip below the count (warning).
// - class 5: a wait in an scf.for whose barrier and parity do not change
//   from trip to trip, on a barrier that the loop arrives on: an odd number
//   of phases per trip is an error, an unknown number a warning. And a loop
//   that arrives on one barrier every trip but never waits (no back-
//   pressure), while others wait on it in a loop: it can run two phases
//   ahead of them (warning).
// - class 6: expected transaction bytes different from the bytes of the
//   bulk copies that complete on the barrier in the same context (error).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// Amounts per receiving CTA rank.
using PerRank = SmallVector<int64_t>;

/// The innermost loop around `op` inside `fn`, or `fn`.
Operation *contextOf(Operation *op, Operation *fn) {
  for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
    if (isLoop(p))
      return p;
  return fn;
}

/// The bulk copy ops whose `mbar` operand the counting understands, with
/// their byte count and multicast mask.
struct Copy {
  Value mbar, size, mask;
};
std::optional<Copy> copyOf(Operation *op) {
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return Copy{copy.getMbar(), copy.getSize(), copy.getMulticastMask()};
  return std::nullopt;
}

/// One op that arrives on, or brings transaction bytes to, a barrier.
struct Event {
  Operation *op;
  BarrierKey key;
  Operation *context;
  bool arrival;          // counts toward the arrival count
  Value amount;          // arrivals (null: 1) or bytes
  Value pred;            // `if %pred`
  Value rank;            // target rank operand (remote view or `on`)
  std::optional<int64_t> rankAttr;
  bool local = false;    // the executing CTA's own barrier
  Value mask;            // multicast mask (i16)
  std::optional<int64_t> constAmount; // a stated amount (a tensor copy's bytes)
};

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

class Counter {
public:
  Counter(FunctionOpInterface fn, SPMDModel &model, Reporter &out)
      : fn(fn), model(model), out(out) {}
  void run();

private:
  void collect();
  void collectCopies(PtrOp ptr);
  bool closedWorld(Value root);
  std::optional<PerRank> perRank(const Event &event);
  /// perRank, once per event (checkParity asks for each wait).
  const std::optional<PerRank> &perRankOnce(const Event &event) {
    auto key = std::make_pair(event.op, event.arrival);
    auto it = perRankMemo.find(key);
    if (it == perRankMemo.end())
      it = perRankMemo.try_emplace(key, perRank(event)).first;
    return it->second;
  }
  std::optional<int64_t> initCount(const BarrierKey &key);
  void checkArrivals();
  void checkParity();
  void checkBytes();
  void checkRunAhead();
  bool waited(Value root) {
    return llvm::any_of(waits, [&](Operation *w) {
      return barrierOf(w)->root == root;
    });
  }

  FunctionOpInterface fn;
  SPMDModel &model;
  Reporter &out;
  SmallVector<Event> arrivals, bytes, copies;
  SmallVector<InitOp> inits;
  SmallVector<Operation *> waits;
  // Groups whose barriers something unknown may arrive on or complete tx on.
  SmallVector<Value> openGroups, openTx;
  std::map<std::pair<Operation *, bool>, std::optional<PerRank>> perRankMemo;
  llvm::DenseMap<Value, bool> closedMemo;
  llvm::DenseMap<Value, SmallVector<std::pair<InitOp, BarrierKey>>> initsByRoot;
  bool closedWorldOnce(Value root) {
    auto it = closedMemo.find(root);
    if (it == closedMemo.end())
      it = closedMemo.try_emplace(root, closedWorld(root)).first;
    return it->second;
  }
};

void Counter::collect() {
  for (Value root : openRoots(fn)) {
    openGroups.push_back(root);
    openTx.push_back(root);
  }
  fn->walk([&](Operation *op) {
    Operation *ctx = contextOf(op, fn);
    if (auto init = dyn_cast<InitOp>(op))
      return inits.push_back(init);
    if (isa<WaitOp, TryWaitOp, TestWaitOp>(op))
      return waits.push_back(op);
    if (auto ptr = dyn_cast<PtrOp>(op))
      return collectCopies(ptr);
    auto barrierOp = dyn_cast<MBarrierOpInterface>(op);
    if (!barrierOp)
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
    if (isBulkCopy(use.getOwner()))
      openTx.push_back(root); // tensor copies: bytes unknown
    else
      openGroups.push_back(root);
  }
}

bool Counter::closedWorld(Value root) {
  if (!root || isa<BlockArgument>(root) || llvm::is_contained(openGroups, root))
    return false;
  // Every use of the group (and of its remote views) is an mbarrier op.
  // For views, the group is their pointer: its other uses are openRoots'.
  SmallVector<Value> values{root};
  if (isa<LLVM::LLVMPointerType>(root.getType())) {
    values.clear();
    for (Operation *user : root.getUsers())
      if (auto view = dyn_cast<ViewOp>(user))
        values.push_back(view.getResult());
  }
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<RemoteViewOp>(user)) {
        values.push_back(view.getResult());
        continue;
      }
      if (!isa<MBarrierDialect>(user->getDialect()))
        return false;
    }
  }
  return true;
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
  int64_t ranks = model.ranks();
  PerRank result(ranks, 0);
  for (unsigned b : set->set_bits()) {
    Point p = model.point(b);
    if (e.pred) {
      std::optional<int64_t> pred = model.evalInt(e.pred, p);
      if (!pred)
        return std::nullopt;
      if (!*pred)
        continue;
    }
    int64_t amount = e.constAmount.value_or(1);
    if (e.amount) {
      std::optional<int64_t> a = model.evalInt(e.amount, p);
      if (!a || *a < 0)
        return std::nullopt;
      amount = *a;
    }
    if (e.mask) {
      std::optional<int64_t> mask = model.evalInt(e.mask, p);
      if (!mask || !model.clusterDeclared())
        return std::nullopt;
      uint64_t bits = static_cast<uint64_t>(*mask) & 0xffff;
      for (int64_t r = 0; r < 16; ++r)
        if (bits >> r & 1) {
          if (r >= ranks)
            return std::nullopt;
          result[r] += amount;
        }
      continue;
    }
    int64_t target;
    if (e.local) {
      target = p.rank;
    } else if (e.rankAttr) {
      target = *e.rankAttr;
    } else if (e.rank) {
      std::optional<int64_t> r = model.evalInt(e.rank, p);
      if (!r)
        return std::nullopt;
      target = *r;
    } else {
      return std::nullopt;
    }
    if (target < 0 || target >= ranks || (!e.local && !model.clusterDeclared()))
      return std::nullopt;
    result[target] += amount;
  }
  return result;
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

/// Groups events of one context by barrier; a group with both a
/// non-constant index and another index is left out (they may alias).
template <typename Fn>
void forEachBarrier(ArrayRef<Event> events, Fn fn) {
  SmallVector<Operation *> contexts;
  for (const Event &e : events)
    if (!llvm::is_contained(contexts, e.context))
      contexts.push_back(e.context);
  for (Operation *ctx : contexts) {
    SmallVector<SmallVector<const Event *>> byKey;
    SmallVector<Value> ambiguous;
    for (const Event &e : events) {
      if (e.context != ctx)
        continue;
      auto it = llvm::find_if(byKey, [&](auto &group) {
        return group.front()->key.sameAs(e.key);
      });
      if (it != byKey.end()) {
        it->push_back(&e);
        continue;
      }
      for (auto &group : byKey)
        if (!group.front()->key.differentFrom(e.key))
          ambiguous.push_back(e.key.root);
      byKey.push_back({&e});
    }
    for (auto &group : byKey)
      if (!llvm::is_contained(ambiguous, group.front()->key.root))
        fn(ctx, ArrayRef<const Event *>(group));
  }
}

void Counter::checkArrivals() {
  forEachBarrier(arrivals, [&](Operation *ctx, ArrayRef<const Event *> group) {
    const BarrierKey &key = group.front()->key;
    std::optional<int64_t> count = initCount(key);
    if (!count || *count < 1 || !closedWorld(key.root))
      return;
    int64_t ranks = model.ranks();
    PerRank total(ranks, 0);
    for (const Event *e : group) {
      std::optional<PerRank> amounts = perRank(*e);
      if (!amounts)
        return;
      for (int64_t r = 0; r < ranks; ++r)
        total[r] += (*amounts)[r];
      for (int64_t r = 0; r < ranks; ++r) {
        if ((*amounts)[r] > *count) {
          // Harmless at run time only if nothing ever waits on the group.
          std::string where = model.clusterDeclared()
                                  ? " of CTA " + std::to_string(r)
                                  : std::string();
          out.report(e->op, waited(key.root) ? Severity::Error
                                             : Severity::Warning, 3)
              << "arrives " << (*amounts)[r] << " times on a barrier" << where
              << " initialized with arrival count " << *count
              << ": the threads that execute it complete the phase and "
                 "arrive again on the next one (more arrivals per phase "
                 "than the count)";
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
        if (set && model.hasRank(*set, r))
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
            out.report(w, Severity::Error, 4)
                << "waits for a phase that never completes: the barrier"
                << where << rankText(r) << " receives " << total[r]
                << " arrival(s) in the whole kernel but is initialized with "
                   "arrival count "
                << *count;
      return;
    }
    for (int64_t r = 0; r < ranks; ++r) {
      if (total[r] == 0 || total[r] % *count == 0 || !waitsIn(r, true, false))
        continue;
      if (total[r] > *count)
        out.report(group.front()->op, Severity::Warning, 3)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", initialized with arrival count " << *count
            << ": more arrivals per phase than the count, so the phases "
               "drift from the trips";
      else
        out.report(group.front()->op, Severity::Warning, 4)
            << "each trip of the loop makes " << total[r]
            << " arrival(s) on the barrier" << where << rankText(r)
            << ", initialized with arrival count " << *count
            << ": fewer arrivals than the count, so a phase needs several "
               "trips (or never completes)";
      break;
    }
  });
}

/// Whether `loop` (an scf.for) has constant bounds and at most one trip.
bool atMostOneTrip(Operation *loop) {
  std::optional<int64_t> lb = constantOf(loop->getOperand(0));
  std::optional<int64_t> ub = constantOf(loop->getOperand(1));
  std::optional<int64_t> step = constantOf(loop->getOperand(2));
  int64_t span;
  return lb && ub && step && *step > 0 &&
         (*ub <= *lb || (!llvm::SubOverflow(*ub, *lb, span) && span <= *step));
}

/// Whether `v` is the same in every trip of `loop`: defined outside it, or
/// computed in it by ops without side effects from such values (not from the
/// induction variable, an iter_arg or any other block argument inside the
/// loop). `work` bounds the ops looked at (a value unknown past it is not
/// invariant).
bool invariantIn(Value v, Operation *loop, unsigned *work = nullptr) {
  unsigned ops = 0;
  if (!work)
    work = &ops;
  if (constantOf(v))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return !loop->isAncestor(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (!loop->isAncestor(def))
    return true;
  // A clock or an elected lane can change from trip to trip.
  StringRef name = def->getName().getStringRef();
  if (++*work > 64 || def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      name.contains("clock") || name.contains("timer") ||
      name == "nvvm.elect.sync")
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return invariantIn(operand, loop, work);
  });
}

void Counter::checkParity() {
  for (Operation *w : waits) {
    auto wait = dyn_cast<WaitOp>(w);
    if (!wait)
      continue;
    Operation *loop = nullptr;
    for (Operation *p = w->getParentOp(); p && p != fn; p = p->getParentOp())
      if (isForLoop(p)) {
        loop = p;
        break;
      }
    if (!loop || !invariantIn(wait.getPhase(), loop) ||
        !invariantIn(wait.getIndex(), loop))
      continue;
    BarrierKey key = *barrierOf(w);
    // A loop of at most one trip has no second trip; a barrier initialized
    // again in the loop (Triton's per-trip init, wait(0), inval) starts
    // every trip at phase 0.
    if (atMostOneTrip(loop) || llvm::any_of(inits, [&](InitOp init) {
          BarrierKey k = *barrierOf(init);
          return loop->isAncestor(init) && k.root == key.root &&
                 !k.differentFrom(key);
        }))
      continue;
    std::optional<int64_t> count = initCount(key);
    // Arrivals on this barrier inside the loop (at any depth).
    SmallVector<const Event *> inLoop;
    bool inAnyLoop = false;
    for (const Event &e : arrivals) {
      if (e.key.root != key.root || e.key.differentFrom(key))
        continue;
      if (loop->isAncestor(e.op))
        inLoop.push_back(&e);
      else if (e.context != fn.getOperation())
        inAnyLoop = true;
    }
    if (inLoop.empty() && !inAnyLoop)
      continue;
    // Phases per trip, where every arrival is counted in the loop's own
    // body and divides evenly.
    std::optional<int64_t> phases;
    const ExecSet &waiters = model.execSet(w);
    if (!inLoop.empty() && count && *count > 0 && closedWorldOnce(key.root) &&
        waiters && !inAnyLoop) {
      PerRank total(model.ranks(), 0);
      bool known = true;
      for (const Event *e : inLoop) {
        const std::optional<PerRank> &amounts = perRankOnce(*e);
        if (!amounts || e->context != loop || !e->key.sameAs(key)) {
          known = false;
          break;
        }
        for (int64_t r = 0; r < model.ranks(); ++r)
          total[r] += (*amounts)[r];
      }
      for (int64_t r = 0; known && r < model.ranks(); ++r) {
        if (!model.hasRank(*waiters, r))
          continue;
        if (total[r] % *count != 0 || (phases && *phases != total[r] / *count)) {
          known = false;
          break;
        }
        phases = total[r] / *count;
      }
      if (!known)
        phases.reset();
    }
    if (phases && *phases % 2 == 0)
      continue; // an even number of phases per trip: the parity repeats
    if (phases && *phases % 2 == 1)
      out.report(w, Severity::Error, 5)
          << "waits on the same barrier and parity in every trip of the "
             "loop, but the barrier's phases advance by an odd number per "
             "trip: from the second trip on the wait can return at once, "
             "for a phase that completed earlier (carry the parity in an "
             "iter_arg and flip it each phase)";
    else
      out.report(w, Severity::Warning, 5)
          << "waits on the same barrier and parity in every trip of the "
             "loop, but the barrier's phases advance while the loop runs: "
             "from the second trip on the wait can return at once, for a "
             "phase that completed earlier (carry the parity in an iter_arg "
             "and flip it each phase)";
  }
}

/// Whether something in `loop` can make a trip wait for other threads: an
/// mbarrier wait or test, a CTA or cluster barrier, a call, inline PTX that
/// synchronizes.
bool synchronizesIn(Operation *loop) {
  return loop
      ->walk([](Operation *op) {
        bool sync = isa<WaitOp, TryWaitOp, TestWaitOp, CallOpInterface>(op) ||
                    isCTABarrier(op) || isClusterWait(op);
        if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
          StringRef ptx = asmOp.getAsmString();
          sync = ptx.contains("bar.sync") || ptx.contains("barrier.sync") ||
                 ptx.contains("barrier.cluster.wait") || ptx.contains("wait") ||
                 ptx.contains("bar.red");
        }
        return sync ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a loop can take more trips than the barriers `key`'s index
/// ranges over (a ring of stages): its index's range is known, and the
/// loop's trip count is not a constant within it.
bool lapsRing(const BarrierKey &key, Operation *loop) {
  if (!key.range || loop->getName().getStringRef() != "scf.for" ||
      loop->getNumOperands() < 3)
    return false;
  int64_t stages = key.range->second - key.range->first;
  std::optional<int64_t> lb = constantOf(loop->getOperand(0));
  std::optional<int64_t> ub = constantOf(loop->getOperand(1));
  std::optional<int64_t> step = constantOf(loop->getOperand(2));
  if (!lb || !ub || !step || *step < 1)
    return stages >= 1; // a trip count known at run time only
  std::optional<int64_t> span = llvm::checkedSub(*ub, *lb);
  if (!span)
    return stages >= 1;
  return stages >= 1 && *span > 0 && (*span - 1) / *step + 1 > stages;
}

void Counter::checkRunAhead() {
  llvm::DenseMap<Operation *, bool> synchronizes; // per loop
  for (const Event &e : arrivals) {
    Operation *loop = e.context;
    if (loop == fn.getOperation() || isa<Tcgen05CommitOp>(e.op))
      continue;
    // The same barrier every trip, or the stages of a ring the loop laps.
    bool ring = !invariantIn(e.key.index, loop);
    if (ring && !lapsRing(e.key, loop))
      continue;
    auto [sync, inserted] = synchronizes.try_emplace(loop, false);
    if (inserted)
      sync->second = synchronizesIn(loop);
    if (sync->second)
      continue;
    // Someone waits on the barrier phase after phase.
    bool waitedInLoop = llvm::any_of(waits, [&](Operation *w) {
      return isa<WaitOp, TryWaitOp>(w) && barrierOf(w)->root == e.key.root &&
             !barrierOf(w)->differentFrom(e.key) &&
             contextOf(w, fn) != fn.getOperation();
    });
    if (!waitedInLoop)
      continue;
    if (ring) {
      out.report(e.op, Severity::Warning, 50)
          << "arrives on the stages of a ring in every trip of a loop that "
             "never waits, and the loop can take more trips than the ring "
             "has stages: nothing keeps it from lapping the threads that "
             "wait on these barriers and reusing a stage they have not "
             "released (wait on the stage's empty barrier before reusing "
             "it)";
      continue;
    }
    out.report(e.op, Severity::Warning, 50)
        << "arrives on the barrier in every trip of a loop that never waits: "
           "nothing keeps it from running two or more phases ahead of the "
           "threads that wait on the barrier, whose parity then aliases (give "
           "the loop a back-pressure barrier to wait on)";
  }
}

void Counter::checkBytes() {
  // Only barriers whose transaction bytes all come and go in one context.
  forEachBarrier(bytes, [&](Operation *ctx, ArrayRef<const Event *> group) {
    const BarrierKey &key = group.front()->key;
    if (llvm::is_contained(openTx, key.root) || !closedWorld(key.root))
      return;
    auto other = [&](const Event &e) {
      return e.key.root == key.root && e.context != ctx;
    };
    if (llvm::any_of(bytes, other) || llvm::any_of(copies, other))
      return;
    SmallVector<const Event *> landing;
    for (const Event &c : copies) {
      if (c.key.root != key.root)
        continue;
      if (!c.key.sameAs(key)) {
        if (!c.key.differentFrom(key))
          return; // may alias
        continue;
      }
      landing.push_back(&c);
    }
    int64_t ranks = model.ranks();
    PerRank expected(ranks, 0), brought(ranks, 0);
    for (const Event *e : group) {
      std::optional<PerRank> amounts = perRank(*e);
      if (!amounts)
        return;
      for (int64_t r = 0; r < ranks; ++r)
        expected[r] += (*amounts)[r];
    }
    for (const Event *c : landing) {
      std::optional<PerRank> amounts = perRank(*c);
      if (!amounts)
        return;
      for (int64_t r = 0; r < ranks; ++r)
        brought[r] += (*amounts)[r];
    }
    for (int64_t r = 0; r < ranks; ++r) {
      if (expected[r] == brought[r])
        continue;
      Severity severity = waited(key.root) ? Severity::Error : Severity::Warning;
      std::string where = model.clusterDeclared()
                              ? " of CTA " + std::to_string(r)
                              : std::string();
      if (expected[r] > brought[r])
        out.report(group.front()->op, severity, 6)
            << "expects " << expected[r] << " transaction bytes on the barrier"
            << where << ", but the bulk copies that complete on it bring "
            << brought[r] << " bytes: the phase never completes";
      else
        out.report(group.front()->op, severity, 6)
            << "expects " << expected[r] << " transaction bytes on the barrier"
            << where << ", but the bulk copies that complete on it bring "
            << brought[r]
            << " bytes: the phase can complete before all the data has landed";
      return;
    }
  });
}

void Counter::run() {
  collect();
  if (model.countable()) {
    checkArrivals();
    checkBytes();
  }
  checkParity();
  checkRunAhead();
}

} // namespace

void checksync::checkCounts(FunctionOpInterface fn, SPMDModel &model,
                            Reporter &out) {
  Counter(fn, model, out).run();
}
