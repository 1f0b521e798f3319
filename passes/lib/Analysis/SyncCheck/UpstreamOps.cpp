//===- UpstreamOps.cpp - what the checker knows of upstream ops ----------===//
//
// Typed checks of the nvvm, gpu, scf and llvm ops the checker understands,
// and the inline-PTX text it recognizes, in one place.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/UpstreamOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier::checksync;

SpecialReg checksync::specialRegisterOf(Operation *op) {
  using R = SpecialReg;
  R reg = llvm::TypeSwitch<Operation *, R>(op)
              .Case([](NVVM::ThreadIdXOp) { return R::TidX; })
              .Case([](NVVM::ThreadIdYOp) { return R::TidY; })
              .Case([](NVVM::ThreadIdZOp) { return R::TidZ; })
              .Case([](NVVM::BlockDimXOp) { return R::NTidX; })
              .Case([](NVVM::BlockDimYOp) { return R::NTidY; })
              .Case([](NVVM::BlockDimZOp) { return R::NTidZ; })
              .Case([](NVVM::LaneIdOp) { return R::LaneId; })
              .Case([](NVVM::WarpSizeOp) { return R::WarpSize; })
              .Case([](NVVM::BlockIdXOp) { return R::CtaIdX; })
              .Case([](NVVM::BlockIdYOp) { return R::CtaIdY; })
              .Case([](NVVM::BlockIdZOp) { return R::CtaIdZ; })
              .Case([](NVVM::GridDimXOp) { return R::NCtaIdX; })
              .Case([](NVVM::GridDimYOp) { return R::NCtaIdY; })
              .Case([](NVVM::GridDimZOp) { return R::NCtaIdZ; })
              .Case([](NVVM::ClusterId) { return R::ClusterCtaRank; })
              .Case([](NVVM::ClusterDim) { return R::ClusterNCtaRank; })
              .Case([](NVVM::BlockInClusterIdXOp) { return R::ClusterCtaIdX; })
              .Case([](NVVM::BlockInClusterIdYOp) { return R::ClusterCtaIdY; })
              .Case([](NVVM::BlockInClusterIdZOp) { return R::ClusterCtaIdZ; })
              .Case([](NVVM::ClusterDimBlocksXOp) { return R::ClusterNCtaIdX; })
              .Case([](NVVM::ClusterDimBlocksYOp) { return R::ClusterNCtaIdY; })
              .Case([](NVVM::ClusterDimBlocksZOp) { return R::ClusterNCtaIdZ; })
              .Case([](NVVM::ClusterIdXOp) { return R::ClusterIdX; })
              .Case([](NVVM::ClusterIdYOp) { return R::ClusterIdY; })
              .Case([](NVVM::ClusterIdZOp) { return R::ClusterIdZ; })
              .Case([](NVVM::ClusterDimXOp) { return R::NClusterIdX; })
              .Case([](NVVM::ClusterDimYOp) { return R::NClusterIdY; })
              .Case([](NVVM::ClusterDimZOp) { return R::NClusterIdZ; })
              .Default([](Operation *) { return R::None; });
  // The other special registers (%warpid, %clock, %smid, %envregN, ...)
  // have no common trait: they are known by their op name's prefix.
  if (reg == R::None &&
      op->getName().getStringRef().starts_with("nvvm.read.ptx.sreg."))
    return R::Other;
  return reg;
}

bool checksync::isElectSync(Operation *op) { return isa<NVVM::ElectSyncOp>(op); }

bool checksync::isCTABarrier(Operation *op) {
  return isa<NVVM::Barrier0Op, NVVM::BarrierOp, gpu::BarrierOp>(op);
}

