//===- VerifyHelpers.h - checks shared by the op verifiers -----*- C++ -*-===//
//
// Defined in MBarrierOps.cpp; used by the verifiers of other op files
// (MBarrierRaisedOps.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_DIALECT_IR_VERIFYHELPERS_H
#define MBARRIER_DIALECT_IR_VERIFYHELPERS_H

#include "mlir/IR/Operation.h"

namespace mlir::mbarrier::detail {
/// A constant barrier index must name one of the group's barriers.
LogicalResult verifyIndex(Operation *op, Value barriers, Value index);
/// A constant operand must lie in [lo, hi].
LogicalResult verifyInRange(Operation *op, Value value, int64_t lo, int64_t hi,
                            StringRef what);
/// Owner-only operations reject a remote view: "a barrier cannot be
/// <action> through a remote view".
LogicalResult verifyOwner(Operation *op, Value barriers, StringRef action);
} // namespace mlir::mbarrier::detail

#endif // MBARRIER_DIALECT_IR_VERIFYHELPERS_H
