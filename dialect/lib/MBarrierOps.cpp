//===- MBarrierOps.cpp - op verifiers --------------------------------------===//
//
// The rules of DESIGN.md's verifier table. Ownership (local vs. remote) is
// checked here with explicit messages rather than left to a type mismatch, so
// that IR from any producer gets the same diagnostic as the Python frontend.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::mbarrier;

#define GET_OP_CLASSES
#include "mbarrier/Dialect/MBarrierOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

static std::optional<int64_t> getConstant(Value value) {
  APInt result;
  if (value && matchPattern(value, m_ConstantInt(&result)))
    return result.getSExtValue();
  return std::nullopt;
}

static bool isRemote(Value barriers) {
  return isa<RemoteType>(barriers.getType());
}

std::optional<int64_t> mlir::mbarrier::getDeclaredClusterSize(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    for (StringRef name : kClusterShapeAttrNames) {
      auto dims = parent->getAttrOfType<DenseI32ArrayAttr>(name);
      if (!dims)
        continue;
      int64_t size = 1;
      for (int32_t dim : dims.asArrayRef())
        size *= dim;
      return size;
    }
  }
  return std::nullopt;
}

/// A constant barrier index must name one of the group's barriers.
static LogicalResult verifyIndex(Operation *op, Value barriers, Value index) {
  std::optional<int64_t> idx = getConstant(index);
  unsigned depth = getDepth(barriers.getType());
  if (idx && (*idx < 0 || *idx >= depth))
    return op->emitOpError() << "barrier index " << *idx
                             << " is out of range for " << barriers.getType()
                             << " (valid: 0 to " << depth - 1 << ")";
  return success();
}

/// A constant operand must lie in [lo, hi].
static LogicalResult verifyInRange(Operation *op, Value value, int64_t lo,
                                   int64_t hi, StringRef what) {
  std::optional<int64_t> v = getConstant(value);
  if (v && (*v < lo || *v > hi))
    return op->emitOpError() << what << " " << *v << " is out of range ["
                             << lo << ", " << hi << "]";
  return success();
}

/// A constant CTA rank must be a CTA of the cluster the kernel declares.
static LogicalResult verifyCtaRank(Operation *op, std::optional<int64_t> rank) {
  if (!rank)
    return success();
  if (*rank < 0)
    return op->emitOpError() << "CTA rank " << *rank
                             << " is out of range: ranks are non-negative";
  std::optional<int64_t> clusterSize = getDeclaredClusterSize(op);
  if (clusterSize && *rank >= *clusterSize)
    return op->emitOpError() << "CTA rank " << *rank
                             << " is out of range for a cluster of "
                             << *clusterSize << " CTAs";
  return success();
}

/// Owner-only operations (init, wait, inval) reject a remote view.
static LogicalResult verifyOwner(Operation *op, Value barriers,
                                 StringRef action) {
  if (isRemote(barriers))
    return op->emitOpError()
           << "a barrier cannot be " << action
           << " through a remote view; only the CTA that owns it can";
  return success();
}

/// `sem` must be one of the two forms the PTX instruction has.
static LogicalResult verifySem(Operation *op, std::optional<Semantics> sem,
                               Semantics allowedA, Semantics allowedB,
                               StringRef instruction) {
  if (!sem || *sem == allowedA || *sem == allowedB)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "sem " << stringifySemantics(*sem)
                            << " cannot be expressed by " << instruction
                            << ", which is " << stringifySemantics(allowedA);
  if (allowedA != allowedB)
    diag << " or " << stringifySemantics(allowedB);
  return diag;
}

static LogicalResult verifyPhase(Operation *op, Value phase, int32_t offset) {
  if (offset != 0 && offset != 1)
    return op->emitOpError() << "phase_offset must be 0 or 1, got " << offset;
  std::optional<int64_t> p = getConstant(phase);
  if (p && *p != 0 && *p != 1)
    return op->emitOpError() << "phase must be 0 or 1, got " << *p;
  return success();
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

LogicalResult RemoteViewOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    ValueRange operands, DictionaryAttr attributes, OpaqueProperties properties,
    RegionRange regions, SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.empty())
    return failure();
  Type type = operands.front().getType();
  if (!isa<GroupType, RemoteType>(type))
    return failure();
  inferredReturnTypes.push_back(RemoteType::get(context, getDepth(type)));
  return success();
}

