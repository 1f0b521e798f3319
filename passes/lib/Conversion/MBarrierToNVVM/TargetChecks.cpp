//===- TargetChecks.cpp - which chip and PTX version each op needs --------===//
//
// A lower target must be a located error naming the op and what it needs,
// never bad PTX and never an LLVM ERROR from instruction selection (for
// example `.relaxed` on PTX < 8.6 aborts in the NVPTX backend).
//
//===----------------------------------------------------------------------===//
#include "PatternCommon.h"
#include "mbarrier/Target/NVPTX/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

namespace {

/// What one op needs from the target, derived from the instruction the
/// lowering emits for it (so `{scope = cta}` spelled out needs no more than
/// the default it equals). The PTX minimums are those of the NVVM intrinsics:
/// below them the NVPTX backend stops with "LLVM ERROR: Cannot select".
struct Requirement {
  unsigned sm = 80; // every mbarrier instruction needs sm_80
  const char *smReason = "mbarrier objects";
  unsigned ptx = 70;
  const char *ptxReason = "mbarrier objects";
  bool tcgen05 = false;

  void needSM(unsigned version, const char *reason) {
    if (version > sm) {
      sm = version;
      smReason = reason;
    }
  }
  void needPTX(unsigned version, const char *reason) {
    if (version > ptx) {
      ptx = version;
      ptxReason = reason;
    }
  }
};

/// Memoizes the default wait scope per function (one walk each).
struct WaitScopes {
  DenseMap<Operation *, Scope> byFunction;
  Scope of(MBarrierWaitOpInterface wait) {
    if (std::optional<Scope> scope = wait.getScope())
      return *scope;
    Operation *fn = wait->getParentOfType<FunctionOpInterface>().getOperation();
    auto [it, inserted] = byFunction.try_emplace(fn, Scope::cta);
    if (inserted)
      it->second = getDefaultWaitScope(wait);
    return it->second;
  }
};

Requirement requirementOf(Operation *op, WaitScopes &waitScopes) {
  Requirement req;
  // The .sem/.scope qualifiers appear in the instruction only for a
  // `.cluster` scope or `.relaxed`: sm_90, PTX 8.0 / 8.6.
  auto qualifiers = [&](Semantics sem, Scope scope) {
    if (scope == Scope::cluster) {
      req.needSM(90, "the .cluster scope");
      req.needPTX(80, "the .cluster scope");
    }
    if (sem == Semantics::relaxed) {
      req.needSM(90, "sem relaxed");
      req.needPTX(86, "sem relaxed");
    }
  };
  auto clusterForm = [&](const char *reason) {
    req.needSM(90, reason);
    req.needPTX(80, reason);
  };
  auto mapa = [&](Value barriers) {
    if (isa<RemoteType>(barriers.getType())) {
      req.needSM(90, "the shared::cluster address (mapa.shared::cluster)");
      req.needPTX(78, "the shared::cluster address (mapa.shared::cluster)");
    }
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<PtrOp>([&](PtrOp ptr) { mapa(ptr.getBarriers()); })
      .Case<ArriveOp, ArriveExpectTxOp>([&](auto arrive) {
        if (arrive.isClusterForm())
          clusterForm("the shared::cluster arrive form");
        if (isa<ArriveExpectTxOp>(op))
          clusterForm("mbarrier.arrive.expect_tx");
        if (arrive.getCount())
          clusterForm("a counted arrive");
        qualifiers(arrive.getEffectiveSem(), arrive.getEffectiveScope());
      })
      .Case<ExpectTxOp>([&](auto) { clusterForm("mbarrier.expect_tx"); })
      .Case<FenceInitOp>([&](auto) { clusterForm("fence.mbarrier_init"); })
      .Case<FenceReleaseOp>([&](FenceReleaseOp fence) {
        const char *what = fence.getSharedCta()
                               ? "fence.release.sync_restrict::shared::cta.cluster"
                               : "fence.release.cluster";
        req.needSM(90, what);
        req.needPTX(86, what);
      })
      .Case<MBarrierWaitOpInterface>([&](MBarrierWaitOpInterface wait) {
        if (isa<TestWaitOp>(op))
          req.needPTX(71, "mbarrier.test_wait.parity");
        else
          req.needSM(90, "mbarrier.try_wait");
        qualifiers(wait.getEffectiveSem(), waitScopes.of(wait));
      })
      .Case<CpAsyncBulkTensorOp>([&](CpAsyncBulkTensorOp copy) {
        // .multicast::cluster is a cluster form of the same instruction.
        clusterForm("cp.async.bulk.tensor");
      })
      .Case<Tcgen05CommitOp>([&](Tcgen05CommitOp commit) {
        req.tcgen05 = true;
        req.needPTX(86, "tcgen05.commit");
        mapa(commit.getBarriers());
      });
  return req;
}

/// What an upstream NVVM op lowered beside ours needs, where its intrinsic
/// stops instruction selection below it ("LLVM ERROR: Cannot select"): the
/// bulk copies and their groups (sm_90, PTX 8.0), and the copy into the
/// CTA's own shared memory (a `!llvm.ptr<3>` destination lowers to the
/// `.shared::cta` form, PTX ISA 8.6). Other NVVM ops are not checked.
std::optional<Requirement> nvvmRequirementOf(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.starts_with("nvvm.cp.async.bulk."))
    return std::nullopt;
  Requirement req;
  req.sm = 0;
  req.ptx = 0;
  req.needSM(90, "cp.async.bulk");
  req.needPTX(80, "cp.async.bulk");
  if (name == "nvvm.cp.async.bulk.shared.cluster.global" &&
      op->getNumOperands() > 0)
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(op->getOperand(0).getType());
        ptr && ptr.getAddressSpace() == 3)
      req.needPTX(86, "cp.async.bulk into .shared::cta (a !llvm.ptr<3> "
                      "destination)");
  return req;
}

