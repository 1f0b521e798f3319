//===- ProtocolWalk.cpp - the protocol model's walk -----------------------===//
//
// An instance's walk of the control flow (ProtocolInstance.h): blocks in
// program order, scf.if splitting the warp's lanes by its condition, scf.for
// and scf.while trip by trip with their induction variables and carried
// values bound, spin loops on test_wait / try_wait taken as waits.
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "ProtocolInstance.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::protocol;

bool InstanceBuilder::walkBlock(Block &block) {
  // The ops that are neither events nor hold one are only counted.
  const SharedFacts::BlockPlan &plan = planOf(block);
  for (auto [op, before] : plan.ops)
    if (!chargeOps(before) || !walkOp(op))
      return false;
  return chargeOps(plan.tail);
}

bool InstanceBuilder::walkOp(Operation *op) {
  current = op;
  if (!charge())
    return false;
  if (op->getNumRegions() == 0)
    return leaf(op);
  if (!withSync.contains(op))
    return true; // its results are never bound: unknown

  if (isIfOp(op) && !isIndexSwitch(op) && !isExecuteRegion(op))
    return walkIf(op);
  if (isForLoop(op))
    return walkFor(op);
  if (isWhileLoop(op))
    return walkWhile(op);
  if (isExecuteRegion(op) && op->getRegion(0).hasOneBlock())
    return walkBlock(op->getRegion(0).front());
  return fail(__LINE__);
}

SmallVector<std::optional<APInt>> InstanceBuilder::yielded(Block &block,
    bool loop) {
  SaveParameters save(*this, loop);
  SmallVector<std::optional<APInt>> values;
  for (Value operand : block.getTerminator()->getOperands())
    values.push_back(evalWarp(operand));
  return values;
}

bool InstanceBuilder::walkIf(Operation *op) {
  // A condition may read the parameters (a trip against a bound:
  // `j < n_blocks`), as a loop's bounds do.
  std::optional<uint32_t> thenLanes;
  {
    SaveParameters save(*this, true);
    thenLanes = lanesWhere(op->getOperand(0));
  }
  if (!thenLanes)
    return fail(__LINE__);
  uint32_t all = lanes;
  uint32_t parts[2] = {*thenLanes, all & ~*thenLanes};
  SmallVector<SmallVector<std::optional<APInt>>, 2> results;
  bool partialBefore = partialNamed;
  bool partialIn[2] = {false, false};
  for (unsigned i = 0; i < 2; ++i) {
    Region &region = op->getRegion(i);
    if (!parts[i] || region.empty())
      continue;
    lanes = parts[i];
    partialNamed = false;
    bool walked = walkBlock(region.front());
    partialIn[i] = partialNamed;
    if (walked)
      results.push_back(yielded(region.front()));
    lanes = all;
    if (!walked)
      return fail(__LINE__);
  }
  // A warp split between named barriers in both branches: its arrivals
  // per phase are not the warp's once.
  if (partialIn[0] && partialIn[1])
    return fail(__LINE__);
  partialNamed = partialBefore || partialIn[0] || partialIn[1];
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    std::optional<APInt> value;
    for (auto [j, branch] : llvm::enumerate(results)) {
      if (i >= branch.size() || !branch[i] || (j && value != branch[i])) {
        value = std::nullopt;
        break;
      }
      value = branch[i];
    }
    bind(result, value);
  }
  return true;
}

bool InstanceBuilder::countTrips(Operation *loop, bool parameterBound,
                                 int64_t trips) {
  if (!parameterBound)
    return trips <= ProtocolModel::kMaxTrips;
  if (recordedLoops.insert(loop).second)
    instance->trips.push_back(trips);
  if (trips > ProtocolModel::kMaxSampledTrips) {
    skip = true;
    return fail(__LINE__);
  }
  return true;
}

