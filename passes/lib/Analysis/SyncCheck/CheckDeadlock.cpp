//===- CheckDeadlock.cpp - the wait-for graph across barriers (class 12) --===//
//
// Which warps wait on what before they arrive on what, over named barriers
// (bar.sync / bar.arrive / bar.red, gpu.barrier) and the CTA's own mbarriers
// (init, arrive, wait): each warp's sequence of barrier events in program
// order, from the SPMD model (the warps that execute each op, its id,
// count, index and parity at their points), and a run of the barriers'
// semantics over them: a named barrier completes a phase when its count of
// threads (32 per warp) has arrived, a countless one when every warp still
// running has; an mbarrier phase when its init count of arrivals has come
// (transaction bytes are taken to land), and a wait passes once the phase
// of its parity completed.
//
// The run lets each warp go on until it blocks, in two schedules (warps in
// ascending and in descending order). Where warps are left blocked, the
// wait-for graph (a blocked warp -> the blocked warps whose later events
// arrive on what it waits for) has a cycle, or a warp waits on a named
// barrier that no later event arrives on: a deadlock, an error where both
// schedules reach it and a warning where one does. Where every warp ends and
// a named-barrier phase completed with bar.arrive alone, so that no thread
// waited for it (an arrive where a sync was needed, vllm#26026): a warning.
// A stuck run on one mbarrier whose phase got one arrival from every warp
// that ever arrives on it, short of its count, is that count's error (at
// the init), or, where one arrival of the phase is by some lanes of its
// warp only and all of them would bring the count, that arrival's.
// Where the run is stuck with no cycle, a warp blocked in both schedules on
// an mbarrier phase that has some of its arrivals, short of the count, that
// no warp can still arrive on (the others that arrive on it have ended or
// wait on it too): the parties of a rendezvous arrive unequally. Else one
// blocked in both schedules on an mbarrier phase that no arrival starts
// (every arrival on the barrier has come and completed whole phases), for
// the next phase of its parity after the last one it saw: its parity does
// not follow the barrier's phases.
//
// Silence (no run) where the model cannot decide: a cluster of several CTAs,
// an unknown block, unstructured control flow, a call it cannot see, a loop
// other than an scf.for of constant trips, an op whose points, id, count,
// index or parity are unknown or differ within a warp, a polling wait
// (other than a spin loop on a test_wait / try_wait: a wait), an
// arrival on another CTA, a barrier initialized twice or never.
//
//===----------------------------------------------------------------------===//
#include "NamedBarriers.h"
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <map>

#define DEBUG_TYPE "mbarrier-protocol"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

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

std::string describeEventBarrier(const BarrierRun &run, const BarrierEvent &e) {
  if (e.cluster())
    return "the cluster barrier";
  bool cluster = run.traces.model.rankOf(run.traces.numWarps - 1) > 0;
  if (e.named())
    return "named barrier " + describeNamedBarrier(e.op, e.namedId()) +
           (cluster ? " of CTA " + std::to_string(e.namedRank()) : "");
  if (!cluster)
    return "an mbarrier";
  // The owner of an mbarrier key: the CTA whose init it is, or of a wait.
  for (int64_t w = 0; w < run.traces.numWarps; ++w)
    for (const BarrierEvent &other : run.traces.traces[w])
      if (other.kind == BarrierEvent::Wait && other.key == e.key)
        return "an mbarrier of CTA " +
               std::to_string(run.traces.model.rankOf(w));
  return "an mbarrier";
}

