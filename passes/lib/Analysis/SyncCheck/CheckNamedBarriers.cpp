//===- CheckNamedBarriers.cpp - named-barrier ids and counts (class 11) ---===//
//
// The CTA's named barriers (bar.sync / bar.arrive / bar.red: mbarrier's
// bar_* ops and upstream nvvm.barrier, nvvm.barrier.arrive, gpu.barrier),
// with their id and thread count evaluated at every point that executes
// them (the SPMD model), per CTA of the cluster:
//
// - a bar.sync / bar.red that waits for more threads than all the ops on
//   its id ever bring (a warp arrives for its 32 threads, once per op; where
//   some op on the id is in a loop and every op in a loop waits, once per
//   phase: a warp that syncs blocks until the phase completes): it never
//   completes, in every launch: an error (a loop's trips are taken to be at
//   least one, as the model does everywhere);
// - one id used with two thread counts by groups that share no warp: the
//   id of two roles (flashinfer#4533), whose arrivals count toward each
//   other's phases: a warning (it goes wrong where the roles overlap in
//   time, which the model does not order).
//
// - the balance of syncs: where every op on an id is a sync of one count,
//   32 times the warps that use the id, in one loop, each phase takes one
//   sync of every warp, so a warp that syncs more often per trip than
//   another hangs: an error at its extra syncs;
// - one rendezvous with two counts: ops of count T, 32 times every warp
//   that uses the id, by warps that bring fewer than T, and the other warps
//   use the id with other counts only: every phase the former complete
//   mixes two counts on one barrier (the PTX ISA has warps share a barrier
//   "using the same barrier name and thread count"), and a phase of the
//   other count completes without them: an error at the other count's ops;
// - class 14, one id for two roles with one count (a warning at the role
//   that uses the id fewer times), also over the points that may execute
//   the syncs where a trip count is loaded from memory (mayExecSet).
//
// Where threads run different trips of an scf.while whose first trip they
// all run (a persistent tile loop), the rules but the balance of syncs
// read the warps that enter it (SPMDModel::enteredExecSet); an op there
// under a condition the model does not evaluate (the loop's trip) is one
// that those warps may execute: an arrival, never a report's subject.
// Silence where some named-barrier op's points, id or count are unknown.
// The wait-for graph across barriers is CheckDeadlock.cpp's.
//
//===----------------------------------------------------------------------===//
#include "NamedBarriers.h"

#include "llvm/Support/Debug.h"

#include <map>

#define DEBUG_TYPE "mbarrier-named-barriers"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;


std::optional<NamedBarrierOpInfo> checksync::namedBarrierOpOf(Operation *op) {
  if (isa<BarSyncOp, BarRedOp>(op))
    return NamedBarrierOpInfo{true, false};
  if (isa<BarArriveOp>(op))
    return NamedBarrierOpInfo{false, false};
  if (std::optional<UpstreamNamedBarrier> up = upstreamNamedBarrierOf(op))
    return NamedBarrierOpInfo{up->waits, true};
  return std::nullopt;
}

static NamedBarrierOp namedBarrierDeclarationOf(Operation *op) {
  if (auto sync = dyn_cast<BarSyncOp>(op))
    return sync.getDeclaration();
  if (auto arrive = dyn_cast<BarArriveOp>(op))
    return arrive.getDeclaration();
  if (auto red = dyn_cast<BarRedOp>(op))
    return red.getDeclaration();
  return {};
}

std::optional<int64_t> checksync::namedBarrierKeyAt(Operation *op,
                                                    SPMDModel &model, Point p) {
  if (std::optional<UpstreamNamedBarrier> up = upstreamNamedBarrierOf(op)) {
    if (!up->id)
      return 0;
    return model.evalInt(up->id, p);
  }
  NamedBarrierOp decl = namedBarrierDeclarationOf(op);
  if (!decl)
    return std::nullopt;
  if (std::optional<uint32_t> id = decl.getId())
    return *id;
  int64_t position = 0;
  for (Operation &other : decl->getBlock()->getOperations()) {
    if (&other == decl.getOperation())
      return 16 + position;
    position += isa<NamedBarrierOp>(&other);
  }
  return std::nullopt;
}

