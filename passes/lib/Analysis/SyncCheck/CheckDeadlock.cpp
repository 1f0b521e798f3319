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
// The events come from the protocol model (ProtocolModel.h): every CTA of a
// declared cluster (CTA 0 of the grid's first cluster and its peers), loops
// of constant trips and loops bounded by kernel parameters (one instance per
// sampled trip count), remote arrivals with their target CTAs, a cluster
// barrier reached by some lanes of a warp taken as the warp's. Silence (no
// run) where the model cannot decide: a cluster of several CTAs that the
// kernel does not declare, an unknown block, unstructured control flow, a
// call it cannot see, a loop whose trips it can neither count nor sample, an
// op whose points, id, count, index or parity are unknown or differ within a
// warp, a polling wait (other than a spin loop on a test_wait / try_wait: a
// wait), a barrier initialized twice or never; past the work budget, a
// remark.
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "DeadlockRun.h"

#include "llvm/Support/Debug.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::deadlock;

namespace {
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
        if (int u = run->blockedAtOp(op).find_first(); u >= 0) {
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
      if (int u = run->blockedAtOp(op).find_first(); u >= 0)
        reportUnstartedPhase(*run, u, Severity::Warning, out);
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