/// The short phase of reportShortPhase where the count is right for the
/// warps that arrive and an arrival is made by fewer lanes than its warp
/// has (an arrive under `lane == 0` on a barrier that counts threads): with
/// every lane of those warps arriving there, the phase would get exactly
/// its count. Reported at that arrival (the elected arrival is the bug);
/// whether it made the report. Not where that arrival posts transaction
/// bytes (an arrive_expect_tx by the lane that issues its warp's copy, the
/// PTX ISA's one arrival per warp): the count of threads is the likelier
/// bug there, and `postsBytes` says so (reportShortPhase reports the init).
bool reportPartialArrival(const BarrierRun &run, const BarrierEvent &blocked,
                          int64_t count, int64_t got,
                          const llvm::BitVector &arrivers,
                          const llvm::BitVector &waiting, Severity severity,
                          Reporter &out, bool &postsBytes) {
  // Each arriving warp's one arrival of the phase: its last arrival on the
  // barrier before where it stands.
  int64_t whole = got;
  Operation *partial = nullptr;
  llvm::BitVector partialWarps(arrivers.size());
  int64_t partialArrivals = 0;
  for (int u : arrivers.set_bits()) {
    const std::vector<BarrierEvent> &trace = run.traces.traces[u];
    const BarrierEvent *mine = nullptr;
    for (size_t i = run.pc[u]; i-- > 0;)
      if (trace[i].kind == BarrierEvent::Arrive && trace[i].key == blocked.key) {
        mine = &trace[i];
        break;
      }
    int64_t threads = run.traces.model.warpThreads(u);
    if (!mine || mine->amount >= threads)
      continue;
    if (partial && partial != mine->op)
      return false; // two partial arrivals: which one is not known
    partial = mine->op;
    partialWarps.set(u);
    partialArrivals += mine->amount;
    whole += threads - mine->amount;
  }
  if (!partial || whole != count)
    return false;
  postsBytes = isa<ArriveExpectTxOp>(partial);
  if (postsBytes)
    return false;
  out.report(partial, severity, kDeadlockSlot)
      << "deadlock: a phase of this barrier (initialized with arrival count "
      << count << ") gets " << got << " arrival(s), of which this arrival "
      << "brings " << partialArrivals << " (some lanes of "
      << run.traces.model.describe(partialWarps) << " only); "
      << run.traces.model.describe(arrivers)
      << " arrive on it once each, and "
      << run.traces.model.describe(waiting)
      << " wait on it for the phase to complete (with every lane of "
         "those warps arriving here the phase would get its "
      << count << ")";
  out.note(partial, kDeadlockSlot, blocked.op->getLoc(),
           "the wait that never completes");
  return true;
}

