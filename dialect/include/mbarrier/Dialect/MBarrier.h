//===- MBarrier.h - the mbarrier dialect ------------------------*- C++ -*-===//
#ifndef MBARRIER_DIALECT_MBARRIER_H
#define MBARRIER_DIALECT_MBARRIER_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mbarrier/Dialect/MBarrierDialect.h.inc"

namespace mlir::mbarrier {
/// Verifies that an mbarrier op sits inside a function: outside one (say, in
/// a gpu.module's body) it would lower to instructions no thread executes,
/// which LLVM translation cannot take.
template <typename ConcreteType>
class InFunction : public OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    if (!op->getParentOfType<FunctionOpInterface>())
      return op->emitOpError()
             << "must be inside a function (gpu.func, func.func or llvm.func)";
    return success();
  }
};
} // namespace mlir::mbarrier
#include "mbarrier/Dialect/MBarrierEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mbarrier/Dialect/MBarrierAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mbarrier/Dialect/MBarrierTypes.h.inc"

#define GET_OP_CLASSES
#include "mbarrier/Dialect/MBarrierOps.h.inc"

namespace mlir::mbarrier {
/// The number of barriers N of a `group<N>` or `remote<N>`.
unsigned getDepth(Type barrierType);

/// Limits of the mbarrier object (PTX ISA, "Contents of the mbarrier object").
inline constexpr int64_t kMaxArriveCount = (1 << 20) - 1;
inline constexpr int64_t kMaxTxCount = (1 << 20) - 1;
/// The most shared memory a CTA can have on any chip (227 KiB: sm_90,
/// sm_100), hence the most barriers a group can hold.
inline constexpr unsigned kMaxSharedBytes = 227 * 1024;
inline constexpr unsigned kMaxDepth = kMaxSharedBytes / 8;

/// The attributes through which a kernel declares its cluster shape.
inline constexpr const char *kClusterShapeAttrNames[] = {"known_cluster_size",
                                                          "nvvm.cluster_dim"};

/// The cluster size (number of CTAs) declared by the enclosing kernel through
/// one of `kClusterShapeAttrNames`, if any.
std::optional<int64_t> getDeclaredClusterSize(Operation *op);
} // namespace mlir::mbarrier

#endif // MBARRIER_DIALECT_MBARRIER_H