LogicalResult checkOp(Operation *op, const NVPTXTarget &target,
                      WaitScopes &waitScopes) {
  Requirement req = isa<MBarrierDialect>(op->getDialect())
                        ? requirementOf(op, waitScopes)
                        : nvvmRequirementOf(op).value_or(Requirement{0, "", 0, ""});
  if (req.tcgen05 && !(target.archSpecific && (target.sm == 100 || target.sm == 101)))
    return op->emitOpError() << "needs sm_100a or sm_101a (tcgen05.commit), but "
                                "the target chip is "
                             << target.chip;
  if (target.sm < req.sm)
    return op->emitOpError() << "needs sm_" << req.sm << " or newer for "
                             << req.smReason << ", but the target chip is "
                             << target.chip;
  if (target.ptx() < req.ptx)
    return op->emitOpError()
           << "needs PTX ISA " << req.ptx / 10 << "." << req.ptx % 10 << " for "
           << req.ptxReason << ", but the target (" << target.chip
           << ", features '" << target.features << "') emits PTX "
           << target.ptx() / 10 << "." << target.ptx() % 10
           << ": raise it to +ptx" << roundUpPTXVersion(req.ptx).value_or(req.ptx)
           << ", or give no features to derive the version";
  return success();
}

/// The NVVM targets that apply to `op`: those of its gpu.module (none
/// outside a targeted module). An invalid target is a located error.
FailureOr<SmallVector<NVPTXTarget>> targetsOf(Operation *op) {
  SmallVector<NVPTXTarget> targets;
  if (auto module = op->getParentOfType<gpu::GPUModuleOp>())
    if (ArrayAttr attrs = module.getTargetsAttr())
      for (Attribute attr : attrs)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr)) {
          FailureOr<NVPTXTarget> target =
              parseNVPTXTarget(nvvm.getChip(), nvvm.getFeatures(),
                               [&] { return module.emitOpError() << "target: "; });
          if (failed(target))
            return failure();
          targets.push_back(*target);
        }
  return targets;
}

} // namespace

