//===- ExitPhases.cpp - remote arrivals past the target's last wait -------===//
//
// Class 2 (docs/checker.md): a CTA may exit while another CTA still arrives
// on its barriers. CheckLifetime.cpp takes a remote arrival as covered where
// its target waits on the barrier in a wait that may come after it; which
// phases that wait is for it does not follow. Here the protocol model's
// instances follow them: per barrier of a CTA, the phases that the CTA's
// own waits on it require (per warp, from its parities in program order: a
// wait of parity p after L certain phases requires phase L where L has
// parity p, else it passes with the L it has), against the phases that all
// the arrivals on it (the CTA's own and its peers') complete. A remote
// arrival is waited for where, at worst (after every other arrival on the
// barrier but its own warp's later ones), it still falls in a required
// phase; else nobody waits for it: the CTA can finish its waits and exit
// before it lands (a
// CUTLASS multicast pipeline without its producer_tail: the producer's
// empty waits are for the lap before, so the peers' releases of the last
// lap reach a CTA that may be gone). A remote arrival followed, in its
// warp, by another arrival on a barrier of the same CTA that is waited for
// whole is ordered before that one (the later arrival's release) and is
// covered too.
//
// Silent (no answer) where the protocol model is not built; a barrier whose
// owner does not wait on it at all is CheckLifetime.cpp's.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

std::optional<llvm::DenseMap<Operation *, ArrivalPastLastWait>>
checksync::remoteArrivalsPastLastWait(FunctionOpInterface fn,
                                      SPMDModel &model) {
  ProtocolModel protocol(fn, model);
  if (!protocol.ok())
    return std::nullopt;
  llvm::DenseMap<Operation *, ArrivalPastLastWait> found;
  // The instances an answer speaks for: those where every loop bounded by
  // a parameter runs a trip, where any does.
  bool anyFull = llvm::any_of(protocol.instances(),
                              [](const ProtocolInstance &in) { return in.full(); });
  for (const ProtocolInstance &in : protocol.instances()) {
    if (anyFull && !in.full())
      continue;
    // Per mbarrier key: the CTA that waits on it, the arrivals it gets and
    // the phases its waits require.
    std::map<int64_t, int64_t> owner, arrivals, required;
    for (int64_t w = 0; w < protocol.numWarps(); ++w) {
      std::map<int64_t, int64_t> certain; // key -> phases
      for (const SyncEvent &e : in.traces[w]) {
        if (e.key < kMBarrierKeyBase)
          continue;
        if (e.kind == SyncEvent::Arrive) {
          arrivals[e.key] += e.amount;
          continue;
        }
        owner[e.key] = protocol.rankOf(w);
        int64_t &phases = certain[e.key];
        if ((phases & 1) == e.parity)
          ++phases;
        required[e.key] = std::max(required[e.key], phases);
      }
    }
    // Per warp, backwards: an arrival is waited for where, at worst, it
    // comes after every other arrival on the barrier but its own warp's
    // later ones and still falls in a required phase; a remote one that is
    // not is covered by a later one of the warp on the same CTA that is.
    for (int64_t w = 0; w < protocol.numWarps(); ++w) {
      const std::vector<SyncEvent> &trace = in.traces[w];
      std::map<int64_t, int64_t> later;    // key -> the warp's arrivals after
      std::set<int64_t> awaitedLater;      // CTAs of such later arrivals
      for (size_t i = trace.size(); i-- > 0;) {
        const SyncEvent &e = trace[i];
        if (e.kind != SyncEvent::Arrive || e.key < kMBarrierKeyBase)
          continue;
        auto target = owner.find(e.key);
        auto count = in.initCounts.find(e.key);
        bool awaited = target != owner.end() &&
                       count != in.initCounts.end() &&
                       arrivals[e.key] - later[e.key] <=
                           required[e.key] * count->second;
        later[e.key] += e.amount;
        if (target == owner.end())
          continue;
        if (awaited) {
          awaitedLater.insert(target->second);
          continue;
        }
        if (target->second == protocol.rankOf(w) || count == in.initCounts.end() ||
            awaitedLater.count(target->second) || found.count(e.op))
          continue;
        found[e.op] = {target->second, protocol.sampled(), in.sample,
                       required[e.key],
                       (arrivals[e.key] + count->second - 1) / count->second};
      }
    }
  }
  return found;
}
