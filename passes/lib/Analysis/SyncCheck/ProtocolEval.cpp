//===- ProtocolEval.cpp - the protocol model's values ---------------------===//
//
// An instance's evaluation of values (ProtocolInstance.h): through the
// environment of the walk (loop variables, carried values, what loops and
// branches yield, the parameters' sample), per lane or per warp, and where a
// value does not depend on it through the SPMD model; the lanes where a
// condition holds; the plan of the ops of a block that the walk looks at.
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "ProtocolInstance.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::protocol;

bool InstanceBuilder::dependsOnEnv(Value v, unsigned depth) {
  if (auto it = envDependent.find(v); it != envDependent.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  // A block argument, or a loop's or branch's result: bound per trip.
  bool result = !def || def->getNumRegions() != 0 || depth > kMaxEvalDepth;
  if (!result && def->getNumOperands() == 0 && !readsPoint(def))
    result = pointSourceOf(def) == PointSource::CTA ||
             pointSourceOf(def) == PointSource::Launch;
  if (!result && def->getNumRegions() == 0)
    for (Value operand : def->getOperands())
      if (dependsOnEnv(operand, depth + 1)) {
        result = true;
        break;
      }
  envDependent[v] = result;
  return result;
}

std::optional<APInt> InstanceBuilder::eval(Value v, Point p, unsigned depth) {
  if (auto it = env.find(v); it != env.end())
    return it->second;
  unsigned width = integerWidth(v.getType());
  if (!width || depth > kMaxEvalDepth || !charge())
    return std::nullopt;
  if (!dependsOnEnv(v)) {
    auto key = std::make_pair(v.getAsOpaquePointer(),
                              model.dependsOnPoint(v) ? model.bit(p) : 0);
    auto [it, inserted] = shared.pointValues.try_emplace(key);
    if (inserted)
      it->second = model.eval(v, p);
    return it->second;
  }
  // Memoized per environment (an epoch: every bind starts a new one), and
  // per point for values that depend on it: a shared subexpression is
  // evaluated once (`x + x` chains), not once per path.
  size_t at = model.bit(p);
  if (auto it = memo.find(v); it != memo.end() && it->second.epoch == epoch &&
                              it->second.allow == allowParameters &&
                              (it->second.bit == at || !model.dependsOnPoint(v))) {
    usedParameters |= it->second.usedParameters;
    return it->second.value;
  }
  bool usedBefore = usedParameters;
  usedParameters = false;
  std::optional<APInt> result = evalFresh(v, p, width, depth);
  memo[v] = {epoch, at, allowParameters, usedParameters, result};
  usedParameters |= usedBefore;
  return result;
}

std::optional<APInt> InstanceBuilder::evalFresh(Value v, Point p,
    unsigned width, unsigned depth) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    // A kernel parameter: the instance's sample.
    auto arg = cast<BlockArgument>(v);
    if (arg.getOwner()->getParentOp() != fn.getOperation() ||
        !allowParameters || !model.uniform(v))
      return std::nullopt; // an unbound loop value, not a loop's, or a
                           // device function's argument
    usedParameters = true;
    return APInt(64, static_cast<uint64_t>(sample)).zextOrTrunc(width);
  }
  if (def->getNumOperands() == 0 && !readsPoint(def)) {
    if (std::optional<APInt> known = model.eval(v, p))
      return known;
    PointSource source = pointSourceOf(def);
    if (allowParameters &&
        (source == PointSource::CTA || source == PointSource::Launch)) {
      // The CTA's id and the cluster's: 0 (the first cluster of the grid,
      // which every launch has); a launch dimension: the sample.
      usedParameters = true;
      bool first = source == PointSource::CTA || isClusterIndex(def);
      return APInt(64, first ? 0 : sample).zextOrTrunc(width);
    }
  }
  return evalArith(def, width, [&](unsigned i) {
    return eval(def->getOperand(i), p, depth + 1);
  });
}

std::optional<APInt> InstanceBuilder::evalWarp(Value v) {
  if (!v || lanes == 0)
    return std::nullopt;
  unsigned first = llvm::countr_zero(lanes);
  std::optional<APInt> value = eval(v, pointOf(first));
  if (!value || !model.dependsOnPoint(v))
    return value;
  for (unsigned lane = first + 1; lane < 32; ++lane)
    if ((lanes >> lane) & 1) {
      std::optional<APInt> other = eval(v, pointOf(lane));
      if (!other || *other != *value)
        return std::nullopt;
    }
  return value;
}

std::optional<int64_t> InstanceBuilder::evalWarpInt(Value v) {
  std::optional<APInt> value = evalWarp(v);
  if (!value || value->getBitWidth() > 64)
    return std::nullopt;
  return value->getBitWidth() == 1 ? value->getZExtValue()
                                   : value->getSExtValue();
}

std::optional<uint32_t> InstanceBuilder::lanesWhere(Value cond) {
  if (model.dependsOnPoint(cond) && !dependsOnEnv(cond)) {
    auto key = std::make_pair(cond.getAsOpaquePointer(),
                              rank * perCTA + warp);
    auto it = laneMasks.find(key);
    if (it == laneMasks.end()) {
      uint32_t active = lanes;
      lanes = fullLanes();
      std::optional<uint32_t> mask = lanesAt(cond);
      lanes = active;
      it = laneMasks.try_emplace(key, mask).first;
    }
    if (!it->second)
      return std::nullopt;
    return *it->second & lanes;
  }
  return lanesAt(cond);
}

std::optional<uint32_t> InstanceBuilder::lanesAt(Value cond) {
  if (!model.dependsOnPoint(cond)) {
    std::optional<APInt> value = evalWarp(cond);
    if (!value)
      return std::nullopt;
    return value->isZero() ? 0 : lanes;
  }
  uint32_t holds = 0;
  for (unsigned lane = 0; lane < 32; ++lane)
    if ((lanes >> lane) & 1) {
      std::optional<APInt> value = eval(cond, pointOf(lane));
      if (!value)
        return std::nullopt;
      if (!value->isZero())
        holds |= uint32_t(1) << lane;
    }
  return holds;
}

void InstanceBuilder::bind(Value v, std::optional<APInt> value) {
  ++epoch;
  if (value && integerWidth(v.getType()) == value->getBitWidth())
    env[v] = *value;
  else
    env.erase(v);
}

bool InstanceBuilder::chargeOps(uint64_t n) {
  work += n;
  if (work > ProtocolModel::kWorkBudget) {
    overBudget = true;
    return false;
  }
  return true;
}

const SharedFacts::BlockPlan &InstanceBuilder::planOf(Block &block) {
  // Held by pointer: the walk of a nested block adds to the map.
  std::unique_ptr<SharedFacts::BlockPlan> &plan = shared.plans[&block];
  if (!plan) {
    plan = std::make_unique<SharedFacts::BlockPlan>();
    uint64_t inert = 0;
    for (Operation &op : block) {
      bool counted = op.getNumRegions() == 0 ? !isSyncLeaf(&op, cpAsync)
                                             : !withSync.contains(&op);
      if (counted) {
        ++inert;
        continue;
      }
      plan->ops.push_back({&op, inert});
      inert = 0;
    }
    plan->tail = inert;
  }
  return *plan;
}
