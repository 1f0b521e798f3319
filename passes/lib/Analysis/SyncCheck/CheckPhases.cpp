//===- CheckPhases.cpp - parities and phases across trips (class 5) ------===//
//
// The counting's phases across loop trips (docs/checker.md, class 5):
//
// - a wait in an scf.for whose barrier and parity do not change from trip
//   to trip, on a barrier that the loop arrives on: an odd number of
//   phases per trip is an error, an unknown number a warning;
// - a wait after an scf.for of a constant trip count whose trips complete
//   an odd number of phases in all, with the parity the barrier had before
//   the loop (an error: it waits for a phase that has completed, or for one
//   that never does);
// - a loop that arrives on one barrier every trip but never waits (no
//   back-pressure), while others wait on it in a loop: it can run two
//   phases ahead of them (warning); the same for a ring it can lap;
// - a startup deadlock (checkStartupDeadlock): a producer's first wait on
//   its empty barriers with parity 0 (no phase offset: the fresh barrier's
//   phase 0 is still pending), whose every arrival comes after a consumer's
//   first wait on the full barriers, whose every arrival comes after that
//   producer wait (an error).
//
//===----------------------------------------------------------------------===//
#include "Counter.h"
#include "NamedBarriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::counting;
using Severity = Reporter::Severity;

bool counting::atMostOneTrip(Operation *loop) {
  std::optional<int64_t> lb = constantOf(loop->getOperand(0));
  std::optional<int64_t> ub = constantOf(loop->getOperand(1));
  std::optional<int64_t> step = constantOf(loop->getOperand(2));
  int64_t span;
  return lb && ub && step && *step > 0 &&
         (*ub <= *lb || (!llvm::SubOverflow(*ub, *lb, span) && span <= *step));
}

std::optional<int64_t> counting::constantTrips(Operation *loop) {
  if (!isForLoop(loop) || loop->getNumOperands() < 3)
    return std::nullopt;
  std::optional<int64_t> lb = constantOf(loop->getOperand(0));
  std::optional<int64_t> ub = constantOf(loop->getOperand(1));
  std::optional<int64_t> step = constantOf(loop->getOperand(2));
  if (!lb || !ub || !step || *step < 1)
    return std::nullopt;
  if (*ub <= *lb)
    return 0;
  std::optional<int64_t> span = llvm::checkedSub(*ub, *lb);
  if (!span)
    return std::nullopt;
  return (*span - 1) / *step + 1;
}

int64_t Counter::waitsPerTrip(const BarrierKey &key, Operation *ctx,
                              int64_t rank) {
  int64_t n = 0;
  for (Operation *w : waits) {
    BarrierKey k = *barrierOf(w);
    if (k.root != key.root || k.differentFrom(key) || !ctx->isAncestor(w))
      continue;
    if (!k.sameAs(key) || contextOf(w, fn) != ctx)
      return -1;
    const ExecSet &set = model.execSet(w);
    if (!set)
      return -1;
    if (isa<WaitOp>(w) && model.hasRank(*set, rank))
      ++n;
  }
  return n;
}

/// Whether `v` is the same in every trip of `loop`: defined outside it, or
/// computed in it by ops without side effects from such values (not from the
/// induction variable, an iter_arg or any other block argument inside the
/// loop). `work` bounds the ops looked at (a value unknown past it is not
/// invariant).
static bool invariantIn(Value v, Operation *loop, unsigned *work = nullptr) {
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
  if (++*work > 64 || def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      readsClock(def) || isElectSync(def))
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
    if (!loop || !invariantIn(wait.getPhase(), loop))
      continue;
    BarrierKey key = *barrierOf(w);
    if (!invariantIn(wait.getIndex(), loop)) {
      checkRingParity(wait, key, loop);
      continue;
    }
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
      out.report(w, Severity::Error, kParitySlot)
          << "waits on the same barrier and parity in every trip of the "
             "loop, but the barrier's phases advance by an odd number per "
             "trip: from the second trip on the wait can return at once, "
             "for a phase that completed earlier (carry the parity in an "
             "iter_arg and flip it each phase)";
    else
      out.report(w, Severity::Warning, kParitySlot)
          << "waits on the same barrier and parity in every trip of the "
             "loop, but the barrier's phases advance while the loop runs: "
             "from the second trip on the wait can return at once, for a "
             "phase that completed earlier (carry the parity in an iter_arg "
             "and flip it each phase)";
  }
}

