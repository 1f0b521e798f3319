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

/// The chips the NVPTX backend knows (`llc -march=nvptx64 -mcpu=help`) with
/// the PTX ISA version (x10) it emits for each when no +ptxNN is given.
/// Chips below sm_80 have no mbarrier: their PTX version does not matter.
struct ChipInfo {
  const char *name;
  int sm;
  int defaultPtx;
};
constexpr ChipInfo kChips[] = {
    {"sm_20", 20, 32},   {"sm_21", 21, 32},   {"sm_30", 30, 60},
    {"sm_32", 32, 60},   {"sm_35", 35, 60},   {"sm_37", 37, 60},
    {"sm_50", 50, 60},   {"sm_52", 52, 60},   {"sm_53", 53, 60},
    {"sm_60", 60, 60},   {"sm_61", 61, 60},   {"sm_62", 62, 60},
    {"sm_70", 70, 60},   {"sm_72", 72, 61},   {"sm_75", 75, 63},
    {"sm_80", 80, 70},   {"sm_86", 86, 71},   {"sm_87", 87, 74},
    {"sm_88", 88, 90},   {"sm_89", 89, 78},   {"sm_90", 90, 78},
    {"sm_90a", 90, 80},  {"sm_100", 100, 86}, {"sm_100a", 100, 86},
    {"sm_100f", 100, 88}, {"sm_101", 101, 86}, {"sm_101a", 101, 86},
    {"sm_101f", 101, 88}, {"sm_103", 103, 88}, {"sm_103a", 103, 88},
    {"sm_103f", 103, 88}, {"sm_110", 110, 90}, {"sm_110a", 110, 90},
    {"sm_110f", 110, 90}, {"sm_120", 120, 87}, {"sm_120a", 120, 87},
    {"sm_120f", 120, 88}, {"sm_121", 121, 88}, {"sm_121a", 121, 88},
    {"sm_121f", 121, 88},
};

struct TargetInfo {
  std::string chip;
  std::string features;
  int sm = 0;
  bool archSpecific = false; // the `a` of sm_90a / sm_100a
  int ptx = 0;               // PTX ISA version x10 the backend will emit
};

/// What one op needs from the target. The PTX minimums are those of the
/// NVVM intrinsics the op lowers to: below them the NVPTX backend stops with
/// "LLVM ERROR: Cannot select", so they are checked here first.
struct Requirement {
  int sm = 80; // every mbarrier instruction needs sm_80
  const char *smReason = "mbarrier objects";
  int ptx = 70;
  const char *ptxReason = "mbarrier objects";
  bool tcgen05 = false;

  void needSM(int version, const char *reason) {
    if (version > sm) {
      sm = version;
      smReason = reason;
    }
  }
  void needPTX(int version, const char *reason) {
    if (version > ptx) {
      ptx = version;
      ptxReason = reason;
    }
  }
};

std::optional<TargetInfo> parseTarget(StringRef chip, StringRef features) {
  const ChipInfo *known = llvm::find_if(
      kChips, [&](const ChipInfo &info) { return chip == info.name; });
  if (known == std::end(kChips))
    return std::nullopt;
  TargetInfo info;
  info.chip = chip.str();
  info.features = features.str();
  info.sm = known->sm;
  info.archSpecific = chip.ends_with("a");
  info.ptx = known->defaultPtx;
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  for (StringRef feature : parts) {
    feature = feature.trim();
    int version;
    if (feature.consume_front("+ptx") && !feature.getAsInteger(10, version))
      info.ptx = version;
  }
  return info;
}