/// The launch shapes declared by every function are ones a launch can have,
/// and no kernel takes a barrier group as a parameter: the NVPTX backend
/// asserts on `.reqnctapercluster` with a zero, and ptxas accepts shapes no
/// launch can have.
static LogicalResult checkFunctions(Operation *root) {
  bool failed = false;
  root->walk([&](FunctionOpInterface fn) {
    if (::mlir::failed(verifyLaunchShape(fn, [&] { return fn.emitOpError(); })))
      failed = true;
    if (!isKernelFunction(fn))
      return;
    for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
      if (isa<GroupType, RemoteType>(type)) {
        fn.emitOpError() << "kernel parameter #" << i << " cannot be " << type
                         << " (a shared-memory address means nothing outside "
                            "its CTA); make the group inside the kernel with "
                            "mbarrier.alloc or mbarrier.view";
        failed = true;
      }
  });
  return failure(failed);
}

LogicalResult mbarrier::checkMBarrierTargetSupport(Operation *root) {
  if (failed(checkFunctions(root)))
    return failure();
  WaitScopes waitScopes;
  bool failed = false;
  root->walk([&](Operation *op) {
    if (!isa<MBarrierDialect>(op->getDialect()) && !nvvmRequirementOf(op))
      return WalkResult::advance();
    FailureOr<SmallVector<NVPTXTarget>> targets = targetsOf(op);
    if (::mlir::failed(targets)) {
      failed = true;
      return WalkResult::interrupt();
    }
    for (const NVPTXTarget &target : *targets)
      if (::mlir::failed(checkOp(op, target, waitScopes))) {
        failed = true;
        break;
      }
    return WalkResult::advance();
  });
  return failure(failed);
}

/// The PTX version an upstream NVVM op needs, for deriving a default (the
/// NVVM dialect does not say). Ops whose needs we do not list get the
/// version of CUDA 12.8 (PTX 8.6), which every chip from sm_90 on takes and
/// the bundled ptxas assembles: below what the op needs, the NVPTX backend
/// would abort ("Cannot select", e.g. cp.async.bulk into .shared::cta needs
/// PTX 8.6).
static unsigned nvvmOpPTX(Operation *op) {
  static constexpr std::pair<StringLiteral, unsigned> kKnown[] = {
      {"nvvm.read.ptx.sreg.", 0}, {"nvvm.barrier", 0},
      {"nvvm.shfl.", 0},          {"nvvm.vote.", 0},
      {"nvvm.cluster.arrive", 78}, {"nvvm.cluster.wait", 78},
      {"nvvm.mapa", 78},
  };
  StringRef name = op->getName().getStringRef();
  for (auto [prefix, ptx] : kKnown)
    if (name.starts_with(prefix))
      return ptx;
  return kUnlistedNVVMOpPTX;
}

unsigned mbarrier::getRequiredPTXVersion(Operation *root) {
  WaitScopes waitScopes;
  unsigned ptx = 0;
  root->walk([&](Operation *op) {
    if (isa<MBarrierDialect>(op->getDialect()))
      ptx = std::max(ptx, requirementOf(op, waitScopes).ptx);
    else if (isa<NVVM::NVVMDialect>(op->getDialect()))
      ptx = std::max({ptx, nvvmOpPTX(op),
                      nvvmRequirementOf(op).value_or(Requirement{0, "", 0, ""}).ptx});
  });
  return ptx;
}

void mbarrier::materializeDefaultWaitScopes(Operation *root) {
  WaitScopes waitScopes;
  root->walk([&](Operation *op) {
    if (auto wait = dyn_cast<MBarrierWaitOpInterface>(op))
      if (!wait.getScope())
        wait.setScope(waitScopes.of(wait));
  });
}