static bool lapsRing(const BarrierKey &key, Operation *loop);

/// The same parity in every trip on the stages of a ring the loop laps (an
/// index whose range is known, of at least two stages, and more trips than
/// stages): each stage's barrier completes a phase per lap, so from the
/// second lap on the wait on a stage returns at once, for the phase of the
/// lap before (ThunderKittens' bitfield update forgotten). A warning: the
/// data may have landed anyway.
void Counter::checkRingParity(WaitOp wait, const BarrierKey &key,
                              Operation *loop) {
  if (!key.range || key.range->second - key.range->first < 2 ||
      !lapsRing(key, loop) || !closedWorldOnce(key.root))
    return;
  if (llvm::any_of(inits, [&](InitOp init) {
        return loop->isAncestor(init) && barrierOf(init)->root == key.root;
      }))
    return;
  bool arrivedInLoop = llvm::any_of(arrivals, [&](const Event &e) {
    return e.key.root == key.root && !e.key.differentFrom(key) &&
           e.context != fn.getOperation();
  });
  if (!arrivedInLoop)
    return;
  out.report(wait, Severity::Warning, kParitySlot)
      << "waits on the stages of a ring of "
      << key.range->second - key.range->first
      << " with the same parity in every trip of a loop that can take more "
         "trips than the ring has stages: each stage's barrier completes a "
         "phase per lap, so from the second lap on the wait returns at once, "
         "for the phase of the lap before (flip the parity once per lap: "
         "(trip / stages) & 1)";
}

