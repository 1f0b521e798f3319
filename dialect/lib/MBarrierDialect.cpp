//===- MBarrierDialect.cpp - dialect registration ------------------------===//
#include "mbarrier/Dialect/MBarrier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

#include "mbarrier/Dialect/MBarrierOpsDialect.cpp.inc"
#include "mbarrier/Dialect/MBarrierEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mbarrier/Dialect/MBarrierAttrs.cpp.inc"

void MBarrierDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mbarrier/Dialect/MBarrierOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mbarrier/Dialect/MBarrierAttrs.cpp.inc"
      >();
}
