//===- SyncModel.cpp - the SPMD model of mbarrier-check-sync ---------------===//
//
// Executing sets are computed by evaluating each scf.if condition at every
// (CTA rank, thread) point of the declared launch (at most 16 x 1024): any
// mix of thread ids, lane ids, warp ids (tid / 32), CTA ranks, elect.sync
// and integer arithmetic is handled alike, and anything else (a loaded
// value, a kernel parameter, a loop induction variable) makes the set
// unknown.
//
//
// The model only: barrier keys are in BarrierKeys.cpp, the reports in
// Reporter.cpp, the path walker in FlowWalker.h.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using llvm::APInt;

namespace {
/// One to three positive dimensions of a shape attribute (missing ones are
/// 1, as NVVM reads `nvvm.reqntid = array<i32: 128>`), or none.
bool readShape(Operation *fn, ArrayRef<const char *> names, int64_t out[3]) {
  for (StringRef name : names)
    if (auto dims = fn->getAttrOfType<DenseI32ArrayAttr>(name)) {
      if (dims.empty() || dims.size() > 3)
        return false;
      for (int i = 0; i < 3; ++i) {
        int64_t dim = i < static_cast<int>(dims.size()) ? dims[i] : 1;
        if (dim < 1)
          return false;
        out[i] = dim;
      }
      return true;
    }
  return false;
}


/// Guards the recursion of `eval` against pathological IR.
constexpr unsigned kMaxDepth = 48;
/// Bounds the evaluations of one function: with the memo each op is
/// evaluated at most once per point, so this is 4096 ops at each of the
/// 16,384 points of the largest launch; beyond it a value is unknown.
constexpr uint64_t kMaxEvalWork = uint64_t(1) << 26;
} // namespace

SPMDModel::SPMDModel(FunctionOpInterface fn) : fn(fn), root(fn) {
  int64_t shape[3];
  if (readShape(fn, kBlockShapeAttrNames, shape)) {
    std::copy(shape, shape + 3, block);
    int64_t n = shape[0] * shape[1] * shape[2];
    if (n <= kMaxBlockThreads)
      numThreads = n;
  }
  if (readShape(fn, kClusterShapeAttrNames, shape)) {
    int64_t n = shape[0] * shape[1] * shape[2];
    if (n <= kMaxClusterSize) {
      std::copy(shape, shape + 3, cluster);
      numRanks = n;
      hasCluster = true;
    }
  }
}

bool SPMDModel::hasRank(const llvm::BitVector &set, int64_t rank) const {
  for (int64_t t = 0; t < numThreads; ++t)
    if (set.test(bit({rank, t})))
      return true;
  return false;
}

std::optional<int64_t> SPMDModel::evalInt(Value v, Point p) {
  std::optional<APInt> value = eval(v, p);
  if (!value || value->getBitWidth() > 64)
    return std::nullopt;
  if (value->getBitWidth() == 1)
    return value->getZExtValue();
  return value->getSExtValue();
}

std::optional<int64_t> SPMDModel::evalIntInCluster(Value v, Point p,
                                                   int64_t clusterIndex) {
  if (!hasCluster || clusterIndex < 0)
    return std::nullopt;
  // A value of a CTA id is not point-dependent to the memo: evaluate with
  // a memo of this point alone.
  llvm::DenseMap<Value, Memo> saved;
  std::swap(saved, memo);
  gridCluster = clusterIndex;
  std::optional<int64_t> result = evalInt(v, p);
  gridCluster = -1;
  std::swap(saved, memo);
  return result;
}

bool SPMDModel::dependsOnPoint(Value v) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  if (!def)
    return false;
  if (auto it = pointDependent.find(v); it != pointDependent.end())
    return it->second;
  if (dependDepth > kMaxDepth) {
    ++dependCutShort; // unknown: dependent, and not kept
    return true;
  }
  uint64_t cutBefore = dependCutShort;
  bool result = readsPoint(def);
  ++dependDepth;
  for (Value operand : def->getOperands())
    if (!result && dependsOnPoint(operand))
      result = true; // the walk stops at the first `true`: linear
  --dependDepth;
  if (dependCutShort == cutBefore)
    pointDependent[v] = result;
  return result;
}

