//===- MBarrierToNVVM.h - public lowering entry points ----------*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_MBARRIERTONVVM_H
#define MBARRIER_CONVERSION_MBARRIERTONVVM_H

#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir {
class ConversionTarget;
class LLVMTypeConverter;
class Operation;
class RewritePatternSet;
class TypeConverter;

namespace mbarrier {
/// Adds group<N> -> !llvm.ptr<3> and remote<N> -> !llvm.struct<(ptr<3>, i32)>
/// to a type converter. This is the one place address spaces are decided.
void populateMBarrierTypeConversions(TypeConverter &converter);

/// What the patterns emit beyond the ops' own semantics.
struct MBarrierLoweringOptions {
  /// 0 (the default): a blocking wait (`mbarrier.wait`) spins until its
  /// phase completes. N > 0: a wait whose phase has not completed N ns
  /// (%globaltimer) after its first failed try_wait prints where it is,
  /// on which barrier and phase, per stuck warp, and traps.
  uint64_t debugWaitsNs = 0;
};

/// One pattern per mbarrier op; `converter` must carry the conversions above.
void populateMBarrierToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    const MBarrierLoweringOptions &options = {});

/// Patterns and legality that carry mbarrier types through func/gpu.func
/// signatures, calls, returns, branches and scf regions.
void populateMBarrierStructuralConversions(TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           ConversionTarget &target);

/// Checks every mbarrier op under `root` against the NVVM targets attached
/// to its gpu.module (mbarrier-attach-target, the one target decision; no
/// check outside a targeted gpu.module). Emits one located error per
/// unsupported op.
LogicalResult checkMBarrierTargetSupport(Operation *root);

/// The lowest PTX ISA version (x10) the instructions emitted for the ops
/// under `root` need: exactly for mbarrier ops, from a short table for
/// upstream NVVM ops, and `kUnlistedNVVMOpPTX` for NVVM ops not in it.
unsigned getRequiredPTXVersion(Operation *root);
inline constexpr unsigned kUnlistedNVVMOpPTX = 86;

/// Writes the default `scope` (getDefaultWaitScope) onto every wait,
/// try_wait and test_wait under `root` that has none, computing the rule
/// once per function.
void materializeDefaultWaitScopes(Operation *root);
} // namespace mbarrier
} // namespace mlir

#endif // MBARRIER_CONVERSION_MBARRIERTONVVM_H