std::optional<int64_t> checksync::namedBarrierCountAt(Operation *op,
                                                      SPMDModel &model,
                                                      Point p) {
  if (std::optional<UpstreamNamedBarrier> up = upstreamNamedBarrierOf(op)) {
    if (!up->threads)
      return 0;
    return model.evalInt(up->threads, p);
  }
  if (auto sync = dyn_cast<BarSyncOp>(op))
    return sync.getThreads();
  if (auto arrive = dyn_cast<BarArriveOp>(op))
    return arrive.getThreads();
  if (auto red = dyn_cast<BarRedOp>(op))
    return red.getThreads();
  return std::nullopt;
}

std::string checksync::describeNamedBarrier(Operation *op, int64_t key) {
  if (NamedBarrierOp decl = namedBarrierDeclarationOf(op)) {
    std::string text = "@" + decl.getSymName().str();
    if (key < 16)
      text += " (id " + std::to_string(key) + ")";
    return text;
  }
  return "id " + std::to_string(key);
}

std::string checksync::describeWarps(const llvm::BitVector &warps) {
  std::string text;
  int first = warps.find_first();
  while (first >= 0) {
    int last = first;
    while (last + 1 < static_cast<int>(warps.size()) && warps.test(last + 1))
      ++last;
    text += (text.empty() ? "" : ", ") + std::to_string(first);
    if (last > first)
      text += "-" + std::to_string(last);
    first = last + 1 < static_cast<int>(warps.size()) ? warps.find_next(last)
                                                      : -1;
  }
  return (warps.count() == 1 ? "warp " : "warps ") + text;
}

namespace {
/// One named-barrier op as the points of one CTA use it: per barrier key,
/// its count and the warps.
struct NamedBarrierUse {
  Operation *op;
  bool waits;
  int64_t key;
  int64_t count; // threads; 0: every thread that has not exited
  llvm::BitVector warps;
  /// Whether those warps execute it in every launch (else they may: an op
  /// under a condition on a loop's trip, UseSets::Entered).
  bool certain = true;
};

/// Which executing sets namedBarrierUsesOf reads.
enum class UseSets {
  Exact,   // SPMDModel::execSet
  Entered, // enteredExecSet: the warps that execute each op at least once;
           // under an scf.if whose condition it does not know (a trip's),
           // those that may (the if's points), not `certain`
  May,     // mayExecSet: a trip count loaded from memory, for warnings
};

/// The uses of CTA `rank`, or none where some op's points, id or count are
/// unknown (or differ within a warp).
std::optional<SmallVector<NamedBarrierUse>> namedBarrierUsesOf(ArrayRef<Operation *> ops,
                                       SPMDModel &model, int64_t rank,
                                       UseSets sets = UseSets::Exact) {
  int64_t numWarps = (model.threads() + kWarpSize - 1) / kWarpSize;
  SmallVector<NamedBarrierUse> uses;
  for (Operation *op : ops) {
    bool waits = namedBarrierOpOf(op)->waits;
    const ExecSet *points = sets == UseSets::May ? &model.mayExecSet(op)
                            : sets == UseSets::Entered
                                ? &model.enteredExecSet(op)
                                : &model.execSet(op);
    bool certain = true;
    for (Operation *at = op; sets == UseSets::Entered && !*points &&
                             at->getParentOp() && isIfOp(at->getParentOp());
         certain = false) {
      at = at->getParentOp();
      points = &model.enteredExecSet(at);
    }
    if (!*points)
      return std::nullopt;
    // (key, count) -> warps
    std::map<std::pair<int64_t, int64_t>, llvm::BitVector> parts;
    for (unsigned b : (*points)->set_bits()) {
      Point p = model.point(b);
      if (p.rank != rank)
        continue;
      std::optional<int64_t> key = namedBarrierKeyAt(op, model, p);
      std::optional<int64_t> count = namedBarrierCountAt(op, model, p);
      if (!key || !count)
        return std::nullopt;
      // Countless (every thread of the CTA, as many as have not exited):
      // neither rule applies, kept as count 0.
      auto &warps = parts[{*key, *count}];
      if (warps.empty())
        warps.resize(numWarps);
      warps.set(p.tid / kWarpSize);
    }
    for (auto &[keyCount, warps] : parts)
      uses.push_back(
          {op, waits, keyCount.first, keyCount.second, warps, certain});
  }
  return uses;
}
} // namespace