std::optional<APInt> SPMDModel::eval(Value v, Point p) {
  if (!v || numThreads == 0 || integerWidth(v.getType()) == 0)
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  size_t at = bit(p);
  bool dependent = dependsOnPoint(v);
  if (auto it = memo.find(v);
      it != memo.end() && (!dependent || it->second.bit == at))
    return it->second.value;
  if (evalDepth > kMaxDepth || evalWork >= kMaxEvalWork) {
    ++cutShort;
    return std::nullopt;
  }
  uint64_t cutBefore = cutShort;
  ++evalDepth;
  ++evalWork;
  std::optional<APInt> result = evalOp(op, v, p);
  --evalDepth;
  if (result && result->getBitWidth() != integerWidth(v.getType()))
    result = std::nullopt;
  if (cutShort == cutBefore)
    memo[v] = Memo{at, result};
  return result;
}

std::optional<APInt> SPMDModel::evalElect(Operation *elect, Point p) {
  if (elect->getNumOperands() != 0) // an explicit member mask: not modelled
    return std::nullopt;
  const ExecSet &set = execSet(elect);
  if (!set)
    return std::nullopt;
  // The leader: the lowest active lane of the executing thread's warp.
  int64_t warp = p.tid / kWarpSize;
  for (int64_t t = warp * kWarpSize; t < std::min<int64_t>(numThreads, (warp + 1) * kWarpSize);
       ++t)
    if (set->test(bit({p.rank, t})))
      return APInt(1, t == p.tid);
  return APInt(1, 0);
}

