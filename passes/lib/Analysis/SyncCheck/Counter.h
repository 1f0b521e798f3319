//===- Counter.h - the counting of mbarrier-check-sync (internal) -*- C++ -*-===//
//
// The arrivals, transaction bytes and copies of a function per barrier and
// context, shared by CheckCounts.cpp (classes 3, 4, 6) and CheckPhases.cpp
// (class 5: parities and phases across trips and loops).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H
#define MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H

#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include <map>

namespace mlir::mbarrier::checksync::counting {

/// Amounts per receiving CTA rank.
using PerRank = SmallVector<int64_t>;

/// The innermost loop around `op` inside `fn`, or `fn`.
Operation *contextOf(Operation *op, Operation *fn);

/// The bulk copy ops whose `mbar` operand the counting understands, with
/// their byte count and multicast mask.
struct Copy {
  Value mbar, size, mask;
};
std::optional<Copy> copyOf(Operation *op);

/// One op that arrives on, or brings transaction bytes to, a barrier.
struct Event {
  Operation *op;
  BarrierKey key;
  Operation *context;
  bool arrival;          // counts toward the arrival count
  Value amount;          // arrivals (null: 1) or bytes
  Value pred;            // `if %pred`
  Value rank;            // target rank operand (remote view or `on`)
  std::optional<int64_t> rankAttr;
  bool local = false;    // the executing CTA's own barrier
  Value mask;            // multicast mask (i16)
  std::optional<int64_t> constAmount; // a stated amount (a tensor copy's bytes)
};

class Counter {
public:
  Counter(FunctionOpInterface fn, SPMDModel &model, Reporter &out)
      : fn(fn), model(model), out(out) {}
  void run();

private:
  void collect();
  void collectCopies(PtrOp ptr);
  bool closedWorld(Value root);
  std::optional<PerRank> perRank(const Event &event);
  /// perRank, once per event (checkParity asks for each wait).
  const std::optional<PerRank> &perRankOnce(const Event &event) {
    auto key = std::make_pair(event.op, event.arrival);
    auto it = perRankMemo.find(key);
    if (it == perRankMemo.end())
      it = perRankMemo.try_emplace(key, perRank(event)).first;
    return it->second;
  }
  std::optional<int64_t> initCount(const BarrierKey &key);
  /// The largest constant count of the inits that may be `key`'s barrier
  /// (none where one is not a constant).
  std::optional<int64_t> largestInitCount(const BarrierKey &key);
  void checkMixedCounts(Operation *ctx, ArrayRef<const Event *> group,
                        const BarrierKey &key, int64_t most);
  void checkArrivals();
  void checkMayOverArrival(ArrayRef<const Event *> group,
                           const BarrierKey &key, int64_t count);
  void checkNetZeroArrivals();
  void checkParity();
  void checkBytes();
  void checkBytesPerThread(ArrayRef<const Event *> group,
                           ArrayRef<const Event *> landing);
  /// Where the bytes do not evaluate (a tile size from a kernel parameter):
  /// whether they compare as linear forms; reports a mismatch.
  bool checkBytesSymbolic(ArrayRef<const Event *> group,
                          ArrayRef<const Event *> landing,
                          const BarrierKey &key);
  void checkBytesPerStep();
  /// The severity of a byte-count mismatch of `group` on `key`'s barrier
  /// (of CTA `rank`, -1: any): an error where a wait on it follows in every
  /// instance of the protocol model that an error speaks for, or, where the
  /// model is not built, in straight-line code on a barrier that completes
  /// one phase at most (CheckExpectTx.cpp).
  Reporter::Severity bytesSeverity(ArrayRef<const Event *> group,
                                   const BarrierKey &key, int64_t rank = -1);
  bool firstPhaseWaitedOnce(const BarrierKey &key, int64_t rank);
  /// The protocol model of the function, built on first use.
  const ProtocolModel &protocolModel() {
    if (!protocol)
      protocol.emplace(fn, model);
    return *protocol;
  }
  void checkRunAhead();
  void checkParityAfterLoop();
  void checkStartupDeadlock();
  void checkRingParity(WaitOp wait, const BarrierKey &key, Operation *loop);
  /// The mbarrier.wait ops on `key`'s barrier in the loop `ctx` (its own
  /// body, not a nested loop) that CTA `rank` executes; -1 where one may
  /// alias it.
  int64_t waitsPerTrip(const BarrierKey &key, Operation *ctx, int64_t rank);
  bool waited(Value root) {
    return llvm::any_of(waits, [&](Operation *w) {
      return barrierOf(w)->root == root;
    });
  }