/// Class 13: `use`, a count-less bar.sync (every thread of the CTA), is
/// reached by some warps of the CTA, and the others (outside `reaching`)
/// reach no count-less barrier of that id at all.
static void reportPartialCTABarrier(const NamedBarrierUse &use,
                                    const llvm::BitVector &reaching,
                                    int64_t numWarps, SPMDModel &model,
                                    int64_t rank, Reporter &out) {
  llvm::BitVector others(numWarps, true);
  others.reset(reaching);
  out.report(use.op, Severity::Warning, kPartialCTABarrierSlot)
      << "a CTA-wide barrier (bar.sync " << use.key
      << " for every thread of the CTA) that " << describeWarps(use.warps)
      << " reach in a branch, while " << describeWarps(others)
      << (model.ranks() > 1 ? " of CTA " + std::to_string(rank) : "")
      << " never reach one: it waits for their exit, not for a barrier of "
         "the warps that reach it (use a named barrier with their thread "
         "count)";
}

/// The ops on `key` by warps all inside `warps`.
static int64_t opsWithin(ArrayRef<NamedBarrierUse> uses, int64_t key,
                         const llvm::BitVector &warps) {
  return llvm::count_if(uses, [&](const NamedBarrierUse &u) {
    llvm::BitVector outside = u.warps;
    outside.reset(warps);
    return u.key == key && outside.none();
  });
}

/// Class 14: the id of two roles with one count, each of which alone
/// completes a phase. Reported at the sync of the role that uses the id
/// fewer times (the one that took another role's id: DeepGEMM's second
/// epilogue on the first one's barrier), the later one of a tie.
static void reportSameCountRoles(ArrayRef<NamedBarrierUse> uses,
                                 Reporter &out) {
  llvm::SmallPtrSet<Operation *, 4> reported;
  for (const NamedBarrierUse &use : uses) {
    if (use.count == 0 || !use.waits || !use.certain)
      continue;
    for (const NamedBarrierUse &other : uses) {
      if (&other == &use)
        break;
      if (other.key != use.key || other.count != use.count ||
          other.op == use.op || !other.waits || !other.certain ||
          other.warps.anyCommon(use.warps) ||
          static_cast<int64_t>(use.warps.count()) * kWarpSize < use.count ||
          static_cast<int64_t>(other.warps.count()) * kWarpSize < use.count)
        continue;
      bool otherFewer = opsWithin(uses, use.key, other.warps) <
                        opsWithin(uses, use.key, use.warps);
      const NamedBarrierUse &at = otherFewer ? other : use;
      const NamedBarrierUse &peer = otherFewer ? use : other;
      if (!reported.insert(at.op).second)
        break;
      out.report(at.op, Severity::Warning, kSameCountRolesSlot)
          << "syncs on named barrier " << describeNamedBarrier(at.op, at.key)
          << " for " << at.count << " threads (" << describeWarps(at.warps)
          << "), and " << describeWarps(peer.warps)
          << ", which share no warp with them, sync on the same id with the "
             "same count: each group alone completes a phase, so the two "
             "roles' arrivals count toward each other's phases and a phase "
             "can complete with threads of both (give each role its own "
             "named barrier)";
      out.note(at.op, kSameCountRolesSlot, peer.op->getLoc(),
               "the other role's sync on the id");
      break;
    }
  }
}