std::optional<APInt> SPMDModel::evalOp(Operation *op, Value v, Point p) {
  unsigned width = integerWidth(v.getType());
  int64_t tid[3] = {p.tid % block[0], (p.tid / block[0]) % block[1],
                    p.tid / (block[0] * block[1])};
  int64_t cta[3] = {p.rank % cluster[0], (p.rank / cluster[0]) % cluster[1],
                    p.rank / (cluster[0] * cluster[1])};
  auto make = [&](int64_t x) -> std::optional<APInt> {
    return APInt(width, static_cast<uint64_t>(x), /*isSigned=*/true);
  };
  auto rankValue = [&](int64_t x) -> std::optional<APInt> {
    if (!hasCluster)
      return std::nullopt;
    return make(x);
  };
  // A CTA id, in evalIntInCluster only: cluster `gridCluster` along x.
  auto blockId = [&](int d) -> std::optional<APInt> {
    if (gridCluster < 0 || !hasCluster)
      return std::nullopt;
    return make(d == 0 ? gridCluster * cluster[0] + cta[0] : cta[d]);
  };
  auto dimOf = [](Operation *op) -> int {
    if (auto dim = op->getAttrOfType<gpu::DimensionAttr>("dimension"))
      return static_cast<int>(dim.getValue());
    return -1;
  };

  // Special registers: nvvm.read.ptx.sreg.*
  switch (specialRegisterOf(op)) {
  case SpecialReg::None: break;
  case SpecialReg::TidX: return make(tid[0]);
  case SpecialReg::TidY: return make(tid[1]);
  case SpecialReg::TidZ: return make(tid[2]);
  case SpecialReg::NTidX: return make(block[0]);
  case SpecialReg::NTidY: return make(block[1]);
  case SpecialReg::NTidZ: return make(block[2]);
  case SpecialReg::LaneId: return make(p.tid % kWarpSize);
  case SpecialReg::ClusterCtaRank: return rankValue(p.rank);
  case SpecialReg::ClusterNCtaRank: return rankValue(numRanks);
  case SpecialReg::ClusterCtaIdX: return rankValue(cta[0]);
  case SpecialReg::ClusterCtaIdY: return rankValue(cta[1]);
  case SpecialReg::ClusterCtaIdZ: return rankValue(cta[2]);
  case SpecialReg::ClusterNCtaIdX: return rankValue(cluster[0]);
  case SpecialReg::ClusterNCtaIdY: return rankValue(cluster[1]);
  case SpecialReg::ClusterNCtaIdZ: return rankValue(cluster[2]);
  case SpecialReg::CtaIdX: return blockId(0);
  case SpecialReg::CtaIdY: return blockId(1);
  case SpecialReg::CtaIdZ: return blockId(2);
  default: return std::nullopt;
  }
  if (isElectSync(op))
    return evalElect(op, p);

  if (std::optional<APInt> value = evalArith(
          op, width, [&](unsigned i) { return eval(op->getOperand(i), p); }))
    return value;
  return llvm::TypeSwitch<Operation *, std::optional<APInt>>(op)
      .Case<gpu::ThreadIdOp>([&](Operation *op) -> std::optional<APInt> {
        int d = dimOf(op);
        return d < 0 || d > 2 ? std::nullopt : make(tid[d]);
      })
      .Case<gpu::BlockDimOp>([&](Operation *op) -> std::optional<APInt> {
        int d = dimOf(op);
        return d < 0 || d > 2 ? std::nullopt : make(block[d]);
      })
      .Case<gpu::ClusterBlockIdOp>([&](Operation *op) -> std::optional<APInt> {
        int d = dimOf(op);
        return d < 0 || d > 2 ? std::nullopt : rankValue(cta[d]);
      })
      .Case<gpu::BlockIdOp>([&](Operation *op) -> std::optional<APInt> {
        int d = dimOf(op);
        return d < 0 || d > 2 ? std::nullopt : blockId(d);
      })
      .Case<gpu::LaneIdOp>([&](auto) { return make(p.tid % kWarpSize); })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<APInt> checksync::evalArith(
    Operation *op, unsigned width,
    llvm::function_ref<std::optional<APInt>(unsigned)> operand) {
  auto binary = [&](auto fn) -> std::optional<APInt> {
    std::optional<APInt> a = operand(0), b = operand(1);
    if (!a || !b || a->getBitWidth() != b->getBitWidth())
      return std::nullopt;
    return fn(*a, *b);
  };
  auto divisor = [](const APInt &b) { return !b.isZero(); };

  return llvm::TypeSwitch<Operation *, std::optional<APInt>>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> std::optional<APInt> {
        if (auto attr = dyn_cast<IntegerAttr>(c.getValue()))
          return attr.getValue().sextOrTrunc(width);
        return std::nullopt;
      })
      .Case<arith::AddIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a + b; }); })
      .Case<arith::SubIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a - b; }); })
      .Case<arith::MulIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a * b; }); })
      .Case<arith::AndIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a & b; }); })
      .Case<arith::OrIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a | b; }); })
      .Case<arith::XOrIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a ^ b; }); })
      .Case<arith::DivUIOp>([&](auto) { return binary([&](APInt a, APInt b) -> std::optional<APInt> { if (!divisor(b)) return std::nullopt; return a.udiv(b); }); })
      .Case<arith::DivSIOp>([&](auto) { return binary([&](APInt a, APInt b) -> std::optional<APInt> { if (!divisor(b)) return std::nullopt; return a.sdiv(b); }); })
      .Case<arith::RemUIOp>([&](auto) { return binary([&](APInt a, APInt b) -> std::optional<APInt> { if (!divisor(b)) return std::nullopt; return a.urem(b); }); })
      .Case<arith::RemSIOp>([&](auto) { return binary([&](APInt a, APInt b) -> std::optional<APInt> { if (!divisor(b)) return std::nullopt; return a.srem(b); }); })
      .Case<arith::ShLIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { if (b.uge(a.getBitWidth())) return std::nullopt; return a.shl(b); }); })
      .Case<arith::ShRUIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { if (b.uge(a.getBitWidth())) return std::nullopt; return a.lshr(b); }); })
      .Case<arith::ShRSIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { if (b.uge(a.getBitWidth())) return std::nullopt; return a.ashr(b); }); })
      .Case<arith::MinSIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a.slt(b) ? a : b; }); })
      .Case<arith::MaxSIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a.sgt(b) ? a : b; }); })
      .Case<arith::MinUIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a.ult(b) ? a : b; }); })
      .Case<arith::MaxUIOp>([&](auto) { return binary([](APInt a, APInt b) -> std::optional<APInt> { return a.ugt(b) ? a : b; }); })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) -> std::optional<APInt> {
        std::optional<APInt> a = operand(0), b = operand(1);
        if (!a || !b || a->getBitWidth() != b->getBitWidth())
          return std::nullopt;
        bool r = false;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq: r = *a == *b; break;
        case arith::CmpIPredicate::ne: r = *a != *b; break;
        case arith::CmpIPredicate::slt: r = a->slt(*b); break;
        case arith::CmpIPredicate::sle: r = a->sle(*b); break;
        case arith::CmpIPredicate::sgt: r = a->sgt(*b); break;
        case arith::CmpIPredicate::sge: r = a->sge(*b); break;
        case arith::CmpIPredicate::ult: r = a->ult(*b); break;
        case arith::CmpIPredicate::ule: r = a->ule(*b); break;
        case arith::CmpIPredicate::ugt: r = a->ugt(*b); break;
        case arith::CmpIPredicate::uge: r = a->uge(*b); break;
        }
        return APInt(1, r);
      })
      .Case<arith::SelectOp>([&](auto) -> std::optional<APInt> {
        std::optional<APInt> c = operand(0);
        if (!c || c->getBitWidth() != 1)
          return std::nullopt;
        return operand(c->isOne() ? 1 : 2);
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp>([&](auto) -> std::optional<APInt> {
        std::optional<APInt> a = operand(0);
        if (!a)
          return std::nullopt;
        return a->sextOrTrunc(width);
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp, arith::TruncIOp>(
          [&](auto) -> std::optional<APInt> {
            std::optional<APInt> a = operand(0);
            if (!a)
              return std::nullopt;
            return a->zextOrTrunc(width);
          })
      .Default([](Operation *) { return std::nullopt; });
}

const ExecSet &SPMDModel::regionSet(Region *region) {
  return regionSetOf(region, SetKind::Exact);
}

const ExecSet &SPMDModel::regionSetOf(Region *region, SetKind kind) {
  std::map<Region *, ExecSet> &sets =
      kind == SetKind::OverLoads ? mayRegionSets
      : kind == SetKind::Entered ? enteredRegionSets
                                 : regionSets;
  if (auto it = sets.find(region); it != sets.end())
    return it->second;
  ExecSet result;
  Operation *parent = region->getParentOp();
  if (numThreads == 0 || !parent) {
    result = std::nullopt;
  } else if (parent == root) {
    result = llvm::BitVector(numRanks * numThreads, true);
  } else if (isa<FunctionOpInterface>(parent) || !parent->getParentRegion()) {
    result = std::nullopt;
  } else {
    ExecSet base = regionSetOf(parent->getParentRegion(), kind);
    if (base && isIfOp(parent)) {
      bool thenRegion = region->getRegionNumber() == 0;
      llvm::BitVector set(base->size());
      for (unsigned b : base->set_bits()) {
        std::optional<int64_t> cond = evalInt(parent->getOperand(0), point(b));
        if (!cond) {
          base = std::nullopt;
          break;
        }
        if ((*cond != 0) == thenRegion)
          set.set(b);
      }
      if (base)
        result = std::move(set);
    } else if (isIndexSwitch(parent)) {
      result = std::nullopt; // cases are not modelled
    } else if (!loopTripsUniform(parent, kind == SetKind::OverLoads) &&
               !(kind == SetKind::Entered && firstTripUniform(parent))) {
      result = std::nullopt; // threads run different trips
    } else {
      result = base;
    }
  }
  return sets.emplace(region, std::move(result)).first->second;
}

const ExecSet &SPMDModel::mayExecSet(Operation *op) {
  static const ExecSet unknown;
  if (!op->getParentRegion())
    return unknown;
  return regionSetOf(op->getParentRegion(), SetKind::OverLoads);
}

const ExecSet &SPMDModel::enteredExecSet(Operation *op) {
  static const ExecSet unknown;
  if (!op->getParentRegion())
    return unknown;
  return regionSetOf(op->getParentRegion(), SetKind::Entered);
}

const ExecSet &SPMDModel::execSet(Operation *op) {
  static const ExecSet unknown;
  if (!op->getParentRegion())
    return unknown;
  return regionSet(op->getParentRegion());
}

bool checksync::runsAtLeastOnce(Operation *op) {
  if (!isForLoop(op) || op->getNumOperands() < 3)
    return false;
  std::optional<int64_t> lb = constantOf(op->getOperand(0));
  std::optional<int64_t> ub = constantOf(op->getOperand(1));
  std::optional<int64_t> step = constantOf(op->getOperand(2));
  return lb && ub && step && *step > 0 && *lb < *ub;
}

const ExecSet &checksync::actingPoints(Operation *op, SPMDModel &model) {
  return model.actingPoints(op);
}

const ExecSet &SPMDModel::actingPoints(Operation *op) {
  if (auto it = actingSets.find(op); it != actingSets.end())
    return it->second;
  ExecSet set = execSet(op);
  Value pred;
  if (auto barrierOp = dyn_cast<MBarrierOpInterface>(op))
    pred = barrierOp.getBarrierPredicate();
  if (set && pred) {
    llvm::BitVector holds(set->size());
    for (unsigned b : set->set_bits()) {
      std::optional<int64_t> value = evalInt(pred, point(b));
      if (!value) {
        set = std::nullopt;
        break;
      }
      if (*value)
        holds.set(b);
    }
    if (set)
      set = std::move(holds);
  }
  return actingSets.emplace(op, std::move(set)).first->second;
}

bool checksync::isStructured(FunctionOpInterface fn) {
  if (fn.isExternal() || !fn.getFunctionBody().hasOneBlock())
    return false;
  bool ok = true;
  fn->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      if (!region.empty() && !region.hasOneBlock())
        ok = false;
  });
  return ok;
}
