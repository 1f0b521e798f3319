//===- TargetChecks.cpp - which chip and PTX version each op needs --------===//
//
// A lower target must be a located error naming the op and what it needs,
// never bad PTX and never an LLVM ERROR from instruction selection (for
// example `.relaxed` on PTX < 8.6 aborts in the NVPTX backend).
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

namespace {

struct TargetInfo {
  std::string chip;
  std::string features;
  int sm = 0;
  bool archSpecific = false; // the `a` of sm_90a / sm_100a
  int ptx = 0;               // PTX ISA version x10 the backend will emit
};

/// What one op needs from the target.
struct Requirement {
  int sm = 80; // every mbarrier instruction needs sm_80
  const char *smReason = "mbarrier objects";
  bool tcgen05 = false;
  bool relaxed = false;
};

std::optional<TargetInfo> parseTarget(StringRef chip, StringRef features) {
  TargetInfo info;
  info.chip = chip.str();
  info.features = features.str();
  StringRef digits = chip;
  if (!digits.consume_front("sm_"))
    return std::nullopt;
  info.archSpecific = digits.consume_back("a") || digits.consume_back("f");
  if (digits.getAsInteger(10, info.sm))
    return std::nullopt;
  // The NVPTX backend's default PTX version for the chip, unless a +ptxNN
  // feature asks for another.
  info.ptx = info.sm >= 120 ? 87 : info.sm >= 100 ? 86 : info.sm >= 90 ? 78 : 70;
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  for (StringRef feature : parts) {
    int version;
    if (feature.trim().consume_front("+ptx") &&
        !feature.trim().drop_front(4).getAsInteger(10, version))
      info.ptx = version;
  }
  return info;
}

Requirement requirementOf(Operation *op) {
  Requirement req;
  auto needsSM90 = [&](const char *reason) {
    req.sm = 90;
    req.smReason = reason;
  };
  auto qualifiers = [&](std::optional<Semantics> sem,
                        std::optional<Scope> scope) {
    if (sem == Semantics::relaxed)
      req.relaxed = true;
    if ((sem || scope) && req.sm < 90)
      needsSM90("the .sem/.scope qualifiers");
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<RemoteViewOp>([&](auto) { needsSM90("a remote view (mapa.shared::cluster)"); })
      .Case<PtrOp>([&](PtrOp ptr) {
        if (isa<RemoteType>(ptr.getBarriers().getType()))
          needsSM90("the shared::cluster address (mapa.shared::cluster)");
      })
      .Case<ArriveOp>([&](ArriveOp arrive) {
        if (arrive.isClusterForm())
          needsSM90("the shared::cluster arrive form");
        qualifiers(arrive.getSem(), arrive.getScope());
      })
      .Case<ArriveExpectTxOp>([&](ArriveExpectTxOp arrive) {
        needsSM90("mbarrier.arrive.expect_tx");
        qualifiers(arrive.getSem(), arrive.getScope());
      })
      .Case<ExpectTxOp>([&](auto) { needsSM90("mbarrier.expect_tx"); })
      .Case<FenceInitOp>([&](auto) { needsSM90("fence.mbarrier_init"); })
      .Case<WaitOp, TryWaitOp>([&](auto wait) {
        needsSM90("mbarrier.try_wait");
        qualifiers(wait.getSem(), wait.getScope());
      })
      .Case<TestWaitOp>([&](TestWaitOp wait) {
        qualifiers(wait.getSem(), wait.getScope());
      })
      .Case<Tcgen05CommitOp>([&](auto) { req.tcgen05 = true; });
  return req;
}

LogicalResult checkOp(Operation *op, const TargetInfo &target) {
  Requirement req = requirementOf(op);
  if (req.tcgen05 && !(target.archSpecific && (target.sm == 100 || target.sm == 101)))
    return op->emitOpError() << "needs sm_100a or sm_101a (tcgen05.commit), but "
                                "the target chip is "
                             << target.chip;
  if (target.sm < req.sm)
    return op->emitOpError() << "needs sm_" << req.sm << " or newer for "
                             << req.smReason << ", but the target chip is "
                             << target.chip;
  if (req.relaxed && target.ptx < 86)
    return op->emitOpError()
           << "sem relaxed needs PTX ISA 8.6, but the target (" << target.chip
           << ", features '" << target.features << "') emits PTX "
           << target.ptx / 10 << "." << target.ptx % 10
           << ": add +ptx86 to the target features";
  return success();
}

/// The NVVM targets that apply to `op`: those of its gpu.module, else the
/// pass options.
SmallVector<TargetInfo> targetsOf(Operation *op,
                                  const std::optional<TargetInfo> &fallback) {
  SmallVector<TargetInfo> targets;
  if (auto module = op->getParentOfType<gpu::GPUModuleOp>())
    if (ArrayAttr attrs = module.getTargetsAttr())
      for (Attribute attr : attrs)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
          if (auto info = parseTarget(nvvm.getChip(), nvvm.getFeatures()))
            targets.push_back(*info);
  if (targets.empty() && fallback)
    targets.push_back(*fallback);
  return targets;
}

} // namespace

/// A declared cluster shape must be positive in every dimension: the NVPTX
/// backend asserts on `.reqnctapercluster` with a zero.
static LogicalResult checkClusterShapes(Operation *root) {
  bool failed = false;
  root->walk([&](Operation *op) {
    for (StringRef name : {"known_cluster_size", "nvvm.cluster_dim"}) {
      auto dims = op->getAttrOfType<DenseI32ArrayAttr>(name);
      if (dims && llvm::any_of(dims.asArrayRef(), [](int32_t d) { return d < 1; })) {
        op->emitOpError() << "'" << name
                          << "' must be positive in every dimension, got "
                          << dims;
        failed = true;
      }
    }
  });
  return failure(failed);
}

LogicalResult mbarrier::checkMBarrierTargetSupport(Operation *root,
                                                   StringRef chip,
                                                   StringRef features) {
  if (failed(checkClusterShapes(root)))
    return failure();
  std::optional<TargetInfo> fallback;
  if (!chip.empty()) {
    fallback = parseTarget(chip, features);
    if (!fallback)
      return root->emitError() << "unknown chip '" << chip
                               << "': expected sm_<number>[a], e.g. sm_90";
  }
  bool failed = false;
  root->walk([&](Operation *op) {
    if (!isa<MBarrierDialect>(op->getDialect()))
      return;
    for (const TargetInfo &target : targetsOf(op, fallback))
      if (::mlir::failed(checkOp(op, target))) {
        failed = true;
        break;
      }
  });
  return failure(failed);
}
