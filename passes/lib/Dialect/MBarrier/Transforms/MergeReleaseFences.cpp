//===- MergeReleaseFences.cpp - mbarrier-merge-release-fences -------------===//
//
// k release.cluster arrivals of one thread with nothing to publish between
// them == one fence.release.cluster + k relaxed.cluster arrivals (a release
// fence followed by a strong write is a release pattern: PTX ISA, memory
// consistency model). The argument and its limits: docs/fence-merging.md.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Target/NVPTX/TargetInfo.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERMERGERELEASEFENCES
#include "mbarrier/Dialect/MBarrier/Transforms/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;

namespace {

/// An arrival the pass may merge: release semantics at cluster scope.
bool isReleaseClusterArrive(Operation *op) {
  auto arrive = dyn_cast<MBarrierArrivalOpInterface>(op);
  return arrive && arrive.getEffectiveSem() == Semantics::release &&
         arrive.getEffectiveScope() == Scope::cluster;
}

struct MergeReleaseFencesPass
    : mbarrier::impl::MBarrierMergeReleaseFencesBase<MergeReleaseFencesPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    // From each gpu.module's NVVM target (none: no rewrite there).
    ReleaseFenceSupport allowed;

    SmallVector<SmallVector<Operation *>> groups;
    root->walk([&](Block *block) {
      SmallVector<Operation *> run;
      auto flush = [&] {
        if (run.size() >= 2 && allowed(run.front()))
          groups.push_back(run);
        run.clear();
      };
      for (Operation &op : *block) {
        if (isReleaseClusterArrive(&op))
          run.push_back(&op);
        else if (!isMemoryEffectFree(&op))
          flush();
        // Ops without memory effects may sit between members.
      }
      flush();
    });

    for (ArrayRef<Operation *> group : groups) {
      if (failed(allowed.use(group.front())))
        return signalPassFailure();
      OpBuilder builder(group.front());
      FenceReleaseOp::create(builder, group.front()->getLoc());
      for (Operation *op : group)
        cast<MBarrierArrivalOpInterface>(op).setOrder(Semantics::relaxed,
                                                      Scope::cluster);
    }
  }

};

} // namespace