/// A stuck run whose blocked warp waits on an mbarrier phase that got one
/// arrival from every warp that ever arrives on the barrier, and fewer than
/// its init count (CUTLASS's empty barriers initialized with 3 where two
/// consumers release; mbarDONE initialized with the block where three
/// warps arrive): every arriving warp has brought its arrival to the phase
/// and waits for the blocked warp before the next, so the count is more
/// than a phase ever gets. Reported at the init (the count is the bug);
/// whether it made the report.
bool reportShortPhase(const BarrierRun &run, Severity severity,
                      Reporter &out) {
  int64_t n = run.traces.numWarps;
  for (int64_t w = 0; w < n; ++w) {
    if (run.done[w] || run.traces.traces[w].empty())
      continue;
    const BarrierEvent &e = run.blockedAt(w);
    auto init = run.traces.instance.initOps.find(e.key);
    auto arrives = run.phaseArrives.find(e.key);
    if (e.named() || e.kind != BarrierEvent::Wait ||
        init == run.traces.instance.initOps.end() ||
        arrives == run.phaseArrives.end() || arrives->second.empty())
      continue;
    int64_t count = run.traces.initCounts.at(e.key);
    int64_t got = count - run.pending.at(e.key);
    // Every warp that arrives on the barrier anywhere arrived once in this
    // phase (and is blocked or done: the run is stuck).
    bool once = got > 0 && got < count;
    const BarrierEvent *arrive = nullptr;
    for (int64_t u = 0; u < n && once; ++u) {
      for (const BarrierEvent &other : run.traces.traces[u])
        if (other.kind == BarrierEvent::Arrive && other.key == e.key) {
          arrive = arrive ? arrive : &other;
          auto it = arrives->second.find(u);
          once &= it != arrives->second.end() && it->second == 1;
          break;
        }
    }
    if (!once || !arrive)
      continue;
    llvm::BitVector arrivers(n), waiting(n);
    for (auto [u, k] : arrives->second)
      arrivers.set(u);
    for (int64_t u = 0; u < n; ++u)
      if (!run.done[u] && !run.traces.traces[u].empty() &&
          run.blockedAt(u).op == e.op)
        waiting.set(u);
    // One bug, one diagnostic: an error here covers the class 4 warning
    // of a loop trip short of the count on the barrier's arrivals.
    auto dropUnderArrival = [&] {
      if (severity != Severity::Error)
        return;
      for (const std::vector<BarrierEvent> &trace : run.traces.traces)
        for (const BarrierEvent &other : trace)
          if (other.kind == BarrierEvent::Arrive && other.key == e.key)
            out.clear(other.op, kUnderArrivalSlot);
    };
    bool postsBytes = false;
    if (reportPartialArrival(run, e, count, got, arrivers, waiting, severity,
                             out, postsBytes)) {
      dropUnderArrival();
      return true;
    }
    bool ended = llvm::all_of(arrivers.set_bits(),
                              [&](unsigned u) { return run.done[u]; });
    bool same = !ended && arrivers == waiting;
    Reporter::Message message =
        out.report(init->second, severity, kDeadlockSlot);
    message << "deadlock: initialized with arrival count " << count
            << ", but a phase of the barrier gets " << got << " arrival(s): "
            << run.traces.model.describe(arrivers);
    if (same)
      message << " arrive on it once each and then wait on it";
    else
      message << (ended ? " arrive on it once each and end, while " : "")
              << (ended ? "" : " arrive on it once each and then wait for ")
              << run.traces.model.describe(waiting) << (ended ? " wait" : "")
              << (ended ? "" : ", which wait") << " on it";
    message << " for the phase to complete (the count is more than the "
               "arrivals of a phase)";
    if (postsBytes)
      message << "; each arrival is an arrive_expect_tx by the lane that "
                 "posts its warp's copy bytes, one per warp, where the count "
                 "is one per lane of those warps (a count of the warps was "
                 "meant)";
    out.note(init->second, kDeadlockSlot, e.op->getLoc(),
             "the wait that never completes");
    out.note(init->second, kDeadlockSlot, arrive->op->getLoc(),
             "an arrival on the barrier");
    dropUnderArrival();
    return true;
  }
  return false;
}

/// Whether a warp's wait whose parity asks for phase `intended`, after the
/// last phase `last` its waits returned for (-2: none), is its first on the
/// barrier and for the phase before the first (-1: a fresh barrier's wait
/// of parity 1 passes at once).
bool firstWaitStale(int64_t last, int64_t intended) {
  return last == -2 && intended == -1;
}

