//===- Passes.h - analysis-driven passes ----------------------*- C++ -*-===//
#ifndef MBARRIER_TRANSFORMS_PASSES_H
#define MBARRIER_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace mlir::mbarrier {

#define GEN_PASS_DECL
#include "mbarrier/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mbarrier/Transforms/Passes.h.inc"

} // namespace mlir::mbarrier

#endif // MBARRIER_TRANSFORMS_PASSES_H
