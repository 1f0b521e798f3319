//===- CheckRingCounters.cpp - ring counters across tiles (class 5) -------===//
//
// The accesses of one ring of mbarriers (a group whose index ranges over M
// >= 2 stages: `counter mod M`, a pipe's stage) take their stage, and with
// it their parity, from a counter: the induction variable of a loop, or a
// value carried through loops. Where that counter *restarts* tells the
// sequence of (stage, phase) it walks: an induction variable restarts at
// every entry of its loop, a carried value at every entry of the loop it
// enters with a start that depends on no loop (a constant, a fresh
// `mbarrier.pipe.start`), and a carried value that enters from an enclosing
// loop's carried value, which that loop carries on from trip to trip, is
// followed outwards. The *depth* of a restart is the number of enclosing
// loops that can take several trips.
//
// Two accesses of one ring whose counters restart at different depths (the
// producer's counter carried across the tile loop, the consumer's k-loop
// index restarted per tile: Triton's grouped GEMM with the consumer's
// counter per tile, FA3 with a pipe read state declared inside the tile
// loop) walk the same (stage, phase) sequence in the first trip of the
// enclosing loop only: after a trip whose steps are not a multiple of 2 x M
// the one side waits on another stage, or for another phase, than the
// other fills (a stale phase passes at once, or a wait for a phase that
// never comes). Some launches fail (a CTA with one tile, or steps that are
// multiples of 2 x M, are right): a warning, at the restart (the fresh
// state's op; a carried value started from outside the enclosing loop, the
// restarted loop, whose iter_args bind the start; else the access). Silent where a counter is not one loop
// value (two loop values, a loop's result, a load), where the ring is
// initialized or invalidated in a loop (reset per tile), or where the
// restarted loop's trips are a constant multiple of 2 x M.
//
//===----------------------------------------------------------------------===//
#include "Counter.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

constexpr unsigned kMaxHops = 48;

/// The loop block argument `v` depends on (through ops without regions or
/// side effects); `bad` where it depends on two, on a loop's result, on a
/// load or on another region's argument.
void loopArgOf(Value v, BlockArgument &root, bool &bad, unsigned depth = 0) {
  if (bad || depth > kMaxHops) {
    bad = true;
    return;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (!owner || isa<FunctionOpInterface>(owner))
      return; // a kernel parameter: the same in every trip
    if (!isForLoop(owner) && !isWhileLoop(owner)) {
      bad = true;
      return;
    }
    if (root && root != arg)
      bad = true;
    root = arg;
    return;
  }
  if (constantOf(v))
    return;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isMemoryEffectFree(def)) {
    bad = true;
    return;
  }
  for (Value operand : def->getOperands())
    loopArgOf(operand, root, bad, depth + 1);
}

/// Whether `v` is the same at every entry of a loop it starts: it depends
/// on no loop value.
bool loopFree(Value v) {
  BlockArgument root;
  bool bad = false;
  loopArgOf(v, root, bad);
  return !bad && !root;
}

/// The loops around `op` that can take more than one trip.
int64_t loopDepth(Operation *op) {
  int64_t n = 0;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isLoop(p)) {
      std::optional<int64_t> trips = counting::constantTrips(p);
      n += !trips || *trips > 1;
    }
  return n;
}

/// A loop's carried value number `i`: its start, the value its body yields
/// for the next trip, and the loop's result that holds its last value
/// (scf.for: iter_arg i; scf.while: the `before` region's argument i, the
/// result whose condition operand it is).
struct Carried {
  Value init, next, result;
};
std::optional<Carried> carried(Operation *loop, unsigned i) {
  if (isForLoop(loop)) {
    if (loop->getNumOperands() <= 3 + i)
      return std::nullopt;
    Block &body = loop->getRegion(0).front();
    return Carried{loop->getOperand(3 + i),
                   body.getTerminator()->getOperand(i), loop->getResult(i)};
  }
  if (!isWhileLoop(loop) || loop->getNumOperands() <= i)
    return std::nullopt;
  Block &before = loop->getRegion(0).front();
  Block &after = loop->getRegion(1).front();
  Operation *condition = before.getTerminator();
  Value result;
  for (unsigned r = 1; r < condition->getNumOperands(); ++r)
    if (condition->getOperand(r) == before.getArgument(i)) {
      if (result)
        return std::nullopt;
      result = loop->getResult(r - 1);
    }
  if (!result)
    return std::nullopt;
  return Carried{loop->getOperand(i), after.getTerminator()->getOperand(i),
                 result};
}

