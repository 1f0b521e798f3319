//===- TargetInfo.h - the one target decision, read by every pass -*- C++ -*-===//
//
// The target is decided once: mbarrier-attach-target gives each gpu.module
// its NVVM target (the chip, and either the user's `+ptxNN` or the chip's
// minimum PTX version). A version attach-target chose itself is *derived*
// (the module carries `mbarrier.derived_ptx`): a pass that emits an
// instruction of a later PTX version raises it through
// raiseDerivedPTXVersion. An explicit version is never changed; the
// conversion's target check then reports the op it is too low for.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_TARGET_NVPTX_TARGETINFO_H
#define MBARRIER_TARGET_NVPTX_TARGETINFO_H

#include "mbarrier/Target/NVPTX/NVPTXTargets.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::mbarrier {

/// The unit attribute mbarrier-attach-target puts on a gpu.module whose PTX
/// version it derived.
inline constexpr StringLiteral kDerivedPTXAttrName = "mbarrier.derived_ptx";

/// The PTX version of `fence.release`, its `sync_restrict` form and the
/// `.relaxed` arrive (with sm_90).
inline constexpr unsigned kRelaxedPTX = 86;

/// Whether the PTX version of `module`'s targets may be raised.
bool isPTXDerived(gpu::GPUModuleOp module);

/// The valid NVVM targets of `module` (none for a null module, one without
/// NVVM targets, or one with an invalid target: attach-target and the
/// conversion report those).
SmallVector<NVPTXTarget> getNVPTXTargets(gpu::GPUModuleOp module);

/// Whether `module` has NVVM targets and every one can emit an instruction
/// of PTX `ptx` on chip sm_`sm` or later: its version is at least `ptx`, or
/// it is derived and the backend knows such a version. Otherwise (no
/// module, no target: ops outside a targeted gpu.module) false: the caller
/// emits the form every target takes.
bool canUsePTX(gpu::GPUModuleOp module, unsigned sm, unsigned ptx);

/// Raises a derived PTX version of `module` to the lowest the backend knows
/// that is >= `ptx` (nothing for an explicit or already higher version).
/// Fails, reported at the module, when the backend knows no such version.
LogicalResult raiseDerivedPTXVersion(gpu::GPUModuleOp module, unsigned ptx);

/// The release-fence question of mbarrier-lower-pipes and
/// mbarrier-merge-release-fences, per op (cached per gpu.module); `use`
/// raises the module's derived version for the form it then emits.
class ReleaseFenceSupport {
public:
  bool operator()(Operation *op);
  LogicalResult use(Operation *op);

private:
  DenseMap<Operation *, bool> allowedIn; // per gpu.module (null: none)
};

} // namespace mlir::mbarrier

#endif // MBARRIER_TARGET_NVPTX_TARGETINFO_H
