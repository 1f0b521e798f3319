//===- CheckSync.cpp - the mbarrier-check-sync pass ------------------------===//
//
// The driver: one SPMD model per function that uses mbarrier ops, then the
// analyses of each class family (CheckLifetime.cpp: classes 1, 2, 8;
// CheckCounts.cpp: 3, 4, 5, 6; CheckMemoryOrder.cpp: 7; CheckInit.cpp:
// barriers never initialized or initialized out of order, classes 8 and 1;
// CheckRanks.cpp: ranks outside the cluster, class 9). Reports are
// emitted once per op at the end; any error fails the pass. The classes,
// the model and its limits: docs/checker.md.
//
//===----------------------------------------------------------------------===//
#include "SyncModel.h"
#include "mbarrier/Conversion/Passes.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERCHECKSYNC
#include "mbarrier/Conversion/Passes.h.inc"
} // namespace mlir::mbarrier

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

namespace {
struct MBarrierCheckSyncPass
    : mbarrier::impl::MBarrierCheckSyncBase<MBarrierCheckSyncPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](FunctionOpInterface fn) {
      if (fn.isExternal())
        return;
      // A kernel with DSMEM accesses and no barrier op still needs its
      // final cluster barrier (class 2).
      bool usesBarriers = fn->walk([](Operation *op) {
                              return isa<MBarrierDialect>(op->getDialect()) ||
                                             isRemoteMemoryAccess(op)
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            }).wasInterrupted();
      if (!usesBarriers)
        return;
      SPMDModel model(fn);
      Reporter out;
      checkLifetime(fn, model, out);
      checkCounts(fn, model, out);
      checkMemoryOrder(fn, model, out);
      checkInit(fn, model, out);
      checkRanks(fn, model, out);
      failed |= out.emit(strict);
    });
    if (failed)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