/// A loop argument as a carried value's number (-1: an induction
/// variable; nullopt: an `after` argument that is not a carried value).
std::optional<int64_t> carriedNumber(BlockArgument arg) {
  Operation *loop = arg.getOwner()->getParentOp();
  if (isForLoop(loop))
    return static_cast<int64_t>(arg.getArgNumber()) - 1;
  if (arg.getOwner() == &loop->getRegion(0).front())
    return arg.getArgNumber();
  Operation *condition = loop->getRegion(0).front().getTerminator();
  Value passed = condition->getOperand(arg.getArgNumber() + 1);
  auto before = dyn_cast<BlockArgument>(passed);
  if (!before || before.getOwner() != &loop->getRegion(0).front())
    return std::nullopt;
  return before.getArgNumber();
}

/// Where a counter restarts: the loop whose entry resets it, the op that
/// gives it its start (null: the loop's lower bound, or a start defined by
/// no op), the loop's depth, and whether the counter is a carried value
/// (the loop's iter_args bind its start) rather than an induction variable.
struct Restart {
  Operation *loop = nullptr;
  Operation *start = nullptr;
  int64_t depth = 0;
  bool carried = false;
};

std::optional<Restart> restartOf(BlockArgument arg, unsigned hops = 0) {
  if (hops > kMaxHops)
    return std::nullopt;
  Operation *loop = arg.getOwner()->getParentOp();
  std::optional<int64_t> number = carriedNumber(arg);
  if (!number)
    return std::nullopt;
  if (*number < 0) // an induction variable: restarts at its lower bound
    return loopFree(loop->getOperand(0))
               ? std::optional<Restart>(Restart{loop, nullptr, loopDepth(loop)})
               : std::nullopt;
  std::optional<Carried> value = carried(loop, *number);
  if (!value)
    return std::nullopt;
  if (auto outer = dyn_cast<BlockArgument>(value->init)) {
    Operation *owner = outer.getOwner()->getParentOp();
    if (owner && (isForLoop(owner) || isWhileLoop(owner))) {
      // Carried on by the enclosing loop only where it yields this loop's
      // last value for its next trip.
      std::optional<int64_t> j = carriedNumber(outer);
      if (!j || *j < 0)
        return std::nullopt;
      std::optional<Carried> across = carried(owner, *j);
      if (!across || across->next != value->result)
        return std::nullopt;
      return restartOf(outer, hops + 1);
    }
  }
  if (!loopFree(value->init))
    return std::nullopt;
  return Restart{loop, value->init.getDefiningOp(), loopDepth(loop), true};
}

struct Access {
  Operation *op;
  Restart restart;
  int64_t stages;
};

/// Whether the group `root` is initialized or invalidated inside a loop
/// around one of its `accesses` (a ring reset per tile; not the loop over
/// the stages that initializes them once).
bool resetInLoop(FunctionOpInterface fn, Value root,
                 ArrayRef<Access> accesses) {
  bool reset = false;
  fn->walk([&](Operation *op) {
    if (!isa<InitOp, InvalOp>(op))
      return;
    std::optional<BarrierKey> key = barrierOf(op);
    if (!key || key->root != root)
      return;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (isLoop(p))
        for (const Access &a : accesses)
          reset |= p->isAncestor(a.op);
  });
  return reset;
}

} // namespace

