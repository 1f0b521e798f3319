//===- CheckCpAsyncGroups.cpp - reads before a cp.async group lands -------===//
//
// Class 18. `cp.async` (global -> shared, the multistage rings of CUTLASS's
// SM80 mainloop, FlashInfer and Marlin) writes its destination
// asynchronously. The issuing thread closes its open cp.async-group with
// `cp.async.commit_group`; `cp.async.wait_group N` returns once at most the
// newest N of its committed groups are pending (PTX ISA, "cp.async.wait_group":
// the older ones have completed); a CTA barrier after the wait then makes
// the data visible to the other threads. A read of a stage whose group may
// still be pending (wait_group N one too large: the group of the stage
// about to be read is among the newest N) races with the copy.
//
// A query of the protocol model (ProtocolModel.h) built with the cp.async
// events: per warp, in program order with loops run trip by trip, the
// copies (each lane's destination bytes), commits, waits, reads of shared
// memory and the synchronization events. Per thread, groups are numbered in
// commit order and a wait N completes every group below (committed - N).
// A read by thread B of bytes that a copy of thread A writes is a race when
//   - A is B: the copy was issued before the read and has not completed by
//     it;
//   - A is another thread: B's last wait before the read is a CTA-wide
//     barrier (bar.sync of every thread of the CTA: the k-th of its id), the
//     copy was issued before A's k-th arrival there and had not completed by
//     it. Where B's last wait is anything else (an mbarrier, a named barrier
//     of some warps), the order is not followed: silence.
// Copies handed to an mbarrier (a cp.async.mbarrier.arrive after them) are
// the mbarrier's (classes 3, 4), and never reported here.
//
// Severity: an error where no loop bound depends on a kernel parameter (the
// one instance is every launch of the declared shape: the read runs before
// the copy is known to land on every launch); a warning where the race is
// in a sampled instance (a trip count the parameters give to some launches
// only). Reported at the writer's last cp.async.wait_group before the point
// it had to complete by (the wait is the bug: its N is too large), with
// notes at the copy and the read, or at the read where no wait precedes.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include <map>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace cp_async_groups {
constexpr size_t kPending = ~size_t(0);

/// One lane's copy: where it is in its warp's trace, its group, and where
/// a wait completed that group (kPending: never).
struct CopyRecord {
  int64_t warp;
  unsigned lane;
  size_t pos;
  int64_t group;
  size_t done = kPending;
  bool handed = false; // tracked by a cp.async.mbarrier.arrive
};

/// A race found: the copy, and the read's warp, lane and position.
struct Race {
  const CopyRecord *copy;
  int64_t warp;
  unsigned lane;
  size_t pos;
  size_t limit; // the position in the writer's trace it had to complete by
};

class InstanceQuery {
public:
  InstanceQuery(const ProtocolModel &protocol, const ProtocolInstance &in)
      : protocol(protocol), in(in) {}

  /// Calls `found` for the first race of each read op.
  void run(llvm::function_ref<void(const Race &)> found) {
    simulate();
    llvm::SmallPtrSet<Operation *, 8> reported;
    for (int64_t w = 0; w < protocol.numWarps(); ++w) {
      const std::vector<AsyncCopyEvent> &trace = in.copies[w];
      std::optional<size_t> lastWait; // the Sync marker of the last wait
      for (size_t pos = 0; pos < trace.size(); ++pos) {
        const AsyncCopyEvent &e = trace[pos];
        if (e.kind == AsyncCopyEvent::Sync &&
            in.traces[w][e.n].kind == SyncEvent::Wait)
          lastWait = pos;
        if (e.kind != AsyncCopyEvent::Read || reported.contains(e.op))
          continue;
        if (std::optional<Race> race = raceOf(w, pos, lastWait)) {
          reported.insert(e.op);
          found(*race);
        }
      }
    }
  }

  /// The writer's last wait_group before `race.limit` that its lane made,
  /// and the groups committed after the copy's own when it ran.
  std::optional<std::pair<Operation *, int64_t>> lastWaitOf(const Race &race) {
    const CopyRecord &c = *race.copy;
    const std::vector<AsyncCopyEvent> &trace = in.copies[c.warp];
    int64_t committed = 0;
    std::optional<std::pair<Operation *, int64_t>> result;
    for (size_t pos = 0; pos < race.limit && pos < trace.size(); ++pos) {
      const AsyncCopyEvent &e = trace[pos];
      if (!((e.lanes >> c.lane) & 1))
        continue;
      if (e.kind == AsyncCopyEvent::Commit)
        ++committed;
      else if (e.kind == AsyncCopyEvent::WaitGroup && pos > c.pos)
        result = std::make_pair(e.op, committed - 1 - c.group);
    }
    return result;
  }

