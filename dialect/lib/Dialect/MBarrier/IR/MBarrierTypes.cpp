//===- MBarrierTypes.cpp - group and remote types ------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

#define GET_TYPEDEF_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsTypes.cpp.inc"

void MBarrierDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsTypes.cpp.inc"
      >();
}

static LogicalResult verifyDepth(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned depth) {
  if (depth == 0)
    return emitError() << "an mbarrier group needs at least one barrier";
  if (depth > kMaxDepth)
    return emitError() << "an mbarrier group of " << depth << " barriers ("
                       << 8ull * depth << " bytes) does not fit the "
                       << kMaxSharedBytes / 1024
                       << " KiB of shared memory a CTA can have";
  return success();
}

LogicalResult GroupType::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned depth) {
  return verifyDepth(emitError, depth);
}

LogicalResult RemoteType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned depth) {
  return verifyDepth(emitError, depth);
}

unsigned mlir::mbarrier::getDepth(Type type) {
  if (auto group = dyn_cast<GroupType>(type))
    return group.getDepth();
  return cast<RemoteType>(type).getDepth();
}