/// Class 11, the balance of syncs: where every op on `key` is a bar.sync /
/// bar.red for C threads, C is 32 times the warps that ever use the id, and
/// every op on it is in the same innermost loop (or none), each phase takes
/// exactly one sync of every one of those warps (a warp brings its 32
/// threads once and blocks until the phase completes). A warp that syncs
/// on the id more times per trip than another then outruns it: its syncs
/// beyond the other's never complete, in every launch that runs a trip.
/// Reported at the syncs that only some of the warps reach.
static void reportUnbalancedSyncs(ArrayRef<NamedBarrierUse> uses,
                                  int64_t key, const llvm::BitVector &every,
                                  Operation *fn, SPMDModel &model,
                                  int64_t rank, Reporter &out) {
  auto innermostLoop = [&](Operation *op) -> Operation * {
    for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
      if (isLoop(p))
        return p;
    return nullptr;
  };
  std::optional<Operation *> loop;
  std::optional<int64_t> count;
  for (const NamedBarrierUse &u : uses) {
    if (u.key != key)
      continue;
    if (!u.waits || u.count == 0 || (count && *count != u.count) ||
        (loop && *loop != innermostLoop(u.op)))
      return;
    count = u.count;
    loop = innermostLoop(u.op);
  }
  if (!count || *count != static_cast<int64_t>(every.count()) * kWarpSize)
    return;
  // Syncs per trip of each warp of the id.
  std::map<int, int64_t> syncs;
  for (const NamedBarrierUse &u : uses)
    if (u.key == key)
      for (unsigned w : u.warps.set_bits())
        ++syncs[w];
  int64_t most = 0, least = INT64_MAX;
  for (auto &[w, n] : syncs) {
    most = std::max(most, n);
    least = std::min(least, n);
  }
  if (most == least)
    return;
  llvm::BitVector ahead(every.size()), behind(every.size());
  for (auto &[w, n] : syncs)
    (n == most ? ahead : behind).set(w);
  // The syncs that only warps ahead reach, the last (most - least) of them
  // in program order: those beyond the others' syncs.
  SmallVector<const NamedBarrierUse *> extra;
  for (const NamedBarrierUse &u : uses) {
    llvm::BitVector outside = u.warps;
    outside.reset(ahead);
    if (u.key == key && outside.none())
      extra.push_back(&u);
  }
  if (static_cast<int64_t>(extra.size()) > most - least)
    extra.erase(extra.begin(), extra.end() - (most - least));
  const char *per = *loop ? "per trip" : "in all";
  for (const NamedBarrierUse *use : extra) {
    const NamedBarrierUse &u = *use;
    out.report(u.op, Severity::Error, kUnbalancedSyncsSlot)
        << "syncs on named barrier " << describeNamedBarrier(u.op, key)
        << " for " << *count << " threads, every warp that uses the id ("
        << describeWarps(every)
        << (model.ranks() > 1 ? " of CTA " + std::to_string(rank) : "")
        << "), but only " << describeWarps(u.warps)
        << " reach this sync: each phase takes one sync of every one of "
           "them, and "
        << describeWarps(ahead) << " sync on the id " << most
        << " time(s) " << per << " where "
        << describeWarps(behind) << " sync " << least
        << " time(s): their syncs beyond the others' never complete";
  }
}

