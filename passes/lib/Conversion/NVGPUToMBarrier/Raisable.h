//===- Raisable.h - which nvgpu barrier groups raise -----------*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_NVGPUTOMBARRIER_RAISABLE_H
#define MBARRIER_CONVERSION_NVGPUTOMBARRIER_RAISABLE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir::mbarrier::raise_nvgpu {

/// The bytes a TMA load of a `!nvgpu.tensormap.descriptor` of type
/// `descriptor` delivers: its box (the descriptor's tensor type, which
/// nvgpu's verifier ties to the destination's shape), if static.
std::optional<int64_t> boxBytes(Type descriptor);

/// The nvgpu ops under `root` that raise: every `nvgpu.mbarrier.create` of
/// workgroup memory whose every use has a counterpart, with those uses.
/// Each op that keeps a group in nvgpu gets a remark saying why.
llvm::DenseSet<Operation *> planRaising(Operation *root);

} // namespace mlir::mbarrier::raise_nvgpu

#endif // MBARRIER_CONVERSION_NVGPUTOMBARRIER_RAISABLE_H