void checksync::checkRingCounters(FunctionOpInterface fn, SPMDModel &model,
                                  Reporter &out) {
  (void)model;
  std::map<const void *, SmallVector<Access>> rings;
  SmallVector<Value> order;
  fn->walk([&](Operation *op) {
    if (!isa<WaitOp, ArriveOp, ArriveExpectTxOp>(op))
      return;
    std::optional<BarrierKey> key = barrierOf(op);
    if (!key || !key->root || key->constIndex || !key->index || !key->range ||
        key->range->second - key->range->first < 2)
      return;
    BlockArgument arg;
    bool bad = false;
    loopArgOf(key->index, arg, bad);
    if (bad || !arg)
      return;
    std::optional<Restart> restart = restartOf(arg);
    if (!restart)
      return;
    auto &accesses = rings[key->root.getAsOpaquePointer()];
    if (accesses.empty())
      order.push_back(key->root);
    accesses.push_back(
        {op, *restart, key->range->second - key->range->first});
  });
  // Per restarted loop, one report (its full and empty rings are one
  // bug): at a wait of its side where it has one.
  std::map<Operation *, std::pair<const Access *, const Access *>> found;
  SmallVector<Operation *> loops; // first found first
  for (Value root : order) {
    const SmallVector<Access> &accesses = rings[root.getAsOpaquePointer()];
    const Access *carriedOn = nullptr, *restarted = nullptr;
    for (const Access &a : accesses)
      if (!carriedOn || a.restart.depth < carriedOn->restart.depth)
        carriedOn = &a;
    for (const Access &a : accesses) {
      if (a.restart.depth <= carriedOn->restart.depth)
        continue;
      // A restarted loop whose trips are a constant multiple of 2 x M
      // walks whole laps of both parities: the counters agree.
      std::optional<int64_t> trips = counting::constantTrips(a.restart.loop);
      if (trips && *trips % (2 * a.stages) == 0)
        continue;
      if (!restarted || (isa<WaitOp>(a.op) && !isa<WaitOp>(restarted->op)))
        restarted = &a;
    }
    if (!restarted || resetInLoop(fn, root, accesses))
      continue;
    auto [it, fresh] = found.try_emplace(restarted->restart.loop,
                                         restarted, carriedOn);
    if (fresh)
      loops.push_back(restarted->restart.loop);
    else if (isa<WaitOp>(restarted->op) && !isa<WaitOp>(it->second.first->op))
      it->second = {restarted, carriedOn};
  }
  for (Operation *loop : loops) {
    auto [restarted, carriedOn] = found[loop];
    // The restart's place: the op that makes the fresh start inside the
    // enclosing loop; else, for a carried value started from a value of
    // outside it (a constant), the restarted loop, whose iter_args bind the
    // start at each entry (CUTLASS's epilogue load state `iter_args(%n =
    // %c0)` per tile); else (an induction variable) the access.
    const Restart &restart = restarted->restart;
    Operation *start = restart.start;
    bool atStart = start && loopDepth(start) > 0 &&
                   restart.loop->getParentRegion()->isAncestor(
                       start->getParentRegion());
    Operation *at = atStart          ? start
                    : restart.carried ? restart.loop
                                      : restarted->op;
    out.report(at, Severity::Warning, kRingCounterSlot)
        << "ring counter restarted in every trip of an enclosing loop: this "
           "side of a ring of "
        << restarted->stages
        << " stages takes its stage and parity from a counter that starts "
           "again at each entry of its loop, while another access of the "
           "same ring carries its counter across the enclosing loop; after a "
           "trip whose steps are not a multiple of "
        << 2 * restarted->stages
        << " the two sides address different stages and phases (a wait "
           "returns at once for a stale phase, or waits for one that never "
           "comes)";
    if (at != restarted->op)
      out.note(at, kRingCounterSlot, restarted->op->getLoc(),
               "the access whose counter restarts");
    out.note(at, kRingCounterSlot, carriedOn->op->getLoc(),
             "an access of the same ring whose counter is carried across the "
             "enclosing loop");
  }
}
