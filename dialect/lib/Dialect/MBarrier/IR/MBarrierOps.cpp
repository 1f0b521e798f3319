//===- MBarrierOps.cpp - op verifiers --------------------------------------===//
//
// The rules of the verifier table in docs/design.md. Ownership (local vs. remote) is
// checked here with explicit messages rather than left to a type mismatch, so
// that IR from any producer gets the same diagnostic as the Python frontend.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "VerifyHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::detail;

#define GET_OP_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::mbarrier::getConstantInt(Value value) {
  APInt result;
  if (value && matchPattern(value, m_ConstantInt(&result)))
    return result.getSExtValue();
  return std::nullopt;
}

static bool isRemote(Value barriers) {
  return isa<RemoteType>(barriers.getType());
}

/// The fewest dimensions a shape attribute may have: NVVM's `nvvm.reqntid`
/// and `nvvm.cluster_dim` take one to three (the missing ones are 1), the
/// gpu dialect's `known_*_size` three.
static size_t minDims(StringRef name) {
  return name.starts_with("nvvm.") ? 1 : 3;
}

/// The number of CTAs (or threads) of a shape attribute: the product of its
/// dimensions, or none when it does not have `minDims(name)` to three
/// positive dimensions (which `verifyLaunchShape` reports).
static std::optional<int64_t> shapeSize(DenseI32ArrayAttr dims,
                                        StringRef name) {
  if (!dims || dims.size() < minDims(name) || dims.size() > 3 ||
      llvm::any_of(dims.asArrayRef(), [](int32_t d) { return d < 1; }))
    return std::nullopt;
  int64_t size = 1;
  for (int32_t dim : dims.asArrayRef())
    size *= dim;
  return size;
}

std::optional<int64_t> mlir::mbarrier::getDeclaredClusterSize(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    for (StringRef name : kClusterShapeAttrNames)
      if (auto dims = parent->getAttrOfType<DenseI32ArrayAttr>(name))
        return shapeSize(dims, name);
  return std::nullopt;
}

std::optional<int64_t> mlir::mbarrier::getDeclaredBlockSize(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    for (StringRef name : kBlockShapeAttrNames)
      if (auto dims = parent->getAttrOfType<DenseI32ArrayAttr>(name))
        return shapeSize(dims, name);
  return std::nullopt;
}

bool mlir::mbarrier::isKernelFunction(Operation *fn) {
  return fn->hasAttr("gpu.kernel") || fn->hasAttr("nvvm.kernel");
}

/// One shape attribute: three positive dimensions (one to three for the
/// nvvm attributes), each within `maxDims`, their product at most
/// `maxSize`.
static LogicalResult
verifyShapeAttr(Operation *fn, StringRef name, ArrayRef<int64_t> maxDims,
                int64_t maxSize, StringRef unit, StringRef limitNote,
                function_ref<InFlightDiagnostic()> emitError) {
  Attribute attr = fn->getAttr(name);
  if (!attr)
    return success();
  // Of another kind (array<i64: ...>, a string), every reader of the shape
  // would skip it and see no launch shape at all.
  auto dims = dyn_cast<DenseI32ArrayAttr>(attr);
  if (!dims)
    return emitError() << "'" << name
                       << "' must be an i32 array (array<i32: x, y, z>), got "
                       << attr;
  if (!shapeSize(dims, name))
    return emitError() << "'" << name
                       << (minDims(name) == 1
                               ? "' must have one to three positive "
                                 "dimensions (x[, y[, z]]), got "
                               : "' must have three positive dimensions "
                                 "(x, y, z), got ")
                       << dims;
  for (auto [dim, max, axis] :
       llvm::zip(dims.asArrayRef(), maxDims, StringRef("xyz")))
    if (dim > max)
      return emitError() << "'" << name << "' has " << dim << " " << unit
                         << " in " << axis << ": a launch has at most " << max
                         << limitNote;
  if (*shapeSize(dims, name) > maxSize)
    return emitError() << "'" << name << "' asks for " << *shapeSize(dims, name)
                       << " " << unit << ": a launch has at most " << maxSize
                       << limitNote;
  return success();
}

LogicalResult mlir::mbarrier::verifyLaunchShape(
    Operation *fn, function_ref<InFlightDiagnostic()> emitError) {
  const int64_t clusterDims[3] = {kMaxClusterSize, kMaxClusterSize,
                                  kMaxClusterSize};
  std::string clusterNote =
      " CTAs per cluster (more than " +
      std::to_string(kMaxPortableClusterSize) +
      " is non-portable: the launch must allow non-portable cluster sizes)";
  for (StringRef name : kClusterShapeAttrNames)
    if (failed(verifyShapeAttr(fn, name, clusterDims, kMaxClusterSize, "CTAs",
                               clusterNote, emitError)))
      return failure();
  for (StringRef name : kBlockShapeAttrNames)
    if (failed(verifyShapeAttr(fn, name, kMaxBlockDims, kMaxBlockThreads,
                               "threads", " threads per block", emitError)))
      return failure();
  return success();
}

