//===- MBarrier.h - the mbarrier dialect ------------------------*- C++ -*-===//
#ifndef MBARRIER_DIALECT_MBARRIER_H
#define MBARRIER_DIALECT_MBARRIER_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"  // the ops' pointer types; not the whole LLVM dialect
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsDialect.h.inc"

namespace mlir::mbarrier {
/// Checks shared by every mbarrier op: it sits inside a function (outside
/// one it would lower to instructions no thread executes); the launch shape
/// that function declares is one a launch can have; no barrier operand is a
/// kernel parameter.
LogicalResult verifyInFunction(Operation *op);

/// Verifies `verifyInFunction` for every op of the dialect.
template <typename ConcreteType>
class InFunction : public OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInFunction(op);
  }
};

/// Checks the launch-shape attributes a function declares
/// (`known_cluster_size`, `nvvm.cluster_dim`, `known_block_size`,
/// `nvvm.reqntid`): three positive dimensions, at most 16 CTAs per cluster
/// and 1024 threads per block. Errors are reported through `emitError`.
LogicalResult
verifyLaunchShape(Operation *fn, function_ref<InFlightDiagnostic()> emitError);
} // namespace mlir::mbarrier
#include "mbarrier/Dialect/MBarrier/IR/MBarrierEnums.h.inc"

namespace mlir::mbarrier {
/// The default `.scope` of `wait`, `try_wait` and `test_wait` (the one
/// definition of the rule): `cluster` in a function that declares a cluster
/// of more than one CTA or that makes a remote arrival (a `remote_view`, an
/// arrive `on %cta`, a multicast or 2-CTA tcgen05 commit), and, for a
/// function that is not a kernel, when any function of its module does;
/// `cta` otherwise. A `.cta` acquire is not morally strong with a release
/// from another CTA, so it would not synchronize a cross-CTA hand-off.
Scope getDefaultWaitScope(Operation *op);
} // namespace mlir::mbarrier


#define GET_ATTRDEF_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsTypes.h.inc"

namespace mlir::mbarrier {
/// The CTA whose barrier an op touches (MBarrierOpInterface).
struct BarrierTarget {
  enum class Kind {
    Local,      // the executing CTA's own barrier
    RemoteView, // through a remote_view: `rank` (or `constRank`) is the owner
    OnCta,      // `on %cta`: `rank` is the target
    Multicast,  // every CTA whose bit is set in `mask`
  };
  Kind kind = Kind::Local;
  Value rank;                      // RemoteView (dynamic rank), OnCta
  std::optional<uint32_t> constRank; // RemoteView with `cta_rank N`
  Value mask;                      // Multicast
  /// Local for a group, RemoteView for a value defined by remote_view (or a
  /// remote-typed block argument: rank unknown); `ctaId` (non-null) makes
  /// it OnCta.
  static BarrierTarget of(Value barriers, Value ctaId = {});
  /// Multicast to `mask` where it is non-null, else `of(barriers)`.
  static BarrierTarget ofMulticast(Value mask, Value barriers);
};
} // namespace mlir::mbarrier

#include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.h.inc"

#define GET_OP_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOps.h.inc"

namespace mlir::mbarrier {
/// The number of barriers N of a `group<N>` or `remote<N>`.
unsigned getDepth(Type barrierType);

/// The value of `value` when it is an integer constant (sign-extended).
std::optional<int64_t> getConstantInt(Value value);

/// `diag` (a number below its minimum) ending with the number as the user
/// wrote it when it is negative: ", got -1".
inline InFlightDiagnostic withNegative(InFlightDiagnostic &&diag,
                                       int64_t value) {
  if (value < 0)
    diag << ", got " << value;
  return std::move(diag);
}

/// Limits of the mbarrier object (PTX ISA, "Contents of the mbarrier object").
inline constexpr int64_t kMaxArriveCount = (1 << 20) - 1;
inline constexpr int64_t kMaxTxCount = (1 << 20) - 1;
/// The most shared memory a CTA can have on any chip (227 KiB: sm_90,
/// sm_100), hence the most barriers a group can hold.
inline constexpr unsigned kMaxSharedBytes = 227 * 1024;
inline constexpr unsigned kMaxDepth = kMaxSharedBytes / 8;

/// The attributes through which a kernel declares its cluster shape
/// (gpu.func, llvm.func) and its block shape.
inline constexpr const char *kClusterShapeAttrNames[] = {"known_cluster_size",
                                                          "nvvm.cluster_dim"};
inline constexpr const char *kBlockShapeAttrNames[] = {"known_block_size",
                                                        "nvvm.reqntid"};
/// Hardware limits of a launch: CTAs per cluster (above 8 is non-portable),
/// threads per block, and the static shared memory a CTA can declare.
inline constexpr int64_t kMaxClusterSize = 16;
inline constexpr int64_t kMaxPortableClusterSize = 8;
inline constexpr int64_t kMaxBlockThreads = 1024;
inline constexpr int64_t kMaxBlockDims[3] = {1024, 1024, 64};
inline constexpr unsigned kMaxStaticSharedBytes = 48 * 1024;

/// Whether `fn` is a kernel (gpu.func with gpu.kernel, llvm.func with
/// nvvm.kernel).
bool isKernelFunction(Operation *fn);

/// The cluster size (number of CTAs) declared by the enclosing kernel through
/// one of `kClusterShapeAttrNames`, if any.
std::optional<int64_t> getDeclaredClusterSize(Operation *op);
/// The threads per block declared by the enclosing kernel through one of
/// `kBlockShapeAttrNames`, if any.
std::optional<int64_t> getDeclaredBlockSize(Operation *op);
} // namespace mlir::mbarrier

#endif // MBARRIER_DIALECT_MBARRIER_H
