//===- AttachTarget.cpp - mbarrier-attach-target --------------------------===//
//
// Upstream's gpu-nvvm-attach-target appends a target to every module, also
// to one that has its own, and applies one feature string to every chip
// (`+ptx86` on sm_120 aborts in the NVPTX backend). This pass keeps a
// module's own targets; the PTX version it gives is the user's or the chip's
// minimum, marked derived (TargetInfo.h) for later passes to raise.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Target/NVPTX/Passes.h"
#include "mbarrier/Target/NVPTX/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERATTACHTARGET
#include "mbarrier/Target/NVPTX/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

namespace {
struct MBarrierAttachTargetPass
    : mbarrier::impl::MBarrierAttachTargetBase<MBarrierAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned level = optLevel; // an Option<unsigned> streams as a char
    if (level > 3) {
      getOperation().emitError()
          << "optimization level " << level << " is not one of 0, 1, 2, 3";
      return signalPassFailure();
    }
    FailureOr<NVPTXTarget> requested = parseNVPTXTarget(
        chip, features, [&] { return getOperation().emitError(); });
    if (failed(requested))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    bool failed = false;
    getOperation().walk([&](gpu::GPUModuleOp module) {
      if (ArrayAttr targets = module.getTargetsAttr()) {
        // Keep the module's own targets; validate the NVVM ones.
        for (Attribute attr : targets)
          if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
            if (::mlir::failed(parseNVPTXTarget(
                    nvvm.getChip(), nvvm.getFeatures(),
                    [&] { return module.emitOpError() << "target: "; })))
              failed = true;
        if (!targets.empty())
          return;
      }
      // The user's features, or the chip's minimum PTX version, derived:
      // later passes raise it to what the instructions they emit need.
      auto target = NVVM::NVVMTargetAttr::get(
          ctx, optLevel, "nvptx64-nvidia-cuda", requested->chip,
          requested->features);
      module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
      if (!requested->explicitPtx)
        module->setAttr(kDerivedPTXAttrName, UnitAttr::get(ctx));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
