//===- Counter.h - the counting of mbarrier-check-sync (internal) -*- C++ -*-===//
//
// The arrivals, transaction bytes and copies of a function per barrier and
// context, shared by CheckCounts.cpp (classes 3, 4, 6) and CheckPhases.cpp
// (class 5: parities and phases across trips and loops).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H
#define MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H

#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include <map>

namespace mlir::mbarrier::checksync::counting {

/// Amounts per receiving CTA rank.
using PerRank = SmallVector<int64_t>;

/// The innermost loop around `op` inside `fn`, or `fn`.
Operation *contextOf(Operation *op, Operation *fn);

/// The bulk copy ops whose `mbar` operand the counting understands, with
/// their byte count and multicast mask.
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

} // namespace mlir::mbarrier::checksync::counting

#endif // MBARRIER_ANALYSIS_SYNCCHECK_COUNTER_H
