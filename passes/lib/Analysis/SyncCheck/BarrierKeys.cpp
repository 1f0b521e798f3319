//===- BarrierKeys.cpp - which barrier an op touches ----------------------===//
//
// A barrier is a group value with remote views stripped (for mbarrier.view,
// the viewed pointer) and an index: a constant or an SSA value, with the
// range of values its definition bounds it to (docs/checker.md, "Barriers").
// Also which ops reach another CTA's barrier or shared memory, and the walk
// over every use of a group (BarrierUses).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using llvm::APInt;

std::optional<int64_t> checksync::constantOf(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)) && value.getBitWidth() <= 64)
    return value.getSExtValue();
  return std::nullopt;
}

Value checksync::rootOf(Value barriers) {
  for (unsigned i = 0; i < 16 && barriers; ++i) {
    auto view = barriers.getDefiningOp<RemoteViewOp>();
    if (!view)
      break;
    barriers = view.getBarriers();
  }
  if (auto view = barriers ? barriers.getDefiningOp<ViewOp>() : ViewOp())
    return view.getPtr();
  return barriers;
}

/// [lo, hi) of the values `v` can take, where its definition bounds it.
/// `work` bounds the ops looked at (a sum of sums shares its operands).
static std::optional<std::pair<int64_t, int64_t>>
rangeOf(Value v, unsigned depth = 0, unsigned *work = nullptr) {
  unsigned ops = 0;
  if (!work)
    work = &ops;
  if (!v || depth > 16 || ++*work > 64)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(v))
    return std::make_pair(*c, *c + 1);
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastUIOp, arith::IndexCastOp, arith::ExtUIOp>(def)) {
    auto r = rangeOf(def->getOperand(0), depth + 1, work);
    if (r && r->first >= 0)
      return r; // nonnegative: the cast keeps the values
    return std::nullopt;
  }
  if (isa<arith::RemUIOp>(def))
    if (std::optional<int64_t> c = constantOf(def->getOperand(1)); c && *c > 0)
      return std::make_pair(int64_t(0), *c);
  if (isa<arith::AndIOp>(def))
    for (Value operand : def->getOperands())
      if (std::optional<int64_t> c = constantOf(operand); c && *c >= 0)
        return std::make_pair(int64_t(0), *c + 1);
  if (isa<arith::AddIOp>(def)) {
    auto a = rangeOf(def->getOperand(0), depth + 1, work);
    auto b = rangeOf(def->getOperand(1), depth + 1, work);
    if (a && b)
      return std::make_pair(a->first + b->first, a->second + b->second - 1);
  }
  return std::nullopt;
}

BarrierKey checksync::keyOf(Value barriers, Value index) {
  return {rootOf(barriers), index, constantOf(index), rangeOf(index)};
}

bool BarrierKey::sameAs(const BarrierKey &other) const {
  if (root != other.root)
    return false;
  if (constIndex && other.constIndex)
    return *constIndex == *other.constIndex;
  return index == other.index;
}

bool BarrierKey::differentFrom(const BarrierKey &other) const {
  if (root != other.root)
    return true;
  if (constIndex && other.constIndex)
    return *constIndex != *other.constIndex;
  // Disjoint ranges: a pipeline's full barriers (stage) and empty ones
  // (stage + D) are different barriers.
  return range && other.range &&
         (range->second <= other.range->first ||
          other.range->second <= range->first);
}

std::optional<BarrierKey> checksync::barrierOf(Operation *op) {
  auto barrierOp = dyn_cast<MBarrierOpInterface>(op);
  if (!barrierOp || !barrierOp.getBarrierIndex())
    return std::nullopt;
  return keyOf(barrierOp.getBarrierGroup(), barrierOp.getBarrierIndex());
}

bool checksync::forEachGroupUser(Value root,
                                 llvm::function_ref<bool(Operation *)> visit) {
  if (!root)
    return false;
  SmallVector<Value> values;
  if (isa<LLVM::LLVMPointerType>(root.getType())) {
    for (Operation *user : root.getUsers())
      if (auto view = dyn_cast<ViewOp>(user))
        values.push_back(view.getResult());
  } else {
    values.push_back(root);
  }
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<RemoteViewOp>(user)) {
        values.push_back(view.getResult());
        continue;
      }
      if (!visit(user))
        return false;
    }
  }
  return true;
}

bool checksync::isRemoteBarrierUse(Operation *op) {
  // mbarrier.ptr only forms an address (MBarrierOpInterface): the op that
  // consumes it (a bulk copy below) is the use.
  if (auto barrierOp = dyn_cast<MBarrierOpInterface>(op))
    return barrierOp.reachesAnotherCTA();
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(op))
    return static_cast<bool>(copy.getMulticastMask());
  if (auto copy = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return static_cast<bool>(copy.getMulticastMask());
  if (isa<NVVM::CpAsyncBulkSharedCTAToSharedClusterOp>(op))
    return true;
  return false;
}
