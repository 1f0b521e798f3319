//===- CheckSync.cpp - the mbarrier-check-sync pass ------------------------===//
//
// The driver: one SPMD model per function that uses mbarrier ops (on a copy
// with its callees' bodies in place of the calls, SyncCallees.cpp), then the
// analyses of each class family (CheckLifetime.cpp: classes 1, 2, 8;
// CheckCounts.cpp: 3, 4, 5, 6; CheckMemoryOrder.cpp: 7; CheckInit.cpp:
// barriers never initialized or initialized out of order, classes 8 and 1;
// CheckRanks.cpp: ranks outside the cluster, class 9; CheckStagingBuffers.cpp:
// a bulk store's source written before its wait_group.read, class 10;
// CheckNamedBarriers.cpp: named-barrier ids and counts, class 11;
// CheckDeadlock.cpp: the wait-for graph across barriers, class 12). Reports are
// emitted once per op at the end; any error fails the pass. The classes,
// the model and its limits: docs/checker.md.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"
#include "mbarrier/Transforms/Passes.h"

namespace mlir::mbarrier {
#define GEN_PASS_DEF_MBARRIERCHECKSYNC
#include "mbarrier/Transforms/Passes.h.inc"
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
      // final cluster barrier (class 2); one with bulk stores, its waits.
      bool usesBarriers = fn->walk([](Operation *op) {
                              std::optional<UpstreamNamedBarrier> named =
                                  upstreamNamedBarrierOf(op);
                              return isa<MBarrierDialect>(op->getDialect()) ||
                                             isRemoteMemoryAccess(op) ||
                                             bulkStoreSource(op) ||
                                             barWarpSyncMask(op) ||
                                             (named && (named->id ||
                                                        named->threads))
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            }).wasInterrupted();
      if (!usesBarriers)
        return;
      // Callees are analysed in their caller's context: on a copy of the
      // function with their bodies in place of the calls.
      Operation *inlined = inlineCallees(fn);
      FunctionOpInterface target =
          inlined ? cast<FunctionOpInterface>(inlined) : fn;
      SPMDModel model(target);
      Reporter out;
      checkLifetime(target, model, out);
      checkCounts(target, model, out);
      checkMemoryOrder(target, model, out);
      checkInit(target, model, out);
      checkRanks(target, model, out);
      checkStagingBuffers(target, model, out);
      checkWgmmaRelease(target, model, out);
      checkNamedBarriers(target, model, out);
      checkDeadlock(target, model, out);
      checkWarpSync(target, model, out);
      failed |= out.emit(strict);
      if (inlined)
        inlined->destroy();
    });
    if (failed)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
