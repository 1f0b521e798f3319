//===- SyncUniform.cpp - uniform values and own-CTA targets ----------------===//
//
// What the counting may take as the same for every thread (docs/checker.md,
// "The analysis"):
//
// - `SPMDModel::uniform`: a value is *varying* when it may differ between
//   the (CTA rank, thread) points that compute it in one dynamic instance.
//   The varying set is a forward taint over the function, to a fixpoint
//   through loop-carried values: thread and lane ids, elect.sync, the
//   special registers of a thread (clock, smid, ...), loads, calls, device
//   function arguments, and (in a cluster of several CTAs) CTA ids and
//   ranks are sources; a pure op is varying where an operand is; a loop or
//   branch result where an input, a yielded value, a bound or a condition
//   is. What the taint does not know is varying.
// - `SPMDModel::uniformTrips`: a loop whose bounds or condition vary runs
//   different trips in different threads (`for i = tid to 64 step 128`), so
//   the executing set of its body is unknown.
// - `SPMDModel::targetsOwnCTA`: a cluster-form arrival that targets the
//   executing CTA at every point (any target in a declared cluster of one,
//   `on %own_rank`, a multicast mask of the CTA's own bit) is a local
//   arrival (CUTLASS's 1x1-cluster `arrive(dst_blockid = 0)`, FA3's O
//   barrier arrivals on every CTA of a 1-CTA cluster).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

namespace {

/// Ops whose results are uniform where their operands are: pure arithmetic,
/// pointer arithmetic, constants, and the barrier group values.
bool propagates(Operation *op) {
  if (isa<AllocOp>(op))
    return true; // one group per CTA
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  bool arithmetic = ns == "arith" || ns == "index" || ns == "math" ||
                    ns == "llvm" || ns == "mbarrier" || ns == "ub" ||
                    ns == "builtin";
  return arithmetic && isPure(op);
}

void markAll(llvm::DenseSet<Value> &set, ValueRange values, bool &changed) {
  for (Value v : values)
    changed |= set.insert(v).second;
}

} // namespace

/// A load of memory (not atomic, not volatile): the same value in every
/// thread that reads the same address, where no thread writes it meanwhile.
static bool isPlainLoad(Operation *op) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return !load.getVolatile_() &&
           load.getOrdering() == LLVM::AtomicOrdering::not_atomic;
  return op->getName().getStringRef() == "memref.load";
}

void SPMDModel::computeVarying(bool loadsVary, llvm::DenseSet<Value> &out) {
  bool changed = true;
  auto is = [&](Value v) { return out.contains(v); };
  auto any = [&](ValueRange values) { return llvm::any_of(values, is); };
  auto markIf = [&](bool cond, Value v) {
    if (cond)
      changed |= out.insert(v).second;
  };
  Block &entry = fn.getFunctionBody().front();
  if (!isKernelFunction(fn))
    markAll(out, entry.getArguments(), changed);
  // The taint only grows, so this ends; each pass follows program order, so
  // straight-line chains take one pass and loop-carried values a few.
  while (changed) {
    changed = false;
    fn->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == fn.getOperation())
        return;
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        bool bounds = any({loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep()});
        markIf(bounds, loop.getInductionVar());
        auto yield = loop.getBody()->getTerminator();
        for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
          bool v = bounds || is(loop.getInitArgs()[i]) ||
                   (i < yield->getNumOperands() && is(yield->getOperand(i)));
          markIf(v, arg);
          markIf(v, loop.getResult(i));
        }
        return;
      }
      if (auto loop = dyn_cast<scf::WhileOp>(op)) {
        scf::ConditionOp cond = loop.getConditionOp();
        bool c = is(cond.getCondition());
        Operation *yield = loop.getAfterBody()->getTerminator();
        for (auto [i, arg] : llvm::enumerate(loop.getBeforeArguments())) {
          bool v = c || is(loop.getInits()[i]) ||
                   (i < yield->getNumOperands() && is(yield->getOperand(i)));
          markIf(v, arg);
        }
        for (auto [i, arg] : llvm::enumerate(loop.getAfterArguments())) {
          bool v = c || is(cond.getArgs()[i]);
          markIf(v, arg);
          markIf(v, loop.getResult(i));
        }
        return;
      }
      if (isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(op)) {
        // A result: the selector, or what some region yields.
        bool selector = op->getNumOperands() > 0 && is(op->getOperand(0));
        for (unsigned i = 0; i < op->getNumResults(); ++i) {
          bool v = selector;
          for (Region &region : op->getRegions())
            if (!region.empty()) {
              Operation *yield = region.front().getTerminator();
              v |= i < yield->getNumOperands() && is(yield->getOperand(i));
            }
          markIf(v, op->getResult(i));
        }
        return;
      }
      if (op->getNumRegions() > 0) {
        // Other region ops (scf.parallel, ...): nothing is known.
        for (Region &region : op->getRegions())
          for (Block &block : region)
            markAll(out, block.getArguments(), changed);
        markAll(out, op->getResults(), changed);
        return;
      }
      PointSource source = pointSourceOf(op);
      if (source == PointSource::Launch)
        return;
      if (source == PointSource::Thread ||
          (source == PointSource::CTA && numRanks > 1) ||
          (source == PointSource::None &&
           (!(propagates(op) || (!loadsVary && isPlainLoad(op))) ||
            any(op->getOperands()))))
        markAll(out, op->getResults(), changed);
    });
  }
}

bool SPMDModel::uniform(Value v) {
  if (!varying) {
    varying.emplace();
    computeVarying(/*loadsVary=*/true, *varying);
  }
  return v && !varying->contains(v);
}

