//===- DeadlockRun.h - the run of the barriers' semantics -----*- C++ -*-===//
//
// Private to the checker: each warp's barrier events (BarrierTraces), the
// run of the barriers' semantics over them in one schedule (BarrierRun),
// and the reports of a stuck run on one mbarrier phase (DeadlockPhases.cpp)
// that CheckDeadlock.cpp asks beside its wait-for graph.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_DEADLOCKRUN_H
#define MBARRIER_ANALYSIS_SYNCCHECK_DEADLOCKRUN_H

#include "NamedBarriers.h"
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <map>

namespace mlir::mbarrier::checksync::deadlock {
using Severity = Reporter::Severity;

using BarrierEvent = SyncEvent;

/// What a run reads of one instance of the protocol model.
struct BarrierTraces {
  const ProtocolModel &model;
  const ProtocolInstance &instance;
  int64_t numWarps;
  const std::vector<std::vector<SyncEvent>> &traces;
  const std::map<int64_t, int64_t> &initCounts;
  BarrierTraces(const ProtocolModel &model, const ProtocolInstance &instance)
      : model(model), instance(instance), numWarps(model.numWarps()),
        traces(instance.traces), initCounts(instance.initCounts) {}
};

/// One run of the barriers over the traces, in one schedule.
struct BarrierRun {
  const BarrierTraces &traces;
  std::vector<size_t> pc;
  std::vector<bool> done;
  // Named barriers: arrivals of the current phase, phase number, the phase
  // each warp last arrived in, the last arrive op of the phase.
  std::map<int64_t, int64_t> arrived, phase;
  std::map<std::pair<int64_t, int64_t>, int64_t> arrivedPhase; // (key, warp)
  std::map<int64_t, Operation *> lastArrive;
  std::map<int64_t, int64_t> phaseCount; // the count of the current phase
  std::map<int64_t, bool> phaseSyncs;     // a bar.sync arrived in it
  // Phases that completed with arrivals only: key -> the last arrive.
  std::map<int64_t, Operation *> unmatched;
  // mbarriers: pending arrivals and the phase number; the arrive events
  // of each warp in the current phase.
  std::map<int64_t, int64_t> pending, mphase;
  std::map<int64_t, std::map<int64_t, int64_t>> phaseArrives;
  // Per warp: the mbarrier wait it blocked at (its pc + 1, 0 for none) and
  // the barrier's completed phases then.
  std::vector<std::pair<size_t, int64_t>> blockedSince;
  // The phase of each mbarrier that each warp's last passed wait on it
  // returned for (-2: none yet): (warp, key) -> phase.
  std::map<std::pair<int64_t, int64_t>, int64_t> observed;
  bool failed = false; // something outside the model (e.g. over-arrival)

  explicit BarrierRun(const BarrierTraces &traces)
      : traces(traces), pc(traces.numWarps, 0), done(traces.numWarps, false),
        blockedSince(traces.numWarps, {0, 0}) {
    for (auto [key, count] : traces.initCounts)
      pending[key] = count;
  }

  /// The threads of the warps still running in the scope of the count-less
  /// barrier `key` (its CTA, or the cluster for the cluster barrier).
  int64_t runningThreads(int64_t key) const {
    int64_t n = 0;
    for (int64_t w = 0; w < traces.numWarps; ++w)
      if (!done[w] && !traces.traces[w].empty() &&
          (key == kClusterBarrierKey ||
           traces.model.rankOf(w) == key / kNamedPerCTA))
        n += traces.model.warpThreads(w);
    return n;
  }

  /// Completes the phase of count-less named barriers that every running
  /// warp has reached.
  void completeCountless() {
    for (auto &[key, n] : arrived)
      if (n > 0 && phaseCount[key] == 0 && n >= runningThreads(key)) {
        n = 0;
        ++phase[key];
      }
  }

  /// Runs warp `w` until it blocks or ends; whether it moved.
  bool step(int64_t w) {
    const std::vector<BarrierEvent> &trace = traces.traces[w];
    bool moved = false;
    while (!failed && pc[w] < trace.size()) {
      const BarrierEvent &e = trace[pc[w]];
      if (e.kind == BarrierEvent::Arrive && e.named()) {
        if (arrived[e.key] == 0)
          phaseCount[e.key] = e.count;
        else if (phaseCount[e.key] != e.count) {
          failed = true; // two counts in one phase: CheckNamedBarriers.cpp
          return moved;
        }
        if (arrived[e.key] == 0)
          phaseSyncs[e.key] = false;
        arrivedPhase[{e.key, w}] = phase[e.key];
        lastArrive[e.key] = e.op;
        phaseSyncs[e.key] = phaseSyncs[e.key] || e.syncs;
        arrived[e.key] += e.amount;
        if (e.count > 0 && arrived[e.key] >= e.count) {
          if (!phaseSyncs[e.key] && !unmatched.count(e.key))
            unmatched[e.key] = e.op;
          arrived[e.key] = 0;
          ++phase[e.key];
        }
        completeCountless();
      } else if (e.kind == BarrierEvent::Wait && e.named()) {
        if (phase[e.key] == arrivedPhase[{e.key, w}])
          return moved; // blocked
      } else if (e.kind == BarrierEvent::Arrive) {
        auto it = pending.find(e.key);
        if (it == pending.end() || e.amount > it->second) {
          failed = true; // never initialized, or more arrivals than pending
          return moved;
        }
        it->second -= e.amount;
        ++phaseArrives[e.key][w];
        if (it->second == 0) {
          it->second = traces.initCounts.at(e.key);
          ++mphase[e.key];
          phaseArrives[e.key].clear();
        }
      } else {
        if (!pending.count(e.key)) {
          failed = true;
          return moved;
        }
        int64_t &last = observed.try_emplace({w, e.key}, -2).first->second;
        if ((mphase[e.key] & 1) == e.parity) {
          // A warp blocked at this wait is released by the completion of
          // the phase it waited for, even where the barrier has gone on by
          // another phase before the warp runs again (the hardware wakes
          // the waiting threads when the phase completes).
          auto &[at, since] = blockedSince[w];
          if (at != pc[w] + 1 || mphase[e.key] <= since) {
            at = pc[w] + 1;
            since = mphase[e.key];
            return moved; // blocked
          }
          last = since;
        } else {
          last = mphase[e.key] - 1;
        }
      }
      ++pc[w];
      moved = true;
    }
    if (pc[w] == trace.size() && !done[w]) {
      done[w] = true;
      completeCountless();
      moved = true;
    }
    return moved;
  }