  const ProtocolInstance &instance() const { return in; }

private:
  /// Each lane's groups: the copies' groups and completions; the positions
  /// of each warp's CTA-wide barriers, per barrier key in order.
  void simulate() {
    for (int64_t w = 0; w < protocol.numWarps(); ++w) {
      const std::vector<AsyncCopyEvent> &trace = in.copies[w];
      int64_t committed[32] = {};
      SmallVector<size_t> laneCopies[32];
      size_t firstPending[32] = {}, firstUnhanded[32] = {};
      for (size_t pos = 0; pos < trace.size(); ++pos) {
        const AsyncCopyEvent &e = trace[pos];
        if (e.kind == AsyncCopyEvent::Sync) {
          const SyncEvent &s = in.traces[w][e.n];
          if (s.kind == SyncEvent::Wait && ctaWide(s))
            passages[{w, s.key}].push_back(pos);
          continue;
        }
        for (unsigned l = 0; l < 32; ++l) {
          if (!((e.lanes >> l) & 1))
            continue;
          switch (e.kind) {
          case AsyncCopyEvent::Copy:
            laneCopies[l].push_back(records.size());
            records.push_back({w, l, pos, committed[l]});
            buckets(e, l, records.size() - 1);
            break;
          case AsyncCopyEvent::Commit:
            ++committed[l];
            break;
          case AsyncCopyEvent::WaitGroup:
            // Groups complete in commit order: every group below
            // committed - N.
            while (firstPending[l] < laneCopies[l].size() &&
                   records[laneCopies[l][firstPending[l]]].group <
                       committed[l] - e.n)
              records[laneCopies[l][firstPending[l]++]].done = pos;
            break;
          case AsyncCopyEvent::MBarrierArrive:
            while (firstUnhanded[l] < laneCopies[l].size())
              records[laneCopies[l][firstUnhanded[l]++]].handed = true;
            break;
          default:
            break;
          }
        }
      }
    }
  }

  /// bar.sync of every thread of the CTA (count-less, or the CTA's count).
  bool ctaWide(const SyncEvent &s) const {
    return s.named() && !s.cluster() &&
           (s.count == 0 || s.count == protocol.threadsInCTA());
  }

  using BucketKey = std::tuple<const void *, int64_t, int64_t>;
  static constexpr int64_t kBucket = 16;

  void buckets(const AsyncCopyEvent &e, unsigned lane, size_t record) {
    int64_t rank = protocol.rankOf(records[record].warp);
    int64_t first = e.offset[lane], last = first + std::max<int64_t>(e.bytes, 1) - 1;
    for (int64_t b = floorDiv(first); b <= floorDiv(last); ++b)
      byBucket[{e.allocation, rank, b}].push_back(record);
  }
  static int64_t floorDiv(int64_t x) {
    return x >= 0 ? x / kBucket : -((-x + kBucket - 1) / kBucket);
  }

  std::optional<Race> raceOf(int64_t w, size_t pos,
                             std::optional<size_t> lastWait) {
    const AsyncCopyEvent &read = in.copies[w][pos];
    // The reader's last wait, where it is the k-th of a CTA-wide barrier.
    std::optional<std::pair<int64_t, size_t>> passage; // key, ordinal
    if (lastWait) {
      const SyncEvent &s = in.traces[w][in.copies[w][*lastWait].n];
      if (ctaWide(s)) {
        const SmallVector<size_t> &mine = passages[{w, s.key}];
        passage = std::make_pair(
            s.key, size_t(llvm::find(mine, *lastWait) - mine.begin()));
      }
    }
    int64_t rank = protocol.rankOf(w);
    for (unsigned l = 0; l < 32; ++l) {
      if (!((read.lanes >> l) & 1))
        continue;
      int64_t first = read.offset[l], end = first + std::max<int64_t>(read.bytes, 1);
      for (int64_t b = floorDiv(first); b <= floorDiv(end - 1); ++b) {
        auto it = byBucket.find({read.allocation, rank, b});
        if (it == byBucket.end())
          continue;
        for (size_t r : it->second) {
          const CopyRecord &c = records[r];
          const AsyncCopyEvent &copy = in.copies[c.warp][c.pos];
          int64_t cFirst = copy.offset[c.lane];
          if (c.handed || cFirst >= end || cFirst + copy.bytes <= first)
            continue;
          size_t limit;
          if (c.warp == w && c.lane == l) {
            limit = pos;
          } else {
            if (!passage)
              continue;
            auto theirs = passages.find({c.warp, passage->first});
            if (theirs == passages.end() ||
                theirs->second.size() <= passage->second)
              continue;
            limit = theirs->second[passage->second];
          }
          if (c.pos < limit && (c.done == kPending || c.done > limit))
            return Race{&c, w, l, pos, limit};
        }
      }
    }
    return std::nullopt;
  }

