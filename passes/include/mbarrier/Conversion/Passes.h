//===- Passes.h - mbarrier conversions ------------------------*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_PASSES_H
#define MBARRIER_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace mlir::mbarrier {

#define GEN_PASS_DECL
#include "mbarrier/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mbarrier/Conversion/Passes.h.inc"

} // namespace mlir::mbarrier

#endif // MBARRIER_CONVERSION_PASSES_H
