//===- Passes.h - NVPTX target passes -------------------------*- C++ -*-===//
#ifndef MBARRIER_TARGET_NVPTX_PASSES_H
#define MBARRIER_TARGET_NVPTX_PASSES_H

#include "mbarrier/Target/NVPTX/NVPTXTargets.h"

#include "mlir/Pass/Pass.h"
#include <memory>

namespace mlir::mbarrier {

#define GEN_PASS_DECL
#include "mbarrier/Target/NVPTX/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mbarrier/Target/NVPTX/Passes.h.inc"

} // namespace mlir::mbarrier

#endif // MBARRIER_TARGET_NVPTX_PASSES_H