std::optional<UpstreamNamedBarrier>
checksync::upstreamNamedBarrierOf(Operation *op) {
  if (auto sync = dyn_cast<NVVM::BarrierOp>(op))
    return UpstreamNamedBarrier{sync.getBarrierId(), sync.getNumberOfThreads(),
                                true};
  if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(op))
    return UpstreamNamedBarrier{arrive.getBarrierId(),
                                arrive.getNumberOfThreads(), false};
  if (isa<NVVM::Barrier0Op, gpu::BarrierOp>(op))
    return UpstreamNamedBarrier{Value(), Value(), true};
  return std::nullopt;
}

StringRef checksync::inlinePTX(Operation *op) {
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return asmOp.getAsmString();
  return "";
}

bool checksync::isClusterArrive(Operation *op, bool *relaxed) {
  StringRef ptx = inlinePTX(op);
  if (ptx.contains("barrier.cluster.arrive")) {
    if (relaxed)
      *relaxed = ptx.contains("barrier.cluster.arrive.relaxed");
    return true;
  }
  if (isa<NVVM::ClusterArriveOp>(op)) {
    if (relaxed)
      *relaxed = false;
    return true;
  }
  if (isa<NVVM::ClusterArriveRelaxedOp>(op)) {
    if (relaxed)
      *relaxed = true;
    return true;
  }
  return false;
}

bool checksync::isClusterWait(Operation *op) {
  return isa<NVVM::ClusterWaitOp>(op) ||
         inlinePTX(op).contains("barrier.cluster.wait");
}

bool checksync::isUpstreamReleaseFence(Operation *op) {
  if (auto fence = dyn_cast<LLVM::FenceOp>(op)) {
    StringRef scope = fence.getSyncscope().value_or("");
    if (scope == "block" || scope == "cta" || scope == "singlethread")
      return false;
    auto ordering = fence.getOrdering();
    return ordering == LLVM::AtomicOrdering::release ||
           ordering == LLVM::AtomicOrdering::acq_rel ||
           ordering == LLVM::AtomicOrdering::seq_cst;
  }
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
    // Inline PTX: fence.{acq_rel,sc,release}.{cluster,gpu,sys} or membar.
    StringRef text = asmOp.getAsmString();
    bool fence = text.contains("fence.acq_rel") || text.contains("fence.sc") ||
                 text.contains("fence.release") || text.contains("membar.gl") ||
                 text.contains("membar.sys");
    return fence && !text.contains(".cta") && !text.contains("sync_restrict");
  }
  return isa<NVVM::FenceScClusterOp, NVVM::MembarOp, NVVM::FenceSyncRestrictOp,
             NVVM::FenceProxyReleaseOp>(op);
}

bool checksync::isStore(Operation *op) {
  if (isa<LLVM::StoreOp, NVVM::StMatrixOp>(op))
    return true;
  // memref.store, vector.store and the other writes to a memref.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> writes;
  effects.getEffects<MemoryEffects::Write>(writes);
  return llvm::any_of(writes, [](const MemoryEffects::EffectInstance &e) {
    return e.getValue() && isa<BaseMemRefType>(e.getValue().getType());
  });
}

bool checksync::isLoop(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp,
             LoopLikeOpInterface>(op);
}

bool checksync::isForLoop(Operation *op) { return isa<scf::ForOp>(op); }
bool checksync::isIfOp(Operation *op) { return isa<scf::IfOp>(op); }
bool checksync::isIndexSwitch(Operation *op) {
  return isa<scf::IndexSwitchOp>(op);
}

bool checksync::isBulkCopy(Operation *op) {
  return isa<NVVM::CpAsyncBulkCommitGroupOp, NVVM::CpAsyncBulkSharedCTAToGlobalOp,
             NVVM::CpAsyncBulkPrefetchOp, NVVM::CpAsyncBulkGlobalToSharedClusterOp,
             NVVM::CpAsyncBulkSharedCTAToSharedClusterOp,
             NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp,
             NVVM::CpAsyncBulkTensorPrefetchOp, NVVM::CpAsyncBulkTensorReduceOp,
             NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp,
             NVVM::CpAsyncBulkWaitGroupOp>(op);
}
