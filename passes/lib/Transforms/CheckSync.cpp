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

#include "llvm/Support/Debug.h"

#include <chrono>

#define DEBUG_TYPE "mbarrier-check-sync-cost"

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
      // final cluster barrier (class 2); one with bulk stores or cp.async copies, its waits.
      bool usesBarriers = fn->walk([](Operation *op) {
                              std::optional<UpstreamNamedBarrier> named =
                                  upstreamNamedBarrierOf(op);
                              return isa<MBarrierDialect>(op->getDialect()) ||
                                             isRemoteMemoryAccess(op) ||
                                             bulkStoreSource(op) ||
                                             barWarpSyncMask(op) ||
                                             cpAsyncCopyOf(op) ||
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
      // `-debug-only=mbarrier-check-sync-cost`: the time of each family.
      auto start = std::chrono::steady_clock::now();
      auto timed = [&](const char *name, auto &&check) {
        check();
        LLVM_DEBUG({
          auto now = std::chrono::steady_clock::now();
          llvm::dbgs() << "mbarrier-check-sync cost: " << name << " "
                       << std::chrono::duration<double, std::milli>(now - start)
                              .count()
                       << " ms\n";
          start = now;
        });
      };
      std::optional<SPMDModel> built;
      timed("SPMDModel", [&] { built.emplace(target); });
      SPMDModel &model = *built;
      Reporter out;
      timed("lifetime", [&] { checkLifetime(target, model, out); });
      timed("counts", [&] { checkCounts(target, model, out); });
      timed("memory-order", [&] { checkMemoryOrder(target, model, out); });
      timed("init", [&] { checkInit(target, model, out); });
      timed("ranks", [&] { checkRanks(target, model, out); });
      timed("staging-buffers", [&] { checkStagingBuffers(target, model, out); });
      timed("store-sources", [&] { checkStoreSources(target, model, out); });
      timed("wgmma-release", [&] { checkWgmmaRelease(target, model, out); });
      timed("named-barriers", [&] { checkNamedBarriers(target, model, out); });
      timed("ring-counters", [&] { checkRingCounters(target, model, out); });
      timed("deadlock", [&] { checkDeadlock(target, model, out); });
      timed("warp-sync", [&] { checkWarpSync(target, model, out); });
      timed("cp-async-groups", [&] { checkCpAsyncGroups(target, model, out); });
      timed("sequences", [&] { checkSequences(target, model, out); });
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
