//===- TargetInfo.cpp - reading and raising a gpu.module's NVVM target ----===//
#include "mbarrier/Target/NVPTX/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::mbarrier;

bool mbarrier::isPTXDerived(gpu::GPUModuleOp module) {
  return module && module->hasAttr(kDerivedPTXAttrName);
}

/// Calls `fn` with each NVVM target attribute of `module` and its parse;
/// false if one does not parse (reported by nobody here).
static bool forEachNVVMTarget(
    gpu::GPUModuleOp module,
    function_ref<void(unsigned, NVVM::NVVMTargetAttr, const NVPTXTarget &)> fn) {
  if (!module)
    return true;
  ArrayAttr attrs = module.getTargetsAttr();
  if (!attrs)
    return true;
  ScopedDiagnosticHandler silence(module.getContext(),
                                  [](Diagnostic &) { return success(); });
  for (auto [i, attr] : llvm::enumerate(attrs)) {
    auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
    if (!nvvm)
      continue;
    FailureOr<NVPTXTarget> target = parseNVPTXTarget(
        nvvm.getChip(), nvvm.getFeatures(), [&] { return module.emitError(); });
    if (failed(target))
      return false;
    fn(i, nvvm, *target);
  }
  return true;
}

SmallVector<NVPTXTarget> mbarrier::getNVPTXTargets(gpu::GPUModuleOp module) {
  SmallVector<NVPTXTarget> targets;
  if (!forEachNVVMTarget(module, [&](unsigned, NVVM::NVVMTargetAttr,
                                     const NVPTXTarget &target) {
        targets.push_back(target);
      }))
    return {};
  return targets;
}

static bool canUse(const NVPTXTarget &target, bool derived, unsigned sm,
                   unsigned ptx) {
  if (target.sm < sm)
    return false;
  if (target.ptx() >= ptx)
    return true;
  return derived && roundUpPTXVersion(ptx).has_value();
}

bool mbarrier::canUsePTX(gpu::GPUModuleOp module, unsigned sm, unsigned ptx) {
  SmallVector<NVPTXTarget> targets = getNVPTXTargets(module);
  bool hasTargets = module && module.getTargetsAttr() &&
                    !module.getTargetsAttr().empty();
  if (!hasTargets)
    return false;
  if (targets.empty())
    return false; // invalid: reported by attach-target / the conversion
  bool derived = isPTXDerived(module);
  return llvm::all_of(targets, [&](const NVPTXTarget &target) {
    return canUse(target, derived, sm, ptx);
  });
}

LogicalResult mbarrier::raiseDerivedPTXVersion(gpu::GPUModuleOp module,
                                               unsigned ptx) {
  if (!isPTXDerived(module))
    return success();
  SmallVector<Attribute> attrs(module.getTargetsAttr().begin(),
                               module.getTargetsAttr().end());
  bool changed = false, failedRaise = false;
  forEachNVVMTarget(module, [&](unsigned i, NVVM::NVVMTargetAttr nvvm,
                                const NVPTXTarget &target) {
    if (target.ptx() >= ptx || failedRaise)
      return;
    std::optional<unsigned> version = roundUpPTXVersion(ptx);
    if (!version) {
      failedRaise = true;
      return;
    }
    attrs[i] = NVVM::NVVMTargetAttr::get(
        module.getContext(), nvvm.getO(), nvvm.getTriple(), nvvm.getChip(),
        "+ptx" + std::to_string(*version), nvvm.getFlags(), nvvm.getLink(),
        nvvm.getVerifyTarget());
    changed = true;
  });
  if (failedRaise)
    return module.emitOpError()
           << "needs PTX ISA " << ptx / 10 << "." << ptx % 10
           << ", which this NVPTX backend does not know";
  if (changed)
    module.setTargetsAttr(ArrayAttr::get(module.getContext(), attrs));
  return success();
}

bool ReleaseFenceSupport::operator()(Operation *op) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  auto [it, inserted] = allowedIn.try_emplace(module, false);
  if (inserted)
    it->second = canUsePTX(module, /*sm=*/90, kRelaxedPTX);
  return it->second;
}

LogicalResult ReleaseFenceSupport::use(Operation *op) {
  return raiseDerivedPTXVersion(op->getParentOfType<gpu::GPUModuleOp>(),
                                kRelaxedPTX);
}

std::optional<StringRef> mlir::mbarrier::getNVVMTargetChip(Attribute attr) {
  if (auto target = dyn_cast_or_null<NVVM::NVVMTargetAttr>(attr))
    return target.getChip();
  return std::nullopt;
}