/// Whether something in `loop` can make a trip wait for other threads: an
/// mbarrier wait or test, a CTA or cluster barrier, a named barrier's
/// bar.sync / bar.red (FA3's producer, throttled by the consumers'
/// bar.arrive on QueryEmpty), a call, inline PTX that synchronizes.
static bool synchronizesIn(Operation *loop) {
  return loop
      ->walk([](Operation *op) {
        std::optional<NamedBarrierOpInfo> named = namedBarrierOpOf(op);
        bool sync = isa<MBarrierWaitOpInterface, CallOpInterface>(op) ||
                    isCTABarrier(op) || isClusterWait(op) ||
                    (named && named->waits);
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
static bool lapsRing(const BarrierKey &key, Operation *loop) {
  if (!key.range || !isForLoop(loop) ||
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
      out.report(e.op, Severity::Warning, kNoBackPressureSlot)
          << "arrives on the stages of a ring in every trip of a loop that "
             "never waits, and the loop can take more trips than the ring "
             "has stages: nothing keeps it from lapping the threads that "
             "wait on these barriers and reusing a stage they have not "
             "released (wait on the stage's empty barrier before reusing "
             "it)";
      continue;
    }
    out.report(e.op, Severity::Warning, kNoBackPressureSlot)
        << "arrives on the barrier in every trip of a loop that never waits: "
           "nothing keeps it from running two or more phases ahead of the "
           "threads that wait on the barrier, whose parity then aliases (give "
           "the loop a back-pressure barrier to wait on)";
  }
}


void Counter::checkParityAfterLoop() {
  if (!model.countable())
    return;
  llvm::DenseMap<Operation *, unsigned> order;
  auto orderOf = [&](Operation *op) {
    if (order.empty())
      fn->walk<WalkOrder::PreOrder>(
          [&](Operation *o) { order.try_emplace(o, order.size()); });
    return order.lookup(op);
  };
  for (Operation *w : waits) {
    auto wait = dyn_cast<WaitOp>(w);
    if (!wait || contextOf(w, fn) != fn.getOperation())
      continue;
    std::optional<int64_t> phase = constantOf(wait.getPhase());
    BarrierKey key = *barrierOf(w);
    std::optional<int64_t> count = initCount(key);
    const ExecSet &waiters = model.execSet(w);
    if (!phase || !count || *count < 1 || !waiters ||
        !closedWorldOnce(key.root))
      continue;
    int64_t parity = (*phase ^ wait.getPhaseOffset()) & 1;
    // The arrivals on the barrier: straight-line code, and the body of one
    // scf.for before the wait; no init of it in a loop or after the loop.
    Operation *loop = nullptr;
    bool known = true;
    for (const Event &e : arrivals) {
      if (e.key.root != key.root || e.key.differentFrom(key))
        continue;
      if (!e.key.sameAs(key)) {
        known = false;
        break;
      }
      if (e.context == fn.getOperation())
        continue;
      if ((loop && e.context != loop) || contextOf(e.context, fn) != fn.getOperation()) {
        known = false;
        break;
      }
      loop = e.context;
    }
    std::optional<int64_t> trips = loop ? constantTrips(loop) : std::nullopt;
    if (!known || !trips || *trips < 1 || loop->isAncestor(w) ||
        orderOf(w) < orderOf(loop))
      continue;
    if (llvm::any_of(inits, [&](InitOp init) {
          BarrierKey k = *barrierOf(init);
          return k.root == key.root && !k.differentFrom(key) &&
                 (contextOf(init, fn) != fn.getOperation() ||
                  orderOf(init) > orderOf(loop));
        }))
      continue;
    // The other straight-line waits on the barrier after the loop: this one
    // only. Waits in another loop (the consumer's own loop, once per trip of
    // the producer's) observe the loop's phases and do not move them.
    if (llvm::any_of(waits, [&](Operation *o) {
          return o != w && barrierOf(o)->root == key.root &&
                 !barrierOf(o)->differentFrom(key) &&
                 orderOf(o) > orderOf(loop) && !loop->isAncestor(o) &&
                 contextOf(o, fn) == fn.getOperation();
        }))
      continue;
    // Per waiting CTA: the phases before the loop, per trip, and after it
    // (exactly one: the phase this wait is for).
    std::optional<int64_t> before, perTrip;
    for (int64_t r = 0; known && r < model.ranks(); ++r) {
      if (!model.hasRank(*waiters, r))
        continue;
      int64_t pre = 0, inLoop = 0, post = 0;
      for (const Event &e : arrivals) {
        if (e.key.root != key.root || e.key.differentFrom(key))
          continue;
        const std::optional<PerRank> &amounts = perRankOnce(e);
        if (!amounts) {
          known = false;
          break;
        }
        int64_t a = (*amounts)[r];
        if (e.context == loop)
          inLoop += a;
        else if (orderOf(e.op) < orderOf(loop))
          pre += a;
        else
          post += a;
      }
      if (!known || pre % *count || inLoop % *count || post != *count ||
          (before && *before != pre / *count) ||
          (perTrip && *perTrip != inLoop / *count)) {
        known = false;
        break;
      }
      before = pre / *count;
      perTrip = inLoop / *count;
    }
    if (!known || !before || !perTrip)
      continue;
    std::optional<int64_t> phases = llvm::checkedMul(*trips, *perTrip);
    if (!phases || (*phases & 1) == 0)
      continue; // an even number: the parity of before is right
    int64_t inLoopPhases = *phases;
    int64_t expected = (*before + 1) & 1;
    if (parity == expected)
      continue;
    out.report(w, Severity::Error, kParityAfterLoopSlot)
        << "waits with parity " << parity << " after a loop of " << *trips
        << " trip(s) that completes " << inLoopPhases
        << " phase(s) of the barrier, an odd number: the phase this wait is "
           "for has parity "
        << expected
        << ", so it returns for a phase that completed in the loop (or, "
           "once that phase has completed, waits for one that never does); "
           "flip the parity once per phase the loop completes";
  }
}

//===----------------------------------------------------------------------===//
// Startup deadlock
//===----------------------------------------------------------------------===//

/// The value of `v` in the first trip of every loop around it: an induction
/// variable is its lower bound, an iter_arg its initial value (an
/// scf.while's: its initial value, through its scf.condition); none where
/// it depends on anything else (a thread id, a load, a kernel parameter).
static std::optional<int64_t> firstTripValue(Value v, unsigned depth = 0) {
  if (depth > 32)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(v))
    return c;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *loop = arg.getOwner()->getParentOp();
    if (loop && isWhileLoop(loop)) {
      // The first trip: the before region's arguments are the initial
      // values, the after region's what its scf.condition forwards.
      Region *region = arg.getOwner()->getParent();
      if (region->getRegionNumber() == 0)
        return arg.getArgNumber() < loop->getNumOperands()
                   ? firstTripValue(loop->getOperand(arg.getArgNumber()),
                                    depth + 1)
                   : std::nullopt;
      Operation *cond = loop->getRegion(0).front().getTerminator();
      unsigned forwarded = arg.getArgNumber() + 1; // after the condition
      return forwarded < cond->getNumOperands()
                 ? firstTripValue(cond->getOperand(forwarded), depth + 1)
                 : std::nullopt;
    }
    if (!loop || !isForLoop(loop) || loop->getNumOperands() < 3)
      return std::nullopt;
    if (arg.getArgNumber() == 0)
      return firstTripValue(loop->getOperand(0), depth + 1);
    unsigned init = 3 + arg.getArgNumber() - 1;
    if (init >= loop->getNumOperands())
      return std::nullopt;
    return firstTripValue(loop->getOperand(init), depth + 1);
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1 || !isMemoryEffectFree(def) ||
      def->getNumRegions() != 0)
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return i < def->getNumOperands()
               ? firstTripValue(def->getOperand(i), depth + 1)
               : std::nullopt;
  };
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp, arith::TruncIOp>(def))
    return operand(0);
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<int64_t> c = operand(0);
    return c ? operand(*c ? 1 : 2) : std::nullopt;
  }
  std::optional<int64_t> a = operand(0), b = operand(1);
  if (!a || !b || *a < 0 || *b < 0)
    return std::nullopt; // the non-negative values of a first trip only
  if (isa<arith::AddIOp>(def))
    return llvm::checkedAdd(*a, *b);
  if (isa<arith::SubIOp>(def))
    return *a >= *b ? std::optional<int64_t>(*a - *b) : std::nullopt;
  if (isa<arith::MulIOp>(def))
    return llvm::checkedMul(*a, *b);
  if (isa<arith::DivUIOp, arith::DivSIOp>(def))
    return *b ? std::optional<int64_t>(*a / *b) : std::nullopt;
  if (isa<arith::RemUIOp, arith::RemSIOp>(def))
    return *b ? std::optional<int64_t>(*a % *b) : std::nullopt;
  if (isa<arith::AndIOp>(def))
    return *a & *b;
  if (isa<arith::OrIOp>(def))
    return *a | *b;
  if (isa<arith::XOrIOp>(def))
    return *a ^ *b;
  if (isa<arith::ShRUIOp>(def))
    return *b < 63 ? std::optional<int64_t>(*a >> *b) : std::nullopt;
  return std::nullopt;
}