/// The warps of a stuck run blocked on an mbarrier phase that no arrival
/// has started (its pending count is the whole init count), after at least
/// one completed phase, and that no warp can still arrive on (every warp
/// whose later events arrive on it is done or waits on it too): every
/// arrival the protocol makes on the barrier has come and completed whole
/// phases, and the wait is for the phase after them.
SmallVector<int64_t> unstartedPhaseWaits(const BarrierRun &run) {
  SmallVector<int64_t> warps;
  for (int64_t w = 0; w < run.traces.numWarps; ++w) {
    if (run.done[w] || run.traces.traces[w].empty())
      continue;
    const BarrierEvent &e = run.blockedAt(w);
    if (e.named() || e.kind != BarrierEvent::Wait)
      continue;
    auto pending = run.pending.find(e.key);
    auto count = run.traces.initCounts.find(e.key);
    auto completed = run.mphase.find(e.key);
    if (pending == run.pending.end() || count == run.traces.initCounts.end() ||
        pending->second != count->second || completed == run.mphase.end() ||
        completed->second == 0 || run.arriversOn(e.key, w).any())
      continue; // a phase short of arrivals, or never arrived on: class 4
    // The phase the wait is for, from the warp's own view: the next one of
    // its parity after the last phase it saw. A warp that comes to the
    // wait after the barrier has gone two phases past it lags (the run let
    // another warp run ahead), which is not the protocol's parity.
    auto seen = run.observed.find({w, e.key});
    int64_t last = seen == run.observed.end() ? -2 : seen->second;
    int64_t intended = last + 1 + (((last + 1) & 1) != e.parity);
    // A first wait of parity 1 asks for the phase before the barrier's
    // first (it passes on a fresh barrier), though a phase has completed:
    // its parity is that of the trip, not of the ring's lap.
    if (intended != completed->second && !firstWaitStale(last, intended))
      continue;
    warps.push_back(w);
  }
  return warps;
}

/// Reports the wait of `w` in `run`, blocked on a phase that no arrival
/// starts (unstartedPhaseWaits). Its parity does not follow the barrier's
/// phases (a phase bit carried through the loop without its flip, a ring
/// state restarted where the arrivers carry theirs): on the GPU the wait
/// hangs, or, while the last phase's bulk copies are still landing, returns
/// at once for the phase before, whose data it then reads again.
void reportUnstartedPhase(const BarrierRun &run, int64_t w, Severity severity,
                          Reporter &out) {
  const BarrierEvent &e = run.blockedAt(w);
  int64_t phases = run.mphase.at(e.key);
  llvm::BitVector same = run.blockedAtOp(e.op);
  if (!run.observed.count({w, e.key}) ||
      run.observed.at({w, e.key}) == -2) {
    // The warp's first wait on the barrier, of parity 1, after its first
    // phase completed (tilelang's k % 2 on a ring of three stages).
    out.report(e.op, severity, kDeadlockSlot)
        << "waits with parity 1 on an mbarrier whose first phase has "
           "completed, in the first wait of "
        << run.traces.model.describe(same)
        << " on it: parity 1 asks for the phase before the barrier's first, "
           "so the wait returns at once, before the first phase's arrivals "
           "and copies have come, and reads the data early, or, once they "
           "have, waits for phase "
        << phases
        << ", which no warp can still arrive on (the parity does not follow "
           "the barrier's phases: a parity of the trip where the ring's lap "
           "was meant)";
    return;
  }
  out.report(e.op, severity, kDeadlockSlot)
      << "waits with parity " << e.parity << " for phase " << phases
      << " of an mbarrier that no warp can still arrive on: "
      << run.traces.model.describe(same)
      << " wait here after every arrival on the barrier has come and "
         "completed its "
      << phases
      << " earlier phase(s), so the wait hangs, or, while the last phase's "
         "copies are still landing, returns at once for the phase before it "
         "and reads its data again (the parity does not follow the barrier's "
         "phases: a phase bit not flipped, a pipeline state restarted while "
         "the arriving threads carry theirs)";
}

/// The warps of a stuck run blocked on an mbarrier phase that has some of
/// its arrivals and not its count, which no warp can still arrive on: every
/// other warp whose later events arrive on the barrier waits on it too (for
/// the same phase), the others have ended. The run is one launch's schedule
/// in which the phase never completes: the arrivals of a rendezvous that do
/// not pair up (a warp group that performs one more arrive + wait on a
/// barrier of count 2 than the other: Pallas's schedule_barrier). Not on a
/// group that ops the model does not see may reach (`open`: openRoots).
SmallVector<int64_t> abandonedPhaseWaits(const BarrierRun &run,
                                         const llvm::DenseSet<Value> &open) {
  SmallVector<int64_t> warps;
  for (int64_t w = 0; w < run.traces.numWarps; ++w) {
    if (run.done[w] || run.traces.traces[w].empty())
      continue;
    const BarrierEvent &e = run.blockedAt(w);
    if (e.named() || e.kind != BarrierEvent::Wait)
      continue;
    auto pending = run.pending.find(e.key);
    auto count = run.traces.initCounts.find(e.key);
    if (pending == run.pending.end() || count == run.traces.initCounts.end() ||
        pending->second <= 0 || pending->second >= count->second ||
        run.arriversOn(e.key, w).any())
      continue;
    std::optional<BarrierKey> barrier = barrierOf(e.op);
    if (!barrier || open.contains(barrier->root))
      continue;
    warps.push_back(w);
  }
  return warps;
}

