//===- FenceSupport.h - where fence.release and .relaxed exist -*- C++ -*-===//
//
// `fence.release.cluster`, its `sync_restrict::shared::cta` form and the
// `.relaxed` arrive need sm_90 and PTX 8.6. The passes that emit them
// (mbarrier-merge-release-fences, mbarrier-lower-pipes) ask here, per
// gpu.module, and keep the release arrive where a target lacks them.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_CONVERSION_FENCESUPPORT_H
#define MBARRIER_CONVERSION_FENCESUPPORT_H

#include "mbarrier/Target/NVPTX/NVPTXTargets.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::mbarrier {

/// The PTX version of `fence.release` and of the `.relaxed` arrive.
inline constexpr unsigned kRelaxedPTX = 86;

/// Whether a target can emit them: sm_90 and PTX 8.6, or, for a target
/// whose PTX version is still to be derived (`derivable`), a backend that
/// knows 8.6.
inline bool supportsReleaseFence(const NVPTXTarget &target, bool derivable) {
  if (target.sm < 90)
    return false;
  if (target.explicitPtx || !derivable)
    return target.ptx() >= kRelaxedPTX;
  return roundUpPTXVersion(kRelaxedPTX).has_value();
}

/// Every NVVM target of `module` supports them; with none, `fallback` (the
/// pass options' answer) says. An invalid target is left to
/// mbarrier-attach-target and the lowering to report: false, and no
/// diagnostic from here.
inline bool moduleAllowsReleaseFence(gpu::GPUModuleOp module,
                                     std::optional<bool> fallback) {
  SmallVector<NVVM::NVVMTargetAttr> targets;
  if (module)
    if (ArrayAttr attrs = module.getTargetsAttr())
      for (Attribute attr : attrs)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
          targets.push_back(nvvm);
  if (targets.empty())
    return fallback.value_or(false);
  ScopedDiagnosticHandler silence(module.getContext(),
                                  [](Diagnostic &) { return success(); });
  return llvm::all_of(targets, [&](NVVM::NVVMTargetAttr nvvm) {
    FailureOr<NVPTXTarget> target = parseNVPTXTarget(
        nvvm.getChip(), nvvm.getFeatures(), [&] { return module.emitError(); });
    return succeeded(target) &&
           supportsReleaseFence(*target, /*derivable=*/false);
  });
}

/// The answer per op, for a pass with `chip`/`features` options: from the
/// targets of the op's gpu.module (cached per module), else from the options
/// (none when `chip` is empty: no).
class ReleaseFenceSupport {
public:
  /// Fails (after reporting at `root`) when the options name no valid target.
  static FailureOr<ReleaseFenceSupport> get(Operation *root, StringRef chip,
                                            StringRef features) {
    ReleaseFenceSupport support;
    if (chip.empty())
      return support;
    FailureOr<NVPTXTarget> target =
        parseNVPTXTarget(chip, features, [&] { return root->emitError(); });
    if (failed(target))
      return failure();
    support.fallback = supportsReleaseFence(*target, /*derivable=*/true);
    return support;
  }

  bool operator()(Operation *op) {
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    auto [it, inserted] = allowedIn.try_emplace(module, false);
    if (inserted)
      it->second = moduleAllowsReleaseFence(module, fallback);
    return it->second;
  }

private:
  std::optional<bool> fallback;
  DenseMap<Operation *, bool> allowedIn; // per gpu.module (null: none)
};

} // namespace mlir::mbarrier

#endif // MBARRIER_CONVERSION_FENCESUPPORT_H