/// The parity a wait waits for in the first trip of the loops around it
/// (the phase operand xor the phase offset), if it evaluates.
static std::optional<int64_t> firstTripParity(WaitOp wait) {
  std::optional<int64_t> phase = firstTripValue(wait.getPhase());
  if (!phase)
    return std::nullopt;
  return (*phase ^ wait.getPhaseOffset()) & 1;
}

/// Whether every thread that executes `op` has executed `wait` before it
/// in the same trip: `wait` lies in a block around `op`, before it.
static bool precededBy(Operation *op, Operation *wait) {
  Block *block = wait->getBlock();
  Operation *inBlock = block->findAncestorOpInBlock(*op);
  return inBlock && inBlock != wait && wait->isBeforeInBlock(inBlock);
}

/// The innermost scf.for around `op`.
static Operation *forLoopOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isForLoop(p))
      return p;
    else if (isa<FunctionOpInterface>(p))
      break;
  return nullptr;
}

/// Whether every launch reaches `op`: each region around it is entered (a
/// taken branch, an scf.for that does not have zero trips: a run-time trip
/// count is taken to be at least one).
static bool reachedInEveryLaunch(Operation *op, Operation *fn,
                                 SPMDModel &model) {
  for (Operation *child = op, *parent = op->getParentOp(); parent != fn;
       child = parent, parent = parent->getParentOp()) {
    if (!parent)
      return false;
    if (isIfOp(parent)) {
      const ExecSet &set = model.regionSet(child->getParentRegion());
      if (!set || !set->any())
        return false;
    } else if (isForLoop(parent)) {
      std::optional<int64_t> trips = constantTrips(parent);
      if (trips && *trips == 0)
        return false;
    } else if (!isWhileLoop(parent) && !isExecuteRegion(parent)) {
      return false; // a persistent scf.while: at least one trip somewhere
    }
  }
  return true;
}