/// Reports the wait of `w`, blocked on an abandoned phase
/// (abandonedPhaseWaits), with each arriving warp's arrivals on the barrier
/// over the run.
void reportAbandonedPhase(const BarrierRun &run, int64_t w, Severity severity,
                          Reporter &out) {
  const BarrierEvent &e = run.blockedAt(w);
  int64_t count = run.traces.initCounts.at(e.key);
  std::map<int64_t, llvm::BitVector> byArrivals; // arrivals -> warps
  for (int64_t u = 0; u < run.traces.numWarps; ++u) {
    int64_t n = 0;
    for (const BarrierEvent &other : run.traces.traces[u])
      if (other.kind == BarrierEvent::Arrive && other.key == e.key)
        n += other.amount;
    if (!n)
      continue;
    auto &warps = byArrivals[n];
    if (warps.empty())
      warps.resize(run.traces.numWarps);
    warps.set(u);
  }
  Reporter::Message message = out.report(e.op, severity, kDeadlockSlot);
  message << "deadlock: " << run.traces.model.describe(run.blockedAtOp(e.op))
          << " wait here for a phase of an mbarrier of arrival count "
          << count << " that gets " << count - run.pending.at(e.key)
          << " arrival(s), and no warp can still arrive on it (the others "
             "that arrive on it have ended or wait on it too): in a sampled "
             "launch,";
  const char *sep = " ";
  for (auto &[n, warps] : byArrivals) {
    message << sep << run.traces.model.describe(warps) << " arrive(s) on it "
            << n << " time(s)";
    sep = ", ";
  }
  message << " (the arrivals of a rendezvous do not pair up: an arrival "
             "left out, or one too many)";
}

