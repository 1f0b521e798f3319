//===- DeadlockPhases.cpp - a stuck run on one mbarrier phase (class 12) --===//
//
// The reports of a run stuck on one mbarrier (DeadlockRun.h): a short phase
// (every warp that arrives has, short of the count: the init's count, or an
// elected arrival), a wait for a phase that no arrival starts, and a started
// phase that no warp can still arrive on.
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "DeadlockRun.h"
#include "mbarrier/Dialect/MBarrier/Transforms/PipeLowering.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;

namespace mlir::mbarrier::checksync::deadlock {

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
    llvm::BitVector arrivers(n), waiting = run.blockedAtOp(e.op);
    for (auto [u, k] : arrives->second)
      arrivers.set(u);
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
    // A pipe's empty barrier counts the consumers its type declares: the
    // releases that bring fewer are the bug, reported there.
    bool pipe = init->second->hasAttr(kPipeConsumerCountAttr);
    Operation *at = pipe ? arrive->op : init->second;
    Reporter::Message message = out.report(at, severity, kDeadlockSlot);
    if (pipe)
      message << "deadlock: a phase of this pipe's empty barrier gets " << got
              << " release arrival(s), but the pipe's type counts " << count
              << " consumer arrival(s) per phase: ";
    else
      message << "deadlock: initialized with arrival count " << count
              << ", but a phase of the barrier gets " << got << " arrival(s): ";
    message << run.traces.model.describe(arrivers);
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
    out.note(at, kDeadlockSlot, e.op->getLoc(),
             "the wait that never completes");
    if (pipe)
      out.note(at, kDeadlockSlot, init->second->getLoc(),
               "the pipe's init, with the consumer count of its type");
    else
      out.note(at, kDeadlockSlot, arrive->op->getLoc(),
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

/// The mbarrier wait that warp `w` of a stuck run is blocked at, with the
/// barrier's pending arrivals and init count; none where `w` is done,
/// blocked elsewhere, or the counts are not known.
struct BlockedWait {
  const BarrierEvent &event;
  int64_t pending, count;
};
static std::optional<BlockedWait> blockedWait(const BarrierRun &run,
                                              int64_t w) {
  if (run.done[w] || run.traces.traces[w].empty())
    return std::nullopt;
  const BarrierEvent &e = run.blockedAt(w);
  if (e.named() || e.kind != BarrierEvent::Wait)
    return std::nullopt;
  auto pending = run.pending.find(e.key);
  auto count = run.traces.initCounts.find(e.key);
  if (pending == run.pending.end() || count == run.traces.initCounts.end())
    return std::nullopt;
  return BlockedWait{e, pending->second, count->second};
}

SmallVector<int64_t> unstartedPhaseWaits(const BarrierRun &run) {
  SmallVector<int64_t> warps;
  for (int64_t w = 0; w < run.traces.numWarps; ++w) {
    std::optional<BlockedWait> blocked = blockedWait(run, w);
    if (!blocked)
      continue;
    const BarrierEvent &e = blocked->event;
    auto completed = run.mphase.find(e.key);
    if (blocked->pending != blocked->count || completed == run.mphase.end() ||
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

SmallVector<int64_t> abandonedPhaseWaits(const BarrierRun &run,
                                         const llvm::DenseSet<Value> &open) {
  SmallVector<int64_t> warps;
  for (int64_t w = 0; w < run.traces.numWarps; ++w) {
    std::optional<BlockedWait> blocked = blockedWait(run, w);
    if (!blocked || blocked->pending <= 0 ||
        blocked->pending >= blocked->count ||
        run.arriversOn(blocked->event.key, w).any())
      continue;
    std::optional<BarrierKey> barrier = barrierOf(blocked->event.op);
    if (!barrier || open.contains(barrier->root))
      continue;
    warps.push_back(w);
  }
  return warps;
}

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

} // namespace mlir::mbarrier::checksync::deadlock
