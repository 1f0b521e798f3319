//===- MBarrierDialect.cpp - dialect registration ------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsDialect.cpp.inc"
#include "mbarrier/Dialect/MBarrier/IR/MBarrierEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierAttrs.cpp.inc"

void MBarrierDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mbarrier/Dialect/MBarrier/IR/MBarrierAttrs.cpp.inc"
      >();
}