/// The report of a stuck run; whether it made one.
bool reportDeadlock(const BarrierRun &run, Severity severity, Reporter &out) {
  int64_t n = run.traces.numWarps;
  if (reportShortPhase(run, severity, out))
    return true;
  // A named barrier that nothing later arrives on.
  for (int64_t w = 0; w < n; ++w) {
    if (run.done[w] || run.traces.traces[w].empty())
      continue;
    const BarrierEvent &e = run.blockedAt(w);
    if (!e.named() || run.arriversOn(e.key, w).any())
      continue;
    // (Fewer threads than the count ever use the id is class 11's error
    // where it knows every use's warps: then this run is not read. Where
    // it does not, an executing set of the CTA's id, the run's CTA says.)
    llvm::BitVector same = run.blockedAtOp(e.op);
    out.report(e.op, severity, kDeadlockSlot)
        << "deadlock: " << run.traces.model.describe(same) << " wait here on "
        << describeEventBarrier(run, e) << " for "
        << (e.count ? std::to_string(e.count) : std::string("all running"))
        << " threads, but its phase gets " << run.arrived.at(e.key)
        << " and no warp can still arrive on it";
    return true;
  }
  // Otherwise every blocked warp waits for another blocked one: a cycle.
  std::vector<int64_t> next(n, -1);
  for (int64_t w = 0; w < n; ++w) {
    if (run.done[w] || run.traces.traces[w].empty())
      continue;
    llvm::BitVector to = run.arriversOn(run.blockedAt(w).key, w);
    for (int u : to.set_bits())
      if (!run.done[u] && u != w) {
        next[w] = u;
        break;
      }
  }
  int64_t start = -1;
  for (int64_t w = 0; w < n && start < 0; ++w)
    if (next[w] >= 0)
      start = w;
  if (start < 0)
    return false;
  // Follow the edges until a warp repeats: that warp is on a cycle.
  std::vector<bool> seen(n, false);
  int64_t w = start;
  while (w >= 0 && !seen[w]) {
    seen[w] = true;
    w = next[w];
  }
  if (w < 0)
    return false;
  // The cycle's steps, warps blocked at one op together.
  SmallVector<int64_t> cycle;
  for (int64_t u = w;;) {
    cycle.push_back(u);
    u = next[u];
    if (u == w)
      break;
  }
  auto groupOf = [&](int64_t u) {
    llvm::BitVector same(n);
    for (int64_t v = 0; v < n; ++v)
      if (!run.done[v] && !run.traces.traces[v].empty() &&
          run.blockedAt(v).op == run.blockedAt(u).op &&
          run.blockedAt(v).key == run.blockedAt(u).key)
        same.set(v);
    return same;
  };
  const BarrierEvent &head = run.blockedAt(cycle.front());
  Reporter::Message message = out.report(head.op, severity, kDeadlockSlot);
  message << "deadlock: a cycle in the wait-for graph: "
          << run.traces.model.describe(groupOf(cycle.front())) << " wait here on "
          << describeEventBarrier(run, head);
  for (size_t i = 1; i < cycle.size(); ++i) {
    const BarrierEvent &e = run.blockedAt(cycle[i]);
    if (e.op == head.op && e.key == head.key)
      continue;
    message << " for " << run.traces.model.describe(groupOf(cycle[i]))
            << ", which wait on " << describeEventBarrier(run, e);
    out.note(head.op, kDeadlockSlot, e.op->getLoc(),
             run.traces.model.describe(groupOf(cycle[i])) + " wait here");
  }
  message << " for the first ones, before arriving on it";
  return true;
}
} // namespace