void Counter::checkStartupDeadlock() {
  if (!model.countable())
    return;
  // Whether every arrival on the group `root` (by any thread, on any of its
  // barriers) comes after `wait` in the same trip of `wait`'s loop.
  auto arrivalsAfter = [&](Value root, Operation *wait) {
    bool any = false;
    for (const Event &e : arrivals) {
      if (e.key.root != root)
        continue;
      if (!precededBy(e.op, wait))
        return false;
      any = true;
    }
    return any;
  };
  auto firstWait = [&](Operation *w) -> std::optional<Value> {
    auto wait = dyn_cast<WaitOp>(w);
    if (!wait || !forLoopOf(w) || !reachedInEveryLaunch(w, fn, model))
      return std::nullopt;
    std::optional<int64_t> parity = firstTripParity(wait);
    BarrierKey key = *barrierOf(w);
    if (!parity || *parity != 0 || !closedWorldOnce(key.root) ||
        !initCount(key) || *initCount(key) < 1)
      return std::nullopt;
    // Fresh in the first trip: not initialized again in a loop around the
    // wait (a ring initialized in a loop of its own is fine).
    if (llvm::any_of(inits, [&](InitOp init) {
          if (barrierOf(init)->root != key.root)
            return false;
          for (Operation *p = init->getParentOp(); p && p != fn;
               p = p->getParentOp())
            if (isLoop(p) && p->isAncestor(w))
              return true;
          return false;
        }))
      return std::nullopt;
    return key.root;
  };
  // Two first-trip waits for phase 0 (the producer's on the empty
  // barriers, the consumer's on the full ones) where every arrival on each
  // group follows the other wait: no arrival can come first. Reported once,
  // at the first of the two in program order.
  SmallVector<std::pair<Operation *, Value>> candidates;
  for (Operation *w : waits)
    if (std::optional<Value> root = firstWait(w))
      candidates.push_back({w, *root});
  for (size_t i = 0; i < candidates.size(); ++i) {
    auto [a, rootA] = candidates[i];
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      auto [b, rootB] = candidates[j];
      if (rootA == rootB || !arrivalsAfter(rootA, b) ||
          !arrivalsAfter(rootB, a))
        continue;
      out.report(a, Severity::Error, kStartupDeadlockSlot)
          << "waits for phase 0 of a fresh barrier in the first trip "
             "(parity 0), and every arrival on it comes after another "
             "first-trip wait for phase 0, on a barrier whose every arrival "
             "comes after this wait: neither phase can complete, and every "
             "launch deadlocks at start-up (the barrier that starts "
             "released, the empty barrier of a ring, is waited on with the "
             "producer's phase offset: parity 1 in the first round, "
             "phase_offset=1 in lang)";
      out.note(a, kStartupDeadlockSlot, b->getLoc(), "the other wait of the hand-off");
      break;
    }
  }
}