LogicalResult RemoteViewOp::verify() {
  if (isRemote(getBarriers()))
    return emitOpError() << "remote_view cannot be applied to a remote view; "
                            "make the view from the owner's !mbarrier.group";
  if (static_cast<bool>(getRank()) == getCtaRank().has_value())
    return emitOpError()
           << "needs exactly one CTA rank: an i32 operand or a cta_rank attribute";
  // I32Attr reads back unsigned: take the signed value so -1 is caught.
  std::optional<int64_t> rank =
      getCtaRankAttr() ? std::optional<int64_t>(getCtaRankAttr().getInt())
                       : getConstant(getRank());
  return verifyCtaRank(*this, rank);
}

LogicalResult PtrOp::verify() {
  if (failed(verifyIndex(*this, getBarriers(), getIndex())))
    return failure();
  bool remote = isRemote(getBarriers());
  unsigned expected = remote ? 7 : 3;
  StringRef space = remote ? "shared::cluster" : "shared::cta";
  if (cast<LLVM::LLVMPointerType>(getType()).getAddressSpace() != expected)
    return emitOpError() << "the address of a barrier in "
                         << getBarriers().getType() << " is !llvm.ptr<"
                         << expected << "> (" << space << "), not "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Owner-only operations
//===----------------------------------------------------------------------===//

LogicalResult InitOp::verify() {
  if (failed(verifyOwner(*this, getBarriers(), "initialized")) ||
      failed(verifyIndex(*this, getBarriers(), getIndex())))
    return failure();
  return verifyInRange(*this, getCount(), 1, kMaxArriveCount,
                       "arrival count");
}

LogicalResult InvalOp::verify() {
  if (failed(verifyOwner(*this, getBarriers(), "invalidated")))
    return failure();
  return verifyIndex(*this, getBarriers(), getIndex());
}

//===----------------------------------------------------------------------===//
// Arrivals
//===----------------------------------------------------------------------===//

template <typename ArriveOp>
static LogicalResult verifyArrive(ArriveOp op) {
  if (isRemote(op.getBarriers()) && op.getCtaId())
    return op.emitOpError()
           << "through a remote view cannot also specify cta_id ('on'): the "
              "view already fixes the target CTA rank";
  if (failed(verifyIndex(op, op.getBarriers(), op.getIndex())) ||
      failed(verifyInRange(op, op.getCount(), 1, kMaxArriveCount,
                           "arrival count")) ||
      failed(verifyCtaRank(op, getConstant(op.getCtaId()))))
    return failure();
  return verifySem(op, op.getSem(), Semantics::release, Semantics::relaxed,
                   "an mbarrier arrive");
}

LogicalResult ArriveOp::verify() { return verifyArrive(*this); }

LogicalResult ArriveExpectTxOp::verify() {
  if (failed(verifyArrive(*this)))
    return failure();
  return verifyInRange(*this, getBytes(), 0, kMaxTxCount, "tx byte count");
}

LogicalResult ExpectTxOp::verify() {
  if (failed(verifyIndex(*this, getBarriers(), getIndex())) ||
      failed(verifyInRange(*this, getBytes(), 0, kMaxTxCount,
                           "tx byte count")))
    return failure();
  return verifySem(*this, getSem(), Semantics::relaxed, Semantics::relaxed,
                   "mbarrier.expect_tx");
}

//===----------------------------------------------------------------------===//
// Waits
//===----------------------------------------------------------------------===//

template <typename WaitOp>
static LogicalResult verifyWait(WaitOp op) {
  if (failed(verifyOwner(op, op.getBarriers(), "waited on")) ||
      failed(verifyIndex(op, op.getBarriers(), op.getIndex())) ||
      failed(verifyPhase(op, op.getPhase(), op.getPhaseOffset())))
    return failure();
  return verifySem(op, op.getSem(), Semantics::acquire, Semantics::relaxed,
                   "an mbarrier wait");
}

LogicalResult WaitOp::verify() { return verifyWait(*this); }
LogicalResult TryWaitOp::verify() { return verifyWait(*this); }
LogicalResult TestWaitOp::verify() { return verifyWait(*this); }

//===----------------------------------------------------------------------===//
// tcgen05
//===----------------------------------------------------------------------===//

LogicalResult Tcgen05CommitOp::verify() {
  if (isRemote(getBarriers()))
    return emitOpError() << "cannot target a remote view; signal other CTAs "
                            "with the multicast mask";
  if (getCtaGroup() != 1 && getCtaGroup() != 2)
    return emitOpError() << "cta_group must be 1 or 2, got " << getCtaGroup();
  return verifyIndex(*this, getBarriers(), getIndex());
}