  FunctionOpInterface fn;
  SPMDModel &model;
  Reporter &out;
  SmallVector<Event> arrivals, bytes, copies;
  SmallVector<InitOp> inits;
  SmallVector<Operation *> waits;
  // Groups whose barriers something unknown may arrive on or complete tx on.
  SmallVector<Value> openGroups, openTx;
  std::map<std::pair<Operation *, bool>, std::optional<PerRank>> perRankMemo;
  std::optional<ProtocolModel> protocol;
  llvm::DenseMap<Value, bool> closedMemo;
  llvm::DenseMap<Value, SmallVector<std::pair<InitOp, BarrierKey>>> initsByRoot;
  bool closedWorldOnce(Value root) {
    auto it = closedMemo.find(root);
    if (it == closedMemo.end())
      it = closedMemo.try_emplace(root, closedWorld(root)).first;
    return it->second;
  }
};

/// Groups events of one context by barrier; a group with both a
/// non-constant index and another index is left out (they may alias).
template <typename Fn>
void forEachBarrier(ArrayRef<Event> events, Fn fn) {
  SmallVector<Operation *> contexts;
  for (const Event &e : events)
    if (!llvm::is_contained(contexts, e.context))
      contexts.push_back(e.context);
  for (Operation *ctx : contexts) {
    SmallVector<SmallVector<const Event *>> byKey;
    SmallVector<Value> ambiguous;
    for (const Event &e : events) {
      if (e.context != ctx)
        continue;
      auto it = llvm::find_if(byKey, [&](auto &group) {
        return group.front()->key.sameAs(e.key);
      });
      if (it != byKey.end()) {
        it->push_back(&e);
        continue;
      }
      for (auto &group : byKey)
        if (!group.front()->key.differentFrom(e.key))
          ambiguous.push_back(e.key.root);
      byKey.push_back({&e});
    }
    for (auto &group : byKey)
      if (!llvm::is_contained(ambiguous, group.front()->key.root))
        fn(ctx, ArrayRef<const Event *>(group));
  }
}

/// Whether `loop` (an scf.for) has constant bounds and at most one trip.
bool atMostOneTrip(Operation *loop);
/// The trips of an scf.for with constant bounds and a positive step.
std::optional<int64_t> constantTrips(Operation *loop);

/// Calls `fn(bit, point, amount)` for each point of `set` where `e` runs,
/// with what one execution brings there; false where a predicate or an
/// amount does not evaluate, or where `fn` returns false.
bool forEachActing(const Event &e, const llvm::BitVector &set,
                   SPMDModel &model,
                   llvm::function_ref<bool(unsigned, Point, int64_t)> fn);

/// Whether, in every instance of the protocol model that an error speaks
/// for, a wait observes the phases that `arrive` (an op one execution of
/// which brings more arrivals than the count) completes early
/// (CountsInstances.cpp). False where the model is not built.
bool overArrivalObservedEvery(const ProtocolModel &protocol,
                              Operation *arrive);
/// Whether, in every such instance, a wait that `mayWaitOn` is for the
/// phase of the first arrival that `bringsBytes` on its barrier or a later
/// one (where the bytes come by arrivals, `byArrivals`, and they are made
/// in that instance), or is made at all (where they do not: expect_tx).
bool waitedEvery(const ProtocolModel &protocol,
                 llvm::function_ref<bool(Operation *)> bringsBytes,
                 bool byArrivals,
                 llvm::function_ref<bool(Operation *)> mayWaitOn);

} // namespace mlir::mbarrier::checksync::counting

#endif // MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H
