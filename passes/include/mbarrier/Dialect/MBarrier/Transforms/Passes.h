//===- Passes.h - mbarrier dialect transforms -----------------*- C++ -*-===//
#ifndef MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_H
#define MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace mlir::mbarrier {

#define GEN_PASS_DECL
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h.inc"

} // namespace mlir::mbarrier

#endif // MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_H
