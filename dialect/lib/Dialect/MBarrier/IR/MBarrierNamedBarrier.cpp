//===- MBarrierNamedBarrier.cpp - named-barrier verifiers ------------------===//
//
// The rules of docs/design.md "Named barriers": no other declaration of a
// declaration's module has its explicit id (the Symbol trait puts it in a
// symbol table); a use
// names a declaration and a thread count that is a non-zero multiple of the
// warp size and at most the block (the declared one, else 1024); a bar.red
// returns what its reduction produces.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

using namespace mlir;
using namespace mlir::mbarrier;

LogicalResult NamedBarrierOp::verify() {
  // The Symbol trait has checked that the parent is a symbol table.
  Operation *parent = (*this)->getParentOp();
  std::optional<uint32_t> id = getId();
  if (!id || !parent)
    return success();
  // The first declaration of the module with this id reports nothing; each
  // later one reports against it.
  for (Operation &other : parent->getRegion(0).front()) {
    if (&other == getOperation())
      return success();
    auto decl = dyn_cast<NamedBarrierOp>(&other);
    if (decl && decl.getId() == id) {
      InFlightDiagnostic diag =
          emitOpError() << "has hardware id " << *id << ", which @"
                        << decl.getSymName()
                        << " already has: two names of one barrier";
      diag.attachNote(decl.getLoc()) << "the first declaration of id " << *id;
      return diag;
    }
  }
  return success();
}

/// The thread count of a bar.sync / bar.arrive / bar.red: a non-zero
/// multiple of the warp size, at most the block.
static LogicalResult verifyThreadCount(Operation *op, int64_t threads) {
  if (threads < 32 || threads % 32 != 0)
    return op->emitOpError()
           << "thread count must be a non-zero multiple of the warp size (32)"
           << ", got " << threads;
  std::optional<int64_t> block = getDeclaredBlockSize(op);
  if (block && threads > *block)
    return op->emitOpError()
           << "thread count " << threads << " is more than the " << *block
           << " threads of the block the kernel declares: the barrier never "
              "completes";
  if (threads > kMaxBlockThreads)
    return op->emitOpError()
           << "thread count " << threads << " is more than the "
           << kMaxBlockThreads << " threads a block can have";
  return success();
}

/// The symbol of a use names an `mbarrier.named_barrier`.
static LogicalResult verifyDeclaration(Operation *op, FlatSymbolRefAttr name,
                                       SymbolTableCollection &symbols) {
  Operation *decl = symbols.lookupNearestSymbolFrom(op, name);
  if (!decl)
    return op->emitOpError() << "names " << name
                             << ", which no mbarrier.named_barrier of the "
                                "enclosing modules declares";
  if (!isa<NamedBarrierOp>(decl))
    return op->emitOpError() << "names " << name << ", which is a '"
                             << decl->getName()
                             << "', not an mbarrier.named_barrier";
  return success();
}

template <typename UseOp>
static NamedBarrierOp declarationOf(UseOp op) {
  return SymbolTable::lookupNearestSymbolFrom<NamedBarrierOp>(
      op.getOperation(), op.getBarrierAttr());
}
template <typename UseOp>
static std::optional<uint32_t> hardwareIdOf(UseOp op) {
  if (NamedBarrierOp decl = declarationOf(op))
    return decl.getId();
  return std::nullopt;
}

NamedBarrierOp BarSyncOp::getDeclaration() { return declarationOf(*this); }
NamedBarrierOp BarArriveOp::getDeclaration() { return declarationOf(*this); }
NamedBarrierOp BarRedOp::getDeclaration() { return declarationOf(*this); }
std::optional<uint32_t> BarSyncOp::getHardwareId() { return hardwareIdOf(*this); }
std::optional<uint32_t> BarArriveOp::getHardwareId() { return hardwareIdOf(*this); }
std::optional<uint32_t> BarRedOp::getHardwareId() { return hardwareIdOf(*this); }

LogicalResult BarSyncOp::verify() {
  return verifyThreadCount(*this, getThreads());
}
LogicalResult BarSyncOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyDeclaration(*this, getBarrierAttr(), symbols);
}

LogicalResult BarArriveOp::verify() {
  return verifyThreadCount(*this, getThreads());
}
LogicalResult BarArriveOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyDeclaration(*this, getBarrierAttr(), symbols);
}

LogicalResult BarRedOp::verify() {
  if (failed(verifyThreadCount(*this, getThreads())))
    return failure();
  Type type = getResult().getType();
  if (getKind() == BarRedKind::popc) {
    if (!type.isInteger(32))
      return emitOpError() << "bar.red.popc returns the count of threads, "
                              "i32, not "
                           << type;
    return success();
  }
  if (!type.isInteger(1))
    return emitOpError() << "bar.red." << stringifyBarRedKind(getKind())
                         << " returns a predicate, i1, not " << type;
  return success();
}
LogicalResult BarRedOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyDeclaration(*this, getBarrierAttr(), symbols);
}