Requirement requirementOf(Operation *op) {
  Requirement req;
  // The .sem/.scope qualifiers (sm_90); `.relaxed` (PTX 8.6); the scoped
  // cluster forms (PTX 8.0).
  auto qualifiers = [&](std::optional<Semantics> sem, Scope scope,
                        bool explicitQualifier) {
    if (explicitQualifier)
      req.needSM(90, "the .sem/.scope qualifiers");
    if (scope == Scope::cluster)
      req.needPTX(80, "the .cluster scope");
    if (sem == Semantics::relaxed)
      req.needPTX(86, "sem relaxed");
  };
  auto clusterForm = [&](const char *reason) {
    req.needSM(90, reason);
    req.needPTX(80, reason);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<RemoteViewOp>([&](auto) { req.needSM(90, "a remote view (mapa.shared::cluster)"); })
      .Case<PtrOp>([&](PtrOp ptr) {
        if (isa<RemoteType>(ptr.getBarriers().getType()))
          req.needSM(90, "the shared::cluster address (mapa.shared::cluster)");
      })
      .Case<ArriveOp, ArriveExpectTxOp>([&](auto arrive) {
        if (arrive.isClusterForm())
          clusterForm("the shared::cluster arrive form");
        if (isa<ArriveExpectTxOp>(op))
          clusterForm("mbarrier.arrive.expect_tx");
        if (arrive.getCount())
          clusterForm("a counted arrive");
        qualifiers(arrive.getSem(), arrive.getEffectiveScope(),
                   arrive.getSem() || arrive.getScope());
      })
      .Case<ExpectTxOp>([&](auto) { clusterForm("mbarrier.expect_tx"); })
      .Case<FenceInitOp>([&](auto) { clusterForm("fence.mbarrier_init"); })
      .Case<WaitOp, TryWaitOp, TestWaitOp>([&](auto wait) {
        if (isa<TestWaitOp>(op))
          req.needPTX(71, "mbarrier.test_wait.parity");
        else
          req.needSM(90, "mbarrier.try_wait");
        qualifiers(wait.getSem(), wait.getEffectiveScope(),
                   wait.getSem() || wait.getScope());
      })
      .Case<Tcgen05CommitOp>([&](auto) {
        req.tcgen05 = true;
        req.needPTX(86, "tcgen05.commit");
      });
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
  if (target.ptx < req.ptx)
    return op->emitOpError()
           << "needs PTX ISA " << req.ptx / 10 << "." << req.ptx % 10 << " for "
           << req.ptxReason << ", but the target (" << target.chip
           << ", features '" << target.features << "') emits PTX "
           << target.ptx / 10 << "." << target.ptx % 10 << ": add +ptx"
           << req.ptx << " to the target features";
  return success();
}

/// The NVVM targets that apply to `op`: those of its gpu.module, else the
/// pass options. A target chip the NVPTX backend does not know is an error.
FailureOr<SmallVector<TargetInfo>>
targetsOf(Operation *op, const std::optional<TargetInfo> &fallback) {
  SmallVector<TargetInfo> targets;
  if (auto module = op->getParentOfType<gpu::GPUModuleOp>())
    if (ArrayAttr attrs = module.getTargetsAttr())
      for (Attribute attr : attrs)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr)) {
          std::optional<TargetInfo> info =
              parseTarget(nvvm.getChip(), nvvm.getFeatures());
          if (!info)
            return module.emitOpError()
                   << "targets unknown chip '" << nvvm.getChip()
                   << "': expected one the NVPTX backend knows, e.g. sm_90";
          targets.push_back(*info);
        }
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
    for (StringRef name : kClusterShapeAttrNames) {
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
                               << "': expected one the NVPTX backend knows, e.g. sm_90";
  }
  bool failed = false;
  root->walk([&](Operation *op) {
    if (!isa<MBarrierDialect>(op->getDialect()))
      return WalkResult::advance();
    FailureOr<SmallVector<TargetInfo>> targets = targetsOf(op, fallback);
    if (::mlir::failed(targets)) {
      failed = true;
      return WalkResult::interrupt();
    }
    for (const TargetInfo &target : *targets)
      if (::mlir::failed(checkOp(op, target))) {
        failed = true;
        break;
      }
    return WalkResult::advance();
  });
  return failure(failed);
}