  void run(bool descending) {
    bool progress = true;
    while (progress && !failed) {
      progress = false;
      for (int64_t i = 0; i < traces.numWarps; ++i)
        progress |= step(descending ? traces.numWarps - 1 - i : i);
    }
  }

  bool stuck() const {
    for (int64_t w = 0; w < traces.numWarps; ++w)
      if (!done[w] && !traces.traces[w].empty())
        return true;
    return false;
  }

  const BarrierEvent &blockedAt(int64_t w) const { return traces.traces[w][pc[w]]; }

  /// The warps blocked at `op`.
  llvm::BitVector blockedAtOp(Operation *op) const {
    llvm::BitVector warps(traces.numWarps);
    for (int64_t u = 0; u < traces.numWarps; ++u)
      if (!done[u] && !traces.traces[u].empty() && blockedAt(u).op == op)
        warps.set(u);
    return warps;
  }

  /// The warps other than `w` whose events from their current one on arrive
  /// on `key`, leaving out those blocked on `key` themselves (their later
  /// arrivals come after a wait that needs the phase `w` waits for).
  llvm::BitVector arriversOn(int64_t key, int64_t w) const {
    llvm::BitVector warps(traces.numWarps);
    for (int64_t u = 0; u < traces.numWarps; ++u) {
      if (u == w || done[u] || blockedAt(u).key == key)
        continue;
      const std::vector<BarrierEvent> &trace = traces.traces[u];
      for (size_t i = pc[u]; i < trace.size(); ++i)
        if (trace[i].kind == BarrierEvent::Arrive && trace[i].key == key) {
          warps.set(u);
          break;
        }
    }
    return warps;
  }
};

std::string describeEventBarrier(const BarrierRun &run, const BarrierEvent &e);

/// A stuck run whose blocked warp waits on an mbarrier phase that got one
/// arrival from every warp that ever arrives on the barrier, and fewer than
/// its init count (CUTLASS's empty barriers initialized with 3 where two
/// consumers release; mbarDONE initialized with the block where three
/// warps arrive): every arriving warp has brought its arrival to the phase
/// and waits for the blocked warp before the next, so the count is more
/// than a phase ever gets. Reported at the init (the count is the bug),
/// except on a pipe's empty barrier (kPipeConsumerCountAttr: the count is
/// the consumers its type declares), at an arrival (the releases are the
/// bug); whether it made the report.
bool reportShortPhase(const BarrierRun &run, Severity severity,
                      Reporter &out);

/// The warps of a stuck run blocked on an mbarrier phase that no arrival
/// has started (its pending count is the whole init count), after at least
/// one completed phase, and that no warp can still arrive on (every warp
/// whose later events arrive on it is done or waits on it too): every
/// arrival the protocol makes on the barrier has come and completed whole
/// phases, and the wait is for the phase after them.
SmallVector<int64_t> unstartedPhaseWaits(const BarrierRun &run);

/// Reports the wait of `w` in `run`, blocked on a phase that no arrival
/// starts (unstartedPhaseWaits). Its parity does not follow the barrier's
/// phases (a phase bit carried through the loop without its flip, a ring
/// state restarted where the arrivers carry theirs): on the GPU the wait
/// hangs, or, while the last phase's bulk copies are still landing, returns
/// at once for the phase before, whose data it then reads again.
void reportUnstartedPhase(const BarrierRun &run, int64_t w, Severity severity,
                          Reporter &out);

/// The warps of a stuck run blocked on an mbarrier phase that has some of
/// its arrivals and not its count, which no warp can still arrive on: every
/// other warp whose later events arrive on the barrier waits on it too (for
/// the same phase), the others have ended. The run is one launch's schedule
/// in which the phase never completes: the arrivals of a rendezvous that do
/// not pair up (a warp group that performs one more arrive + wait on a
/// barrier of count 2 than the other: Pallas's schedule_barrier). Not on a
/// group that ops the model does not see may reach (`open`: openRoots).
SmallVector<int64_t> abandonedPhaseWaits(const BarrierRun &run,
                                         const llvm::DenseSet<Value> &open);

/// Reports the wait of `w`, blocked on an abandoned phase
/// (abandonedPhaseWaits), with each arriving warp's arrivals on the barrier
/// over the run.
void reportAbandonedPhase(const BarrierRun &run, int64_t w, Severity severity,
                          Reporter &out);

} // namespace mlir::mbarrier::checksync::deadlock

#endif // MBARRIER_ANALYSIS_SYNCCHECK_DEADLOCKRUN_H
