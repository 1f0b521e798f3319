//===- CountsInstances.cpp - is a count mismatch seen in every launch ---===//
//
// The counting (CheckCounts.cpp, CheckExpectTx.cpp) finds an op that brings
// more arrivals than a barrier's count, or bytes that differ from the
// copies'; whether that fails every launch depends on who waits on the
// barrier afterwards. These queries read the instances of the protocol
// model (docs/checker.md, "the protocol model": each sampled trip count,
// loops running at least one trip) that an error speaks for: those where
// every loop bounded by a parameter runs a trip, or all of them where no
// instance has that. Where the model is not built they answer no (the
// report is then a warning).
//
// The phase a wait is for, in its warp's own view: the warp's waits on the
// barrier in order, a first one of parity 0 for phase 0 and of parity 1
// for the phase before the first (-1: it passes on a fresh barrier), each
// later one for the phase of the warp's last wait where the parity is the
// same, else the next. The phase an arrival is for: the warp's arrivals on
// the barrier before it (one per phase; where a warp arrives twice per
// phase this is later than the phase, which only makes fewer errors).
//
//===----------------------------------------------------------------------===//
#include "Counter.h"
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include <map>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::counting;

namespace {
/// The instances that an error speaks for.
SmallVector<const ProtocolInstance *> counted(const ProtocolModel &protocol) {
  SmallVector<const ProtocolInstance *> result;
  if (!protocol.ok())
    return result;
  bool anyFull =
      llvm::any_of(protocol.instances(),
                   [](const ProtocolInstance &in) { return in.full(); });
  for (const ProtocolInstance &in : protocol.instances())
    if (!anyFull || in.full())
      result.push_back(&in);
  return result;
}

/// The phase of each mbarrier wait of `trace` in its warp's view (see the
/// file comment), by event index.
std::map<size_t, int64_t> wantedPhases(const std::vector<SyncEvent> &trace) {
  std::map<size_t, int64_t> phases;
  std::map<int64_t, int64_t> last; // key -> the phase of the last wait
  for (size_t i = 0; i < trace.size(); ++i) {
    const SyncEvent &e = trace[i];
    if (e.kind != SyncEvent::Wait || e.named())
      continue;
    auto it = last.find(e.key);
    int64_t phase = it == last.end() ? (e.parity ? -1 : 0)
                    : (it->second & 1) == e.parity ? it->second
                                                   : it->second + 1;
    last[e.key] = phase;
    phases[i] = phase;
  }
  return phases;
}

/// The warps' n-th events of an op on one barrier: one execution of it.
struct Execution {
  int64_t arrivals = 0;
  int64_t phase = -1; // the latest of its warps' arrival phases
  bool everyWarpWaitsAfter = true;
};

/// Whether, in `in`, a wait observes the phases that `arrive`'s arrivals
/// beyond the count complete early: (a) a wait for a later phase than the
/// one its first execution on that barrier is for (the count's extra
/// arrivals run into that phase, so it completes before the arrivals meant
/// for it); (b) a wait, after one execution, by each warp of an execution
/// that brings twice the count or more (or by a warp whose own arrivals
/// do): the barrier has gone two phases on from the one the execution began
/// in, so the last of them to arrive waits for a phase that the extra
/// arrivals completed, or for one that nothing meant for it completes.
bool observedIn(const ProtocolInstance &in, Operation *arrive) {
  std::map<std::pair<int64_t, int64_t>, Execution> executions; // (key, n)
  for (const std::vector<SyncEvent> &trace : in.traces) {
    std::map<int64_t, int64_t> arrivals, mine; // key -> count so far
    for (size_t i = 0; i < trace.size(); ++i) {
      const SyncEvent &e = trace[i];
      if (e.kind != SyncEvent::Arrive || e.named())
        continue;
      int64_t phase = arrivals[e.key]++;
      if (e.op != arrive)
        continue;
      auto count = in.initCounts.find(e.key);
      if (count == in.initCounts.end())
        return false;
      bool waitsAfter = llvm::any_of(
          llvm::make_range(trace.begin() + i + 1, trace.end()),
          [&](const SyncEvent &w) {
            return w.kind == SyncEvent::Wait && w.key == e.key;
          });
      if (waitsAfter && e.amount >= 2 * count->second)
        return true;
      Execution &x = executions[{e.key, mine[e.key]++}];
      x.arrivals += e.amount;
      x.phase = std::max(x.phase, phase);
      x.everyWarpWaitsAfter &= waitsAfter;
    }
  }
  for (auto &[at, x] : executions)
    if (x.everyWarpWaitsAfter && x.arrivals >= 2 * in.initCounts.at(at.first))
      return true;
  for (const std::vector<SyncEvent> &trace : in.traces)
    for (auto [i, phase] : wantedPhases(trace)) {
      auto first = executions.find({trace[i].key, 0});
      if (first != executions.end() &&
          first->second.arrivals > in.initCounts.at(trace[i].key) &&
          phase > first->second.phase)
        return true;
    }
  return false;
}
} // namespace

bool counting::overArrivalObservedEvery(const ProtocolModel &protocol,
                                        Operation *arrive) {
  SmallVector<const ProtocolInstance *> instances = counted(protocol);
  return !instances.empty() &&
         llvm::all_of(instances, [&](const ProtocolInstance *in) {
           return observedIn(*in, arrive);
         });
}

bool counting::waitedEvery(const ProtocolModel &protocol,
                           llvm::function_ref<bool(Operation *)> bringsBytes,
                           bool byArrivals,
                           llvm::function_ref<bool(Operation *)> mayWaitOn) {
  SmallVector<const ProtocolInstance *> instances = counted(protocol);
  return !instances.empty() &&
         llvm::all_of(instances, [&](const ProtocolInstance *in) {
           // The arrivals that bring the bytes: the phase of the first on
           // each barrier (none made: the bytes are not expected in this
           // instance).
           std::map<int64_t, int64_t> first; // key -> phase
           bool anyBytesEvent = false;
           for (const std::vector<SyncEvent> &trace : in->traces) {
             std::map<int64_t, int64_t> arrivals;
             std::map<int64_t, bool> seen;
             for (const SyncEvent &e : trace) {
               if (e.kind != SyncEvent::Arrive || e.named())
                 continue;
               int64_t phase = arrivals[e.key]++;
               if (!bringsBytes(e.op) || seen[e.key])
                 continue;
               seen[e.key] = true;
               anyBytesEvent = true;
               auto [it, fresh] = first.try_emplace(e.key, phase);
               it->second = std::max(it->second, phase);
             }
           }
           if (byArrivals && !anyBytesEvent)
             return false;
           for (const std::vector<SyncEvent> &trace : in->traces)
             for (auto [i, phase] : wantedPhases(trace)) {
               const SyncEvent &w = trace[i];
               if (!mayWaitOn(w.op))
                 continue;
               // Expect-tx alone is no arrival: any wait that may be on the
               // barrier then.
               auto it = first.find(w.key);
               if (!byArrivals || (it != first.end() && phase >= it->second))
                 return true;
             }
           return false;
         });
}
