//===- ProtocolModel.h - the synchronization protocol per role --*- C++ -*-===//
//
// The protocol of a kernel as its warps run it (docs/checker.md, "The
// protocol model"): per warp of each CTA of the declared cluster, the
// sequence of synchronization events (mbarrier arrive / arrive_expect_tx /
// wait, named-barrier bar.sync / bar.arrive / bar.red, cluster arrive /
// wait, the end of the warp), each with the barrier it names at that trip
// (the index, parity, id and count evaluated with the loop's induction
// variable and loop-carried values of that trip: a ring's `stage` and
// `phase`), the CTA whose barrier it is and the lanes that make it.
//
// Warps that take the same path form a *role* (a warp group, the producer
// warp, an elected lane's warp); `roles()` groups them. Loops run their
// trips: constant ones as written, those bounded by kernel parameters (or
// the CTA's id) in one *instance* per sampled parameter value, so that the
// producer's and the consumers' loops, whose bounds are computed from the
// same parameters, agree in each instance. TMA and bulk copies are not
// events: their bytes are taken to land (class 6 checks the byte counts).
//
// The model is built once per function and queried by the classes
// (CheckDeadlock.cpp's wait-for run). Where an op is outside what it
// follows (an opaque call, a polling wait other than a spin loop on a
// test_wait / try_wait, which is a wait, lanes of a warp at named barriers
// in both branches of an scf.if, a value it cannot evaluate, a loop past 64 trips) the function is
// not modelled (`ok()` false: the classes are silent); past a work budget
// it is not analyzed either, and `overBudget()` says so (the pass remarks
// it, never hangs).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLMODEL_H
#define MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLMODEL_H

#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include <array>
#include <map>
#include <vector>

namespace mlir::mbarrier::checksync {

/// Barrier keys of the protocol: named barriers below kMBarrierKeyBase
/// (`rank * kNamedPerCTA + id`), the cluster barrier, mbarriers from
/// kMBarrierKeyBase on (one per (group, index, owning CTA)).
constexpr int64_t kNamedPerCTA = 64;
constexpr int64_t kMBarrierKeyBase = 1 << 20;
constexpr int64_t kClusterBarrierKey = kMBarrierKeyBase - 1;

/// One synchronization event of a warp.
struct SyncEvent {
  enum Kind { Arrive, Wait } kind;
  Operation *op;
  int64_t key;    // see above
  int64_t count;  // named: threads (0: every running warp of the scope)
  int64_t amount; // mbarrier arrive: arrivals; named: the warp's threads
  int64_t parity; // mbarrier wait
  bool syncs;     // named arrive: of a bar.sync / bar.red (which then waits)
  int64_t trip;   // the trip of the innermost loop around it (-1: none)
  bool named() const { return key < kMBarrierKeyBase; }
  bool cluster() const { return key == kClusterBarrierKey; }
  /// The named barrier's id (or declaration key) in its CTA.
  int64_t namedId() const { return key % kNamedPerCTA; }
  /// The CTA whose named barrier it is.
  int64_t namedRank() const { return key / kNamedPerCTA; }
};

/// A cp.async event of a warp (kept only where the model is built for the
/// cp.async query: CheckCpAsyncGroups.cpp): a copy into shared memory, a
/// commit or wait of the thread's cp.async-groups, a cp.async.mbarrier.arrive
/// (the copies before it are tracked by an mbarrier), a read of shared
/// memory, and a marker of each event of the warp's synchronization trace.
struct AsyncCopyEvent {
  enum Kind { Copy, Commit, WaitGroup, MBarrierArrive, Read, Sync } kind;
  Operation *op;
  uint32_t lanes;  // the lanes that make it
  int64_t n = 0;   // WaitGroup: its N; Sync: the event's index in the trace
  const void *allocation = nullptr; // Copy, Read: the allocation (a global
                                    // or the base pointer)
  int64_t bytes = 0;                // Copy, Read: per lane
  std::array<int64_t, 32> offset{}; // Copy, Read: per lane, in bytes
};

/// One instance of the protocol: every warp's events for one sampled value
/// of the kernel's integer parameters.
struct ProtocolInstance {
  int64_t sample = 0;        // the parameters' value in this instance
  std::vector<int64_t> trips; // trips of each loop bounded by a parameter
  /// Whether every loop bounded by a parameter takes at least one trip.
  bool full() const {
    return llvm::all_of(trips, [](int64_t t) { return t > 0; });
  }
  std::vector<std::vector<SyncEvent>> traces; // per warp
  std::map<int64_t, int64_t> initCounts;       // mbarrier key -> count
  std::map<int64_t, Operation *> initOps;      // mbarrier key -> its init
  std::vector<std::vector<AsyncCopyEvent>> copies; // per warp (cp.async query)
};

class ProtocolModel {
public:
  /// `cpAsync`: also keep each warp's cp.async events (`copies`), whose
  /// reads of shared memory are then walked as events too.
  ProtocolModel(FunctionOpInterface fn, SPMDModel &model,
                bool cpAsync = false);

  /// Whether the function is modelled (else every query is empty).
  bool ok() const { return modelled; }
  /// Whether it was left because of the work budget.
  bool overBudget() const { return budgetExceeded; }
  /// Whether some loop's trips, condition or index depend on a kernel
  /// parameter (or the CTA's id): the instances are samples of them.
  bool sampled() const { return usesParameters; }

  int64_t warpsPerCTA() const { return perCTA; }
  int64_t threadsInCTA() const { return threadsPerCTA; }
  int64_t numWarps() const { return perCTA * ranks; }
  int64_t rankOf(int64_t warp) const { return warp / perCTA; }
  /// The threads of `warp` (32 but for a partial last warp of the CTA).
  int64_t warpThreads(int64_t warp) const {
    return std::min<int64_t>(kWarpSize,
                             threadsPerCTA - (warp % perCTA) * kWarpSize);
  }
  ArrayRef<ProtocolInstance> instances() const { return all; }
  /// The roles of an instance: warps whose event sequences are the same
  /// ops (a warp group, the producer warp), each a set of warps.
  SmallVector<llvm::BitVector> roles(const ProtocolInstance &in) const;
  /// "warps 4-7" (of CTA r, in a cluster of several CTAs) of a warp set.
  std::string describe(const llvm::BitVector &warps) const;

  /// Samples of the parameters, and the most trips a loop bounded by one
  /// may take in a sampled instance (the small-model bound K).
  static constexpr int64_t kMaxSampledTrips = 8;
  static constexpr int64_t kMaxTrips = 64;
  /// Ops walked, values evaluated and (four each) events kept for one
  /// function, over all instances.
  static constexpr uint64_t kWorkBudget = uint64_t(1) << 21;

private:
  SPMDModel &model;
  int64_t perCTA = 0;
  int64_t threadsPerCTA = 0;
  int64_t ranks = 1;
  bool modelled = false;
  bool budgetExceeded = false;
  bool usesParameters = false;
  std::vector<ProtocolInstance> all;
};

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLMODEL_H
