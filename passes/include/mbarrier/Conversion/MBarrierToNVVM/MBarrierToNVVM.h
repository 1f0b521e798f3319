//===- MBarrierToNVVM.h - public lowering entry points ----------*- C++ -*-===//
#ifndef MBARRIER_CONVERSION_MBARRIERTONVVM_H
#define MBARRIER_CONVERSION_MBARRIERTONVVM_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

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
  /// (%globaltimer) after its first failed try_wait writes a report of where
  /// it is, on which barrier and phase, per stuck warp (debug_waits:: below),
  /// and traps.
  uint64_t debugWaitsNs = 0;
};

/// What a module built with debug waits holds for the runtime, the one C++
/// definition (python/mbarrier_dialect/runtime_debug_waits.py's
/// DEBUG_WAITS_*, the one Python one, reads it). No call (printf) in the kernel: ptxas serializes
/// every wgmma of a function that has one.
namespace debug_waits {
/// `[2 x i64]` in global memory: [0] the address of the report buffer (0
/// until the runtime writes a host-mapped buffer's there: no report, still
/// the trap), [1] the records taken so far. Its presence is the flag that
/// the module has debug waits (cuModuleGetGlobal).
inline constexpr llvm::StringLiteral kStateSymbol = "mbarrier_debug_waits";
/// The wait sites, a constant string: line K (from 0) is site K,
/// `FILE:LINE:COL<TAB>BARRIER NAME<TAB>DEFINED AT` (the last may be empty).
inline constexpr llvm::StringLiteral kSitesSymbol = "mbarrier_debug_wait_sites";
/// The report buffer: a header (its first u32: set to 1 when a stuck warp
/// found every record taken), then `kRecords` records of `kRecordBytes`.
inline constexpr unsigned kHeaderBytes = 64;
inline constexpr unsigned kRecords = 64;
inline constexpr unsigned kRecordBytes = 64;
/// A record's fields (byte offsets): u32 site + 1 (0: no record), u32
/// parity, u64 index, u64 waited ns, u32 %cluster_ctarank, u32 warp, u32
/// %ctaid.x/y/z, u32 1 once `kState` is written, u64 the barrier's state
/// (the state that `mbarrier.arrive` with count 0 returns).
enum RecordField : unsigned {
  kSite = 0,
  kParity = 4,
  kIndex = 8,
  kWaited = 16,
  kClusterRank = 24,
  kWarp = 28,
  kCtaIdX = 32,
  kCtaIdY = 36,
  kCtaIdZ = 40,
  kStateWritten = 44,
  kState = 48,
};
} // namespace debug_waits

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