/// Class 11, one rendezvous with two counts: on `key`, where every op has a
/// count, some ops count T threads, 32 times every warp that uses the id,
/// and the warps of those ops bring fewer than T, so that their arrivals
/// complete a phase only with threads of the other warps, which use the id
/// with other counts only: every phase that they complete takes arrivals
/// of two thread counts (the PTX ISA has bar.sync and bar.arrive share a
/// barrier "using the same barrier name and thread count"), and one of the
/// other count completes without them (FA3's TileCountSmemFull synced with
/// NumMmaThreads where the producer warp arrives with NumThreads). An error
/// at the ops of the other counts; whether it made one.
static bool reportMixedCounts(ArrayRef<NamedBarrierUse> uses, int64_t key,
                  const llvm::BitVector &every, SPMDModel &model,
                  int64_t rank, Reporter &out) {
  bool reported = false;
  int64_t whole = static_cast<int64_t>(every.count()) * kWarpSize;
  llvm::BitVector wholeWarps(every.size());
  const NamedBarrierUse *wholeUse = nullptr;
  for (const NamedBarrierUse &u : uses) {
    if (u.key != key)
      continue;
    if (u.count == 0)
      return reported;
    if (u.count == whole) {
      wholeWarps |= u.warps;
      if (u.certain)
        wholeUse = wholeUse ? wholeUse : &u;
    }
  }
  // A partial last warp brings fewer than 32 threads: not counted here.
  int64_t numWarps = (model.threads() + kWarpSize - 1) / kWarpSize;
  if (!wholeUse || wholeWarps == every ||
      (model.threads() % kWarpSize && every.test(numWarps - 1)))
    return reported;
  for (const NamedBarrierUse &u : uses) {
    if (u.key != key || u.count == whole || !u.certain ||
        u.warps.anyCommon(wholeWarps))
      continue;
    reported = true;
    const char *verb = u.waits ? "syncs on" : "arrives on";
    out.report(u.op, Severity::Error, kMixedCountsSlot)
        << verb << " named barrier "
        << describeNamedBarrier(u.op, key) << " for " << u.count
        << " threads (" << describeWarps(u.warps) << "), but "
        << describeWarps(wholeWarps)
        << (model.ranks() > 1 ? " of CTA " + std::to_string(rank) : "")
        << (wholeWarps.count() == 1 ? " uses" : " use") << " the id with "
        << whole
        << " threads, every warp that uses it: their arrivals complete a "
           "phase only with threads of the other warps, which use the id "
           "with other counts, so every phase of theirs mixes two thread "
           "counts on one barrier (bar.sync and bar.arrive share a barrier "
           "only with the same thread count), and a phase of "
        << u.count << " completes without " << describeWarps(wholeWarps);
    out.note(u.op, kMixedCountsSlot, wholeUse->op->getLoc(),
             "a use of the id with " + std::to_string(whole) + " threads");
  }
  return reported;
}