bool InstanceBuilder::walkFor(Operation *op) {
  SaveParameters save(*this, true);
  bool before = usedParameters;
  usedParameters = false;
  std::optional<int64_t> lb = evalWarpInt(op->getOperand(0));
  std::optional<int64_t> ub = evalWarpInt(op->getOperand(1));
  std::optional<int64_t> step = evalWarpInt(op->getOperand(2));
  bool parameterBound = usedParameters;
  usedParameters |= before;
  if (!lb || !ub || !step || *step <= 0)
    return fail(__LINE__);
  int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
  if (!countTrips(op, parameterBound, trips))
    return fail(__LINE__);
  Block &body = op->getRegion(0).front();
  SmallVector<std::optional<APInt>> carried;
  for (Value init : op->getOperands().drop_front(3))
    carried.push_back(evalWarp(init));
  allowParameters = save.before;
  int64_t outer = trip;
  Value iv = body.getArgument(0);
  for (int64_t t = 0; t < trips; ++t) {
    trip = t;
    bind(iv, APInt(64, static_cast<uint64_t>(*lb + t * *step), true)
                 .sextOrTrunc(integerWidth(iv.getType())));
    for (auto [arg, value] : llvm::zip(body.getArguments().drop_front(),
                                       carried))
      bind(arg, value);
    if (!walkBlock(body))
      return fail(__LINE__);
    carried = yielded(body, /*loop=*/true);
  }
  trip = outer;
  for (auto [result, value] : llvm::zip(op->getResults(), carried))
    bind(result, value);
  return true;
}

std::optional<bool> InstanceBuilder::spinWait(Operation *op) {
  Value done = spinLoopExitValue(op);
  Operation *probe = done ? done.getDefiningOp() : nullptr;
  if (!probe || !isa<TestWaitOp, TryWaitOp>(probe))
    return std::nullopt;
  bool otherEvents = false;
  op->walk([&](Operation *inner) {
    otherEvents |= inner != probe && inner->getNumRegions() == 0 &&
                   isSyncLeaf(inner, cpAsync);
  });
  if (otherEvents)
    return std::nullopt;
  int64_t offset = isa<TestWaitOp>(probe)
                       ? cast<TestWaitOp>(probe).getPhaseOffset()
                       : cast<TryWaitOp>(probe).getPhaseOffset();
  return waitEvent(probe, cast<MBarrierWaitOpInterface>(probe).getPhase(),
                   offset);
}

bool InstanceBuilder::walkWhile(Operation *op) {
  if (op->getNumRegions() != 2)
    return fail(__LINE__);
  if (std::optional<bool> walked = spinWait(op))
    return *walked || fail(__LINE__);
  Block &cond = op->getRegion(0).front(), &body = op->getRegion(1).front();
  SmallVector<std::optional<APInt>> carried;
  {
    SaveParameters save(*this, true);
    for (Value init : op->getOperands())
      carried.push_back(evalWarp(init));
  }
  int64_t outer = trip;
  bool parameterBound = false;
  for (int64_t t = 0;; ++t) {
    trip = t;
    for (auto [arg, value] : llvm::zip(cond.getArguments(), carried))
      bind(arg, value);
    if (!walkBlock(cond))
      return fail(__LINE__);
    Operation *condition = cond.getTerminator();
    if (condition->getNumOperands() == 0)
      return fail(__LINE__);
    bool before = usedParameters;
    usedParameters = false;
    SaveParameters save(*this, true);
    std::optional<int64_t> goOn = evalWarpInt(condition->getOperand(0));
    parameterBound |= usedParameters;
    usedParameters |= before;
    SmallVector<std::optional<APInt>> passed;
    for (Value operand : condition->getOperands().drop_front())
      passed.push_back(evalWarp(operand));
    allowParameters = save.before;
    if (!goOn)
      return fail(__LINE__);
    if (!*goOn) {
      trip = outer;
      for (auto [result, value] : llvm::zip(op->getResults(), passed))
        bind(result, value);
      return countTrips(op, parameterBound, t);
    }
    if (t >= (parameterBound ? ProtocolModel::kMaxSampledTrips
                             : ProtocolModel::kMaxTrips)) {
      skip = parameterBound;
      return fail(__LINE__);
    }
    for (auto [arg, value] : llvm::zip(body.getArguments(), passed))
      bind(arg, value);
    if (!walkBlock(body))
      return fail(__LINE__);
    carried = yielded(body, /*loop=*/true);
  }
}