LogicalResult mlir::mbarrier::verifyInFunction(Operation *op) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  if (!fn)
    return op->emitOpError()
           << "must be inside a function (gpu.func, func.func or llvm.func)";
  auto emitError = [&] {
    return op->emitOpError() << "is inside a function whose launch shape no "
                                "launch can have: ";
  };
  if (failed(verifyLaunchShape(fn, emitError)))
    return failure();
  if (!isKernelFunction(fn) || fn.isExternal())
    return success();
  Block *entry = &fn.getFunctionBody().front();
  for (Value operand : op->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (arg && arg.getOwner() == entry &&
        isa<GroupType, RemoteType, PipeType, SlotType>(arg.getType()))
      return op->emitOpError()
             << "uses kernel parameter #" << arg.getArgNumber()
             << " as a barrier group: a kernel parameter cannot be "
             << arg.getType()
             << " (a shared-memory address means nothing outside its CTA); "
                "make the group inside the kernel with mbarrier.alloc or "
                "mbarrier.view";
  }
  return success();
}

/// Whether `op` uses the cluster: a remote view, an access that reaches
/// another CTA's barrier (MBarrierOpInterface's one definition), or a 2-CTA
/// tcgen05 commit (which signals the pair's barrier).
static bool usesClusterOp(Operation *op) {
  if (isa<RemoteViewOp>(op))
    return true;
  if (auto commit = dyn_cast<Tcgen05CommitOp>(op))
    if (commit.getCtaGroup() == 2)
      return true;
  auto barrierOp = dyn_cast<MBarrierOpInterface>(op);
  return barrierOp && barrierOp.reachesAnotherCTA();
}

/// Whether `fn` declares a cluster of more than one CTA or makes a remote
/// arrival.
static bool usesCluster(Operation *fn) {
  for (StringRef name : kClusterShapeAttrNames)
    if (auto dims = fn->getAttrOfType<DenseI32ArrayAttr>(name))
      if (shapeSize(dims, name).value_or(1) > 1)
        return true;
  return fn->walk([](Operation *op) {
             return usesClusterOp(op) ? WalkResult::interrupt()
                                        : WalkResult::advance();
           }).wasInterrupted();
}

Scope mlir::mbarrier::getDefaultWaitScope(Operation *op) {
  auto fn = isa<FunctionOpInterface>(op)
                ? op
                : op->getParentOfType<FunctionOpInterface>().getOperation();
  if (!fn)
    return Scope::cta;
  if (usesCluster(fn))
    return Scope::cluster;
  // A device function may be called from a cluster kernel of its module.
  Operation *module = fn->getParentOp();
  if (isKernelFunction(fn) || !module || module->getNumRegions() != 1)
    return Scope::cta;
  for (Operation &sibling : module->getRegion(0).getOps())
    if (&sibling != fn && isa<FunctionOpInterface>(sibling) &&
        usesCluster(&sibling))
      return Scope::cluster;
  return Scope::cta;
}

/// A constant barrier index must name one of the group's barriers.
LogicalResult mlir::mbarrier::detail::verifyIndex(Operation *op, Value barriers, Value index) {
  std::optional<int64_t> idx = getConstantInt(index);
  unsigned depth = getDepth(barriers.getType());
  if (idx && (*idx < 0 || *idx >= depth))
    return op->emitOpError() << "barrier index " << *idx
                             << " is out of range for " << barriers.getType()
                             << " (valid: 0 to " << depth - 1 << ")";
  return success();
}

/// A constant operand must lie in [lo, hi].
LogicalResult mlir::mbarrier::detail::verifyInRange(Operation *op, Value value, int64_t lo,
                                   int64_t hi, StringRef what) {
  std::optional<int64_t> v = getConstantInt(value);
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
LogicalResult mlir::mbarrier::detail::verifyOwner(Operation *op, Value barriers,
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

static LogicalResult verifyPhase(Operation *op, Value phase) {
  std::optional<int64_t> p = getConstantInt(phase);
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
  // A negative attribute is ODS's to reject (MBarrier_CtaRankAttr).
  std::optional<int64_t> rank =
      getCtaRankAttr() ? std::optional<int64_t>(getCtaRankAttr().getInt())
                       : getConstantInt(getRank());
  return verifyCtaRank(*this, rank);
}

LogicalResult AllocOp::verify() {
  uint64_t bytes = 8ull * getType().getDepth();
  if (bytes > kMaxStaticSharedBytes)
    return emitOpError() << "of " << getType() << " needs " << bytes
                         << " bytes of static shared memory, over the "
                         << kMaxStaticSharedBytes / 1024
                         << " KiB a CTA can declare statically; place larger "
                            "groups in dynamic shared memory with mbarrier.view";
  return success();
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
      failed(verifyCtaRank(op, getConstantInt(op.getCtaId()))))
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
      failed(verifyPhase(op, op.getPhase())))
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
  if (isRemote(getBarriers()) && getCtaGroup() != 2)
    return emitOpError() << "with cta_group = 1 cannot target a remote view; "
                            "signal other CTAs with the multicast mask (a "
                            "remote view is for the 2-CTA form, cta_group = 2)";
  if (isRemote(getBarriers()) && getMask())
    return emitOpError() << "with a multicast mask signals the barrier at the "
                            "same offset in every CTA of the mask: give the "
                            "owner's !mbarrier.group, not a remote view";
  return verifyIndex(*this, getBarriers(), getIndex());
}