void checksync::checkNamedBarriers(FunctionOpInterface fn, SPMDModel &model,
                                   Reporter &out) {
  if (!model.countable())
    return;
  SmallVector<Operation *> ops;
  bool opaque = false;
  fn->walk([&](Operation *op) {
    opaque |= isOpaqueCall(op);
    if (namedBarrierOpOf(op))
      ops.push_back(op);
  });
  if (ops.empty() || opaque)
    return;
  for (int64_t rank = 0; rank < model.ranks(); ++rank) {
    std::optional<SmallVector<NamedBarrierUse>> uses =
        namedBarrierUsesOf(ops, model, rank);
    // Where threads run different trips of a loop whose first trip they
    // all run (a persistent tile loop), the warps that execute each op at
    // least once: every rule but the balance of syncs per trip holds.
    bool entered = false;
    if (!uses) {
      uses = namedBarrierUsesOf(ops, model, rank, UseSets::Entered);
      entered = static_cast<bool>(uses);
      LLVM_DEBUG(llvm::dbgs() << "named barriers of CTA " << rank << ": "
                              << (entered ? "over the warps that enter the "
                                            "loops"
                                          : "unknown")
                              << "\n");
    }
    if (!uses) {
      // Only the warning of class 14 holds on the points that may execute
      // the ops (a trip count loaded from memory).
      if (std::optional<SmallVector<NamedBarrierUse>> may =
              namedBarrierUsesOf(ops, model, rank, UseSets::May))
        reportSameCountRoles(*may, out);
      return;
    }
    reportSameCountRoles(*uses, out);
    // Per key: the warps that use it, every arrival its ops make (a warp
    // may arrive twice in a phase: bar.arrive, then bar.sync), and whether
    // an op on it is in a loop (then the arrivals are not bounded).
    //
    // In a loop, the arrivals of one phase are bounded where every op on
    // the id in a loop waits (bar.sync / bar.red): a warp that arrives there
    // blocks until the phase completes, so it brings at most its threads
    // to a phase through those ops, plus the bar.arrive ops outside loops.
    std::map<int64_t, llvm::BitVector> everyWarp, waitingWarps;
    std::map<int64_t, int64_t> arrivals, arrivesOutsideLoops;
    std::map<int64_t, bool> inLoop, arriveInLoop;
    for (const NamedBarrierUse &use : *uses) {
      auto &warps = everyWarp[use.key];
      auto &waiting = waitingWarps[use.key];
      if (warps.empty()) {
        warps.resize(use.warps.size());
        waiting.resize(use.warps.size());
      }
      warps |= use.warps;
      arrivals[use.key] += use.warps.count() * kWarpSize;
      bool looped = false;
      for (Operation *parent = use.op->getParentOp();
           parent && parent != fn.getOperation(); parent = parent->getParentOp())
        looped = looped || isLoop(parent);
      inLoop[use.key] = inLoop[use.key] || looped;
      if (use.waits)
        waiting |= use.warps;
      else if (looped)
        arriveInLoop[use.key] = true;
      else
        arrivesOutsideLoops[use.key] += use.warps.count() * kWarpSize;
    }
    int64_t numWarps = (model.threads() + kWarpSize - 1) / kWarpSize;
    // The ids of a rendezvous with two counts: not also two roles' id.
    std::map<int64_t, bool> mixed;
    for (auto &[key, warps] : everyWarp)
      mixed[key] = reportMixedCounts(*uses, key, warps, model, rank, out);
    for (const NamedBarrierUse &use : *uses) {
      int64_t arriving = arrivals[use.key];
      if (use.count == 0) {
        // Class 13: a count-less CTA barrier (bar.sync 0, __syncthreads)
        // in a role branch.
        if (use.waits && use.certain &&
            static_cast<int64_t>(everyWarp[use.key].count()) <
                             numWarps)
          reportPartialCTABarrier(use, everyWarp[use.key], numWarps, model,
                                  rank, out);
        continue;
      }
      bool looped = inLoop[use.key];
      if (looped && !arriveInLoop[use.key])
        arriving = waitingWarps[use.key].count() * kWarpSize +
                   arrivesOutsideLoops[use.key];
      if (use.waits && use.certain && (!looped || !arriveInLoop[use.key]) &&
          use.count > arriving) {
        out.report(use.op, Severity::Error, kNeverCompletesSlot)
            << "waits on named barrier "
            << describeNamedBarrier(use.op, use.key) << " for " << use.count
            << " threads, but only " << arriving << " arrivals ("
            << describeWarps(everyWarp[use.key])
            << (model.ranks() > 1 ? " of CTA " + std::to_string(rank) : "")
            << ") ever arrive on it"
            << (looped ? " in a phase (in a loop, a warp that syncs on it "
                         "arrives once per phase)"
                       : "")
            << ": the barrier never completes";
        continue;
      }
      // Another count on the same id by a group that shares no warp.
      for (const NamedBarrierUse &other : *uses) {
        if (mixed[use.key])
          break;
        if (&other == &use)
          break;
        if (!use.certain || !other.certain || other.key != use.key ||
            other.count == use.count || other.count == 0 ||
            other.warps.anyCommon(use.warps))
          continue;
        out.report(use.op, Severity::Warning, kTwoCountsSlot)
            << "uses named barrier " << describeNamedBarrier(use.op, use.key)
            << " with " << use.count << " threads ("
            << describeWarps(use.warps) << "), which "
            << describeWarps(other.warps) << " use with " << other.count
            << " threads: one id for two groups that share no warp, whose "
               "arrivals count toward each other's phases (give each role "
               "its own named barrier)";
        out.note(use.op, kTwoCountsSlot, other.op->getLoc(),
                 "the other group's use of the id");
        break;
      }
    }
    for (auto &[key, warps] : everyWarp)
      if (!entered)
        reportUnbalancedSyncs(*uses, key, warps, fn.getOperation(), model, rank,
                            out);
  }
}