bool SPMDModel::uniformOverLoads(Value v) {
  if (!varyingOverLoads) {
    varyingOverLoads.emplace();
    computeVarying(/*loadsVary=*/false, *varyingOverLoads);
  }
  return v && !varyingOverLoads->contains(v);
}

bool SPMDModel::uniformTrips(Operation *loop) {
  return loopTripsUniform(loop, /*overLoads=*/false);
}

bool SPMDModel::uniformTripsOverLoads(Operation *loop) {
  return loopTripsUniform(loop, /*overLoads=*/true);
}

bool SPMDModel::loopTripsUniform(Operation *loop, bool overLoads) {
  auto same = [&](Value v) {
    return overLoads ? uniformOverLoads(v) : uniform(v);
  };
  if (auto op = dyn_cast<scf::ForOp>(loop))
    return same(op.getLowerBound()) && same(op.getUpperBound()) &&
           same(op.getStep());
  if (auto op = dyn_cast<scf::WhileOp>(loop))
    return same(op.getConditionOp().getCondition());
  if (isa<scf::ParallelOp, scf::ForallOp>(loop))
    return llvm::all_of(loop->getOperands(), same);
  return !isa<LoopLikeOpInterface>(loop);
}

bool SPMDModel::firstTripUniform(Operation *loop) {
  auto whileOp = dyn_cast<scf::WhileOp>(loop);
  if (!whileOp)
    return false;
  // The condition with the before region's arguments bound to the initial
  // values: pure ops of the region over them and over uniform values.
  Region &before = whileOp.getBefore();
  llvm::DenseSet<Value> seen;
  std::function<bool(Value)> same = [&](Value v) -> bool {
    if (!seen.insert(v).second)
      return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParent() != &before)
        return uniform(v);
      return arg.getArgNumber() < whileOp.getInits().size() &&
             uniform(whileOp.getInits()[arg.getArgNumber()]);
    }
    Operation *def = v.getDefiningOp();
    if (!before.isAncestor(def->getParentRegion()))
      return uniform(v);
    return def->getNumRegions() == 0 && propagates(def) &&
           llvm::all_of(def->getOperands(), same);
  };
  return same(whileOp.getConditionOp().getCondition());
}

bool SPMDModel::targetsOwnCTA(Operation *op) {
  // The path walks ask once per walk of a loop body: evaluate once.
  if (auto it = ownTargets.find(op); it != ownTargets.end())
    return it->second;
  bool own = computeTargetsOwnCTA(op);
  ownTargets[op] = own;
  return own;
}

bool SPMDModel::computeTargetsOwnCTA(Operation *op) {
  if (!hasCluster)
    return false;
  // In a cluster of one CTA, every target in range is the CTA itself (and
  // one out of range is no arrival on another CTA's barrier either).
  if (numRanks == 1)
    return true;
  bool own = true;
  bool known = forEachTarget(op, [&](Point p, uint64_t ranks) {
    own &= ranks == (uint64_t(1) << p.rank);
  });
  return known && own;
}

std::optional<uint64_t> SPMDModel::targetRanks(Operation *op) {
  uint64_t all = 0;
  if (!hasCluster || !forEachTarget(op, [&](Point, uint64_t r) { all |= r; }))
    return std::nullopt;
  return all;
}

bool SPMDModel::forEachTarget(Operation *op,
                              llvm::function_ref<void(Point, uint64_t)> fn) {
  if (!countable())
    return false;
  // The target: a rank (`on %cta`, a view's rank operand or attribute) or
  // a multicast mask.
  Value rank, mask;
  std::optional<int64_t> rankAttr;
  bool known = false;
  std::optional<BarrierTarget> target;
  if (auto view = dyn_cast<RemoteViewOp>(op))
    target = BarrierTarget::of(view.getResult());
  else if (auto barrierOp = dyn_cast<MBarrierOpInterface>(op);
           barrierOp && barrierOp.reachesAnotherCTA()) // not ptr: an address
    target = barrierOp.getBarrierTarget();
  if (target) {
    rank = target->rank;
    mask = target->mask;
    if (target->constRank)
      rankAttr = *target->constRank;
    switch (target->kind) {
    case BarrierTarget::Kind::Local:
      break;
    case BarrierTarget::Kind::RemoteView: // known through a remote_view
      known = rank || rankAttr;
      break;
    case BarrierTarget::Kind::OnCta:
      known = true;
      break;
    case BarrierTarget::Kind::Multicast: { // a 2-CTA commit: the pair's too
      auto commit = dyn_cast<Tcgen05CommitOp>(op);
      known = !commit || commit.getCtaGroup() != 2;
      break;
    }
    }
  } else if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op)) {
    mask = copy.getMulticastMask();
    known = static_cast<bool>(mask);
  } else if (auto copy =
                 dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op)) {
    mask = copy.getMulticastMask();
    known = static_cast<bool>(mask);
  }
  if (!known)
    return false;
  const ExecSet &set = execSet(op);
  if (!set)
    return false;
  for (unsigned b : set->set_bits()) {
    Point p = point(b);
    if (mask) {
      std::optional<int64_t> m = evalInt(mask, p);
      if (!m)
        return false;
      fn(p, static_cast<uint64_t>(*m) & 0xffff);
      continue;
    }
    std::optional<int64_t> r = rankAttr ? rankAttr : evalInt(rank, p);
    if (!r || *r < 0 || *r >= 16)
      return false;
    fn(p, uint64_t(1) << *r);
  }
  return true;
}

bool checksync::isRemoteUse(SPMDModel &model, Operation *op) {
  return isRemoteBarrierUse(op) && !model.targetsOwnCTA(op);
}