  const ProtocolModel &protocol;
  const ProtocolInstance &in;
  std::vector<CopyRecord> records;
  std::map<BucketKey, SmallVector<size_t, 2>> byBucket;
  std::map<std::pair<int64_t, int64_t>, SmallVector<size_t>> passages;
};

void report(InstanceQuery &query, const Race &race, Severity severity,
            const ProtocolModel &protocol, Reporter &out) {
  const ProtocolInstance &in = query.instance();
  const CopyRecord &c = *race.copy;
  Operation *copyOp = in.copies[c.warp][c.pos].op;
  Operation *readOp = in.copies[race.warp][race.pos].op;
  int64_t reader = (race.warp % protocol.warpsPerCTA()) * kWarpSize + race.lane;
  int64_t writer = (c.warp % protocol.warpsPerCTA()) * kWarpSize + c.lane;
  bool same = reader == writer && race.warp == c.warp;
  bool every = severity == Severity::Error;
  std::string who = same ? "the thread itself"
                         : "thread " + std::to_string(writer);
  std::string cta = protocol.numWarps() > protocol.warpsPerCTA()
                        ? " of CTA " + std::to_string(protocol.rankOf(c.warp))
                        : "";
  std::string when = same ? "before the read"
                          : "before the CTA barrier that orders the read";
  std::optional<std::pair<Operation *, int64_t>> wait = query.lastWaitOf(race);
  if (wait) {
    int64_t newer = std::max<int64_t>(wait->second, 0);
    out.report(wait->first, severity, kCpAsyncGroupSlot)
        << "leaves pending the cp.async-group of a copy that thread "
        << reader << cta << " reads" << (every ? "" : " on some launches")
        << ": " << newer
        << " group(s) were committed after the copy's own when the wait "
           "ran, so the copy (by "
        << who << ") may still be writing the shared memory " << when
        << "; wait with cp.async.wait_group " << newer
        << " (or commit one group per stage and wait for all but the "
           "stages still in flight)";
    out.note(wait->first, kCpAsyncGroupSlot, copyOp->getLoc(),
             "the cp.async copy whose group is pending");
    out.note(wait->first, kCpAsyncGroupSlot, readOp->getLoc(),
             "the read of its destination");
    return;
  }
  out.report(readOp, severity, kCpAsyncGroupSlot)
      << "reads shared memory that a cp.async copy (by " << who
      << ") may still be writing" << (every ? "" : " on some launches")
      << ": no cp.async.wait_group of the copying thread completes the "
         "copy's group "
      << when << " (cp.async.commit_group, then cp.async.wait_group, then a "
                 "CTA barrier where other threads read it)";
  out.note(readOp, kCpAsyncGroupSlot, copyOp->getLoc(),
           "the cp.async copy whose group is pending");
}
} // namespace cp_async_groups

using namespace cp_async_groups;

void checksync::checkCpAsyncGroups(FunctionOpInterface fn, SPMDModel &model,
                                   Reporter &out) {
  if (!model.countable())
    return;
  bool copies = fn->walk([](Operation *op) {
                    return cpAsyncCopyOf(op) ? WalkResult::interrupt()
                                             : WalkResult::advance();
                  }).wasInterrupted();
  if (!copies)
    return;
  ProtocolModel protocol(fn, model, /*cpAsync=*/true);
  if (!protocol.ok())
    return;
  // The instances a report speaks for: those whose loops bounded by a
  // parameter run at least one trip (all, where none does).
  bool anyFull = llvm::any_of(protocol.instances(),
                              [](const ProtocolInstance &in) { return in.full(); });
  Severity severity = protocol.sampled() ? Severity::Warning : Severity::Error;
  for (const ProtocolInstance &in : protocol.instances()) {
    if (anyFull && !in.full())
      continue;
    InstanceQuery query(protocol, in);
    query.run([&](const Race &race) {
      report(query, race, severity, protocol, out);
    });
  }
}