void checksync::checkDeadlock(FunctionOpInterface fn, SPMDModel &model,
                              Reporter &out) {
  // A hang that follows from a bug already reported as an error (a count
  // that never completes a phase, a first wait without the phase offset) is
  // that error's consequence: the wait-for graph is read only where no
  // other class has certainly failed the function, so one bug is one error.
  // The run takes each barrier's count as right: more arrivals than the
  // count (class 3, a warning too) drift its phases from the protocol's, and
  // a blocked run there says nothing the count's report does not.
  if (out.hasError() || out.hasReport(kOverArrivalSlot))
    return;
  ProtocolModel protocol(fn, model);
  if (protocol.overBudget())
    fn->emitRemark("mbarrier-check-sync: the protocol model's work budget "
                   "ran out on this function (")
        << ProtocolModel::kWorkBudget
        << " ops walked); its wait-for graph (class 12) is not analyzed";
  if (!protocol.ok())
    return;
  // Each instance in two schedules. An error where every instance (every
  // sampled trip count) deadlocks in both; a warning where some run does.
  std::vector<std::unique_ptr<BarrierTraces>> traces;
  std::vector<std::unique_ptr<BarrierRun>> runs; // ascending, descending
  for (const ProtocolInstance &instance : protocol.instances()) {
    traces.push_back(std::make_unique<BarrierTraces>(protocol, instance));
    for (bool descending : {false, true}) {
      runs.push_back(std::make_unique<BarrierRun>(*traces.back()));
      runs.back()->run(descending);
      if (runs.back()->failed) {
        LLVM_DEBUG(llvm::dbgs() << "wait-for run, sample " << instance.sample
                                << ": outside the model (an over-arrival or "
                                   "two counts in one phase)\n");
        return;
      }
    }
  }
  // The instances an error speaks for: those where every loop bounded by a
  // parameter runs at least one trip, or every instance where no sampled
  // launch has that (a peeled loop: one of two loops always runs none).
  bool anyFull = llvm::any_of(protocol.instances(),
                              [](const ProtocolInstance &in) { return in.full(); });
  const BarrierRun *stuck = nullptr;
  bool everyRun = true;
  // A sampled launch with a loop of no trips may not be one the kernel
  // allows (a peeled last trip that assumes one): only the counted
  // instances report.
  for (auto &run : runs) {
    bool counts = !anyFull || run->traces.instance.full();
    if (!counts)
      continue;
    if (run->stuck()) {
      if (!stuck)
        stuck = run.get();
    } else {
      everyRun = false;
    }
  }
  if (stuck) {
    // A deadlock of mbarriers alone, with no cycle through two of them, is
    // CheckCounts.cpp's (a phase that never completes).
    Severity severity = everyRun ? Severity::Error : Severity::Warning;
    std::map<int64_t, bool> keys;
    bool namedBlocked = false;
    for (int64_t w = 0; w < stuck->traces.numWarps; ++w)
      if (!stuck->done[w] && !stuck->traces.traces[w].empty()) {
        keys[stuck->blockedAt(w).key] = true;
        namedBlocked |= stuck->blockedAt(w).named();
      }
    if ((keys.size() > 1 || namedBlocked) &&
        reportDeadlock(*stuck, severity, out))
      return;
    // One mbarrier whose phase every warp that ever arrives on it has
    // brought its arrival to, short of the count (the consumers of a
    // test_wait loop spinning on a full barrier counted for the block):
    // class 4 counts straight-line arrivals only.
    if (keys.size() == 1 && !namedBlocked &&
        reportShortPhase(*stuck, severity, out))
      return;
    // The waits that `waits` finds at the same op in both schedules of a
    // counted instance (a warp that only lags a whole phase behind in one
    // schedule, such as a producer warp that waits and never arrives, is
    // the schedule's, not the protocol's): per op, the instances that have
    // it and the first run, the ops in the order found.
    // A warp's first wait on a barrier, of parity 1, left blocked after the
    // barrier's first phase in one schedule only, by a warp that arrives on
    // mbarriers itself (a producer, not a warp that only watches: the other
    // warps of CUTLASS's producer warp group, whose lag nothing bounds), is
    // a hang of that schedule: the warp never saw a phase of the barrier,
    // and parity 1 asks for the one before the first (ThunderKittens'
    // producer waiting compute_done one lap ahead, whose consumers released
    // the prologue's block before the wait): a warning.
    int64_t counted = 0;
    for (size_t i = 0; i + 1 < runs.size(); i += 2)
      counted += !anyFull || runs[i]->traces.instance.full();
    using Hits =
        llvm::DenseMap<Operation *, std::pair<int64_t, const BarrierRun *>>;
    auto hitsOf = [&](auto waits, Hits &hits, SmallVector<Operation *> &order) {
      for (size_t i = 0; i + 1 < runs.size(); i += 2) {
        if (anyFull && !runs[i]->traces.instance.full())
          continue;
        llvm::SmallPtrSet<Operation *, 4> both, seen;
        for (int64_t u : waits(*runs[i + 1]))
          both.insert(runs[i + 1]->blockedAt(u).op);
        for (int64_t u : waits(*runs[i])) {
          Operation *op = runs[i]->blockedAt(u).op;
          if (!both.contains(op) || !seen.insert(op).second)
            continue;
          auto &hit = hits[op];
          if (!hit.second) {
            hit.second = runs[i].get();
            order.push_back(op);
          }
          ++hit.first;
        }
      }
    };
    // Reports the first op of `order` at its first blocked warp; whether
    // it did (an error where every counted instance has it, else a
    // warning, or only errors with `errorsOnly`).
    auto reportFirst = [&](const Hits &hits, ArrayRef<Operation *> order,
                           bool errorsOnly, auto report) {
      for (Operation *op : order) {
        auto [instances, run] = hits.lookup(op);
        if (errorsOnly && instances != counted)
          continue;
        for (int64_t u = 0; u < run->traces.numWarps; ++u)
          if (!run->done[u] && !run->traces.traces[u].empty() &&
              run->blockedAt(u).op == op) {
            report(*run, u,
                   instances == counted ? Severity::Error : Severity::Warning,
                   out);
            return true;
          }
      }
      return false;
    };
    // A wait on a started phase that no warp can still arrive on, first
    // where it is an error; then a wait for a phase that no arrival starts
    // (every one reported); then the first as a warning.
    Hits abandoned, unstarted;
    SmallVector<Operation *> abandonedOrder, unstartedOrder;
    llvm::DenseSet<Value> open;
    for (Value root : openRoots(fn))
      open.insert(root);
    hitsOf([&](const BarrierRun &run) { return abandonedPhaseWaits(run, open); },
           abandoned, abandonedOrder);
    if (reportFirst(abandoned, abandonedOrder, /*errorsOnly=*/true,
                    reportAbandonedPhase))
      return;
    hitsOf(unstartedPhaseWaits, unstarted, unstartedOrder);
    for (Operation *op : unstartedOrder)
      reportFirst(unstarted, {op}, /*errorsOnly=*/false, reportUnstartedPhase);
    auto firstStale = [](const BarrierRun &run, int64_t u) {
      const BarrierEvent &e = run.blockedAt(u);
      auto seen = run.observed.find({u, e.key});
      return e.parity == 1 &&
             (seen == run.observed.end() || seen->second == -2) &&
             llvm::any_of(run.traces.traces[u], [](const BarrierEvent &a) {
               return a.kind == BarrierEvent::Arrive && !a.named() &&
                      !a.cluster();
             });
    };
    SmallVector<std::pair<Operation *, const BarrierRun *>> oneSchedule;
    for (size_t i = 0; i + 1 < runs.size(); i += 2) {
      if (anyFull && !runs[i]->traces.instance.full())
        continue;
      for (size_t r : {i, i + 1})
        for (int64_t u : unstartedPhaseWaits(*runs[r]))
          if (Operation *op = runs[r]->blockedAt(u).op;
              !unstarted.count(op) && firstStale(*runs[r], u) &&
              llvm::none_of(oneSchedule,
                            [&](auto &hit) { return hit.first == op; }))
            oneSchedule.push_back({op, runs[r].get()});
    }
    for (auto &[op, run] : oneSchedule)
      for (int64_t u = 0; u < run->traces.numWarps; ++u)
        if (!run->done[u] && !run->traces.traces[u].empty() &&
            run->blockedAt(u).op == op) {
          reportUnstartedPhase(*run, u, Severity::Warning, out);
          break;
        }
    if (unstartedOrder.empty() && oneSchedule.empty())
      reportFirst(abandoned, abandonedOrder, /*errorsOnly=*/false,
                  reportAbandonedPhase);
    return;
  }
  // Every warp ended: a named-barrier phase that completed with arrivals
  // only, which no bar.sync waits for. (A phase left incomplete at the end
  // is the last turn of a ping-pong, handed to nobody: silent.) Only where
  // no trip count is sampled: a sampled launch may be one the kernel does
  // not allow, whose turns do not pair up.
  if (protocol.sampled())
    return;
  for (auto [key, op] : runs.front()->unmatched)
    out.report(op, Severity::Warning, kUnmatchedArriveSlot)
        << "arrives on named barrier "
        << describeNamedBarrier(op, key % kNamedPerCTA)
        << " in a phase that completes with bar.arrive alone: no thread "
           "waits for it (an arrive never matched by a sync: was a bar.sync "
           "meant here?)";
}
