//===- CheckCpAsyncGroups.cpp - cp.async copies racing with reads ---------===//
//
// Class 18. `cp.async` (global -> shared, the multistage rings of CUTLASS's
// SM80 mainloop, FlashInfer, Marlin, FlashAttention-2) writes its
// destination asynchronously. The issuing thread closes its open
// cp.async-group with `cp.async.commit_group`; `cp.async.wait_group N`
// returns once at most the newest N of its committed groups are pending
// (PTX ISA, "cp.async.wait_group": the older ones have completed); a CTA
// barrier after the wait then makes the data visible to the other threads.
// A copy races with a read of its bytes by another thread unless a CTA
// barrier orders them, in either direction: the copy completed, then a
// barrier, then the read (read-after-write), or the read, then a barrier,
// then the copy is issued (write-after-read: a copy into a buffer other
// warps are still reading).
//
// A query of the protocol model (ProtocolModel.h) built with the cp.async
// events: per warp, in program order with loops run trip by trip, the
// copies (each lane's destination bytes), commits, waits, reads of shared
// memory and the synchronization events. Per thread, groups are numbered in
// commit order and a wait N completes every group below (committed - N).
// CTA-wide named barriers (of every thread of the CTA: bar.sync, which
// arrives and waits, or bar.arrive) pair arrivals and waits by ordinal:
// what thread A does before its m-th arrival happens before what thread B
// does after its m-th wait. A read by thread B of bytes that a copy of
// thread A writes is a race when
//   - A is B: the copy was issued before the read and has not completed by
//     it;
//   - A is another thread of B's warp: B's last wait before the read is the
//     k-th wait on a CTA-wide barrier, the copy was issued before A's k-th
//     arrival there and had not completed by it;
//   - A is a thread of another warp: for every CTA-wide barrier, neither
//     does A wait there before the copy more often than B arrives there
//     before the read (the read, then a barrier, then the copy), nor does
//     the copy complete before A's m-th arrival for an m below B's waits
//     there before the read (the copy, its wait, a barrier, then the read);
//     and both B's last wait before the read and A's last wait
//     before the copy are a CTA-wide barrier or none, and neither B after
//     the read nor A after the copy's completion arrives on anything else
//     (an mbarrier or a named barrier of some warps may order them, also
//     through a third thread: the order is not followed).
//     Where the function holds inline PTX other than a cluster barrier (a
//     bar.sync or mbarrier wait written as asm, which the model does not
//     see), such pairs take the one-warp rule.
// Copies handed to an mbarrier (a cp.async.mbarrier.arrive after them) are
// the mbarrier's (classes 3, 4), and never reported here.
//
// Which bytes the read means decides the report. Where an older copy of A
// into the read's bytes was completed and published by the barrier before
// the read (and not by the one before that: it is the data of that stage
// the read consumes), the racing copy overwrites it: reported at the copy
// where no CTA barrier lies between the read and the copy (FA2's next K
// tile issued before the __syncthreads that ends S = Q K^T), else (the copy
// was issued before the barrier the read follows: more copies in flight
// than the ring has stages) at the op that computes the copy's stage from
// its loop's induction variable (cuda-samples#263), or at the copy. Else
// the read wants the racing copy's data: reported at the writer's wait that
// completes the copy where no CTA barrier follows that wait before the
// thread's next wait (cp.async.wait_group is per thread: CUTLASS's
// gmem_wait() without its __syncthreads()); else, where the writer passes
// another CTA barrier between its last wait and the barrier it had to
// complete by, at that barrier (no wait of its own before it: the
// mainloop's cp_async_wait left out, its __syncthreads kept); else at the
// writer's last cp.async.wait_group before the point it had to complete by
// (the wait is the bug: its N is too large), with notes at the copy and the
// read, or at the read where no wait precedes.
//
// Severity: an error where no loop bound depends on a kernel parameter (the
// one instance is every launch of the declared shape: the race runs on
// every launch); a warning where the race is in a sampled instance (a trip
// count the parameters give to some launches only).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"

#include <deque>
#include <map>
#include <set>

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
                // (kPending: no CTA barrier precedes the read)
  /// The older copy of the writer into the read's bytes that the read
  /// consumes (the racing copy overwrites it), or null.
  const CopyRecord *consumed = nullptr;
  /// With `consumed`: no CTA barrier between the read and the copy.
  bool sameEpoch = false;
};

class InstanceQuery {
public:
  /// `acrossWarps`: whether the rule for threads of another warp applies
  /// (else such pairs take the one-warp rule).
  InstanceQuery(const ProtocolModel &protocol, const ProtocolInstance &in,
                bool acrossWarps)
      : protocol(protocol), in(in), acrossWarps(acrossWarps) {}

  /// Calls `found` for the first race of each read op.
  void run(llvm::function_ref<void(const Race &)> found) {
    simulate();
    llvm::SmallPtrSet<Operation *, 8> reported;
    for (int64_t w = 0; w < protocol.numWarps(); ++w) {
      const std::vector<AsyncCopyEvent> &trace = in.copies[w];
      for (size_t pos = 0; pos < trace.size(); ++pos) {
        const AsyncCopyEvent &e = trace[pos];
        if (e.kind != AsyncCopyEvent::Read || reported.contains(e.op))
          continue;
        if (std::optional<Race> race = raceOf(w, pos)) {
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

  /// Whether `race.limit` is a CTA-wide barrier of the writer and its lane
  /// passes another one between its last wait_group before it (after the
  /// copy) and it: that wait was published by the earlier barrier, and the
  /// barrier the read follows has no wait of its own before it (CUTLASS's
  /// cp_async_wait left out of the mainloop, its __syncthreads kept).
  bool barrierWithoutWait(const Race &race) const {
    const CopyRecord &c = *race.copy;
    const std::vector<AsyncCopyEvent> &trace = in.copies[c.warp];
    if (race.limit == kPending || race.limit >= trace.size() ||
        trace[race.limit].kind != AsyncCopyEvent::Sync ||
        !ctaWideArrive(c.warp, race.limit))
      return false;
    auto mine = [&](size_t pos, AsyncCopyEvent::Kind kind) {
      return trace[pos].kind == kind && ((trace[pos].lanes >> c.lane) & 1);
    };
    std::optional<size_t> last;
    for (size_t pos = c.pos + 1; pos < race.limit; ++pos)
      if (mine(pos, AsyncCopyEvent::WaitGroup))
        last = pos;
    if (!last)
      return false;
    for (size_t pos = *last + 1; pos < race.limit; ++pos)
      if (mine(pos, AsyncCopyEvent::Sync) && ctaWideArrive(c.warp, pos))
        return true;
    return false;
  }

  /// Whether the wait that completed `race.copy` is one the reader also
  /// makes before the read (the same ordinal among its lane's
  /// cp.async.wait_group), and no CTA-wide barrier passage of the writer
  /// follows it before the writer's next cp.async.wait_group (or the end):
  /// the wait is meant to publish the copy for the read, and no barrier
  /// does.
  bool unpublishedWait(const Race &race) const {
    const CopyRecord &c = *race.copy;
    if (c.done == kPending || c.warp == race.warp)
      return false;
    auto writer = laneWaits.find({c.warp, c.lane});
    auto reader = laneWaits.find({race.warp, race.lane});
    if (writer == laneWaits.end() || reader == laneWaits.end())
      return false;
    size_t ordinal = countBefore(writer->second, c.done);
    if (ordinal >= reader->second.size() ||
        reader->second[ordinal] > race.pos)
      return false;
    const std::vector<AsyncCopyEvent> &trace = in.copies[c.warp];
    for (size_t pos = c.done + 1; pos < trace.size(); ++pos) {
      const AsyncCopyEvent &e = trace[pos];
      if (e.kind == AsyncCopyEvent::WaitGroup && ((e.lanes >> c.lane) & 1))
        return true;
      if (e.kind == AsyncCopyEvent::Sync && ctaWideArrive(c.warp, pos))
        return false;
    }
    return true;
  }

  const ProtocolInstance &instance() const { return in; }

private:
  /// Each lane's groups: the copies' groups and completions; the positions
  /// of each warp's arrivals at and waits on CTA-wide barriers, per barrier
  /// key in order, and of each of its waits.
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
          bool wait = s.kind == SyncEvent::Wait;
          if (wait)
            waits[w].push_back(pos);
          if (ctaWide(s)) {
            (wait ? passages : arrivals)[{w, s.key}].push_back(pos);
            ctaKeys.insert(s.key);
          } else if (!wait) {
            lastOtherArrival[w] = pos;
          }
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
            laneWaits[{w, l}].push_back(pos);
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

  /// A named barrier of every thread of the CTA (count-less, or the CTA's
  /// count): bar.sync (an arrival, then a wait) or bar.arrive. Its m-th
  /// phase takes each warp's m-th arrival: what a thread does before its
  /// m-th arrival happens before what another does after its m-th wait.
  bool ctaWide(const SyncEvent &s) const {
    return s.named() && !s.cluster() &&
           (s.count == 0 || s.count == protocol.threadsInCTA());
  }
  bool ctaWideWait(int64_t w, size_t pos) const {
    const SyncEvent &s = in.traces[w][in.copies[w][pos].n];
    return s.kind == SyncEvent::Wait && ctaWide(s);
  }
  bool ctaWideArrive(int64_t w, size_t pos) const {
    const SyncEvent &s = in.traces[w][in.copies[w][pos].n];
    return s.kind == SyncEvent::Arrive && ctaWide(s);
  }

  /// The position of the warp's last wait before `pos`, if any.
  std::optional<size_t> lastWaitBefore(int64_t w, size_t pos) const {
    auto it = waits.find(w);
    if (it == waits.end())
      return std::nullopt;
    auto next = llvm::lower_bound(it->second, pos);
    if (next == it->second.begin())
      return std::nullopt;
    return *std::prev(next);
  }
  /// Whether the warp arrives on an mbarrier or a named barrier of some
  /// warps after `pos` (the start of an order through another thread that
  /// the query does not follow).
  bool otherArrivalAfter(int64_t w, size_t pos) const {
    auto it = lastOtherArrival.find(w);
    return it != lastOtherArrival.end() && it->second > pos;
  }
  /// Whether the warp's last wait before `pos` is a CTA-wide barrier or
  /// there is none (no other synchronization may order what follows).
  bool onlyCTABarriersBefore(int64_t w, size_t pos) const {
    std::optional<size_t> last = lastWaitBefore(w, pos);
    return !last || ctaWideWait(w, *last);
  }

  /// The warp's waits on (passages) and arrivals at CTA-wide barrier `key`.
  ArrayRef<size_t> passagesOf(int64_t w, int64_t key) const {
    auto it = passages.find({w, key});
    return it == passages.end() ? ArrayRef<size_t>() : ArrayRef(it->second);
  }
  ArrayRef<size_t> arrivalsOf(int64_t w, int64_t key) const {
    auto it = arrivals.find({w, key});
    return it == arrivals.end() ? ArrayRef<size_t>() : ArrayRef(it->second);
  }
  static size_t countBefore(ArrayRef<size_t> positions, size_t pos) {
    return llvm::lower_bound(positions, pos) - positions.begin();
  }

  /// Whether a CTA-wide barrier orders copy `c` (of another warp) with the
  /// read at `pos` of warp `w`, in either direction.
  bool ordered(const CopyRecord &c, int64_t w, size_t pos) const {
    for (int64_t key : ctaKeys) {
      // The read, then the reader's q-th arrival, then the writer's q-th
      // wait (or a later one), then the copy.
      size_t q = countBefore(arrivalsOf(w, key), pos);
      if (countBefore(passagesOf(c.warp, key), c.pos) > q)
        return true;
      // The copy completes, then the writer's m-th arrival, then the
      // reader's m-th wait (m < r), then the read.
      size_t r = countBefore(passagesOf(w, key), pos);
      ArrayRef<size_t> theirs = arrivalsOf(c.warp, key);
      size_t m = std::min<size_t>(r, theirs.size());
      if (m >= 1 && c.done != kPending && c.done < theirs[m - 1])
        return true;
    }
    return false;
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

  bool overlaps(const CopyRecord &c, int64_t first, int64_t end) const {
    const AsyncCopyEvent &copy = in.copies[c.warp][c.pos];
    int64_t cFirst = copy.offset[c.lane];
    return cFirst < end && cFirst + copy.bytes > first;
  }

  std::optional<Race> raceOf(int64_t w, size_t pos) {
    const AsyncCopyEvent &read = in.copies[w][pos];
    // The reader's last wait, where it is the k-th of a CTA-wide barrier:
    // its key and the passages before the read (k + 1).
    std::optional<size_t> lastWait = lastWaitBefore(w, pos);
    bool readerFree = !lastWait || ctaWideWait(w, *lastWait);
    std::optional<std::pair<int64_t, size_t>> passage;
    if (lastWait && readerFree) {
      int64_t key = in.traces[w][in.copies[w][*lastWait].n].key;
      passage = std::make_pair(key, countBefore(passagesOf(w, key), pos));
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
          if (c.handed || !overlaps(c, first, end))
            continue;
          // The writer's arrival the copy had to complete by.
          size_t limit = kPending;
          if (passage) {
            ArrayRef<size_t> theirs = arrivalsOf(c.warp, passage->first);
            if (theirs.size() >= passage->second)
              limit = theirs[passage->second - 1];
          }
          if (c.warp == w || !acrossWarps) {
            if (c.warp == w && c.lane == l)
              limit = pos;
            if (limit != kPending && c.pos < limit &&
                (c.done == kPending || c.done > limit))
              return Race{&c, w, l, pos, limit};
            continue;
          }
          if (!readerFree || !onlyCTABarriersBefore(c.warp, c.pos) ||
              otherArrivalAfter(w, pos) ||
              (c.done != kPending && otherArrivalAfter(c.warp, c.done)) ||
              ordered(c, w, pos))
            continue;
          Race race{&c, w, l, pos, limit};
          if (passage && limit != kPending)
            consumedBy(race, it->second, passage->first, passage->second,
                       first, end);
          return race;
        }
      }
    }
    return std::nullopt;
  }

  /// The older copy of the racing copy's lane into the read's bytes that
  /// the barrier before the read published (completed before the writer's
  /// arrival `r - 1`, and not before arrival `r - 2`): the data the read
  /// consumes, which the racing copy overwrites.
  void consumedBy(Race &race, ArrayRef<size_t> candidates, int64_t key,
                  size_t r, int64_t first, int64_t end) const {
    const CopyRecord &c = *race.copy;
    ArrayRef<size_t> theirs = arrivalsOf(c.warp, key);
    size_t previous = r >= 2 ? theirs[r - 2] : 0;
    for (size_t k : candidates) {
      const CopyRecord &o = records[k];
      if (o.warp != c.warp || o.lane != c.lane || o.pos >= c.pos ||
          o.handed || o.done == kPending || o.done > race.limit ||
          (r >= 2 && o.done < previous) || !overlaps(o, first, end))
        continue;
      race.consumed = &o;
    }
    race.sameEpoch = countBefore(passagesOf(c.warp, key), c.pos) ==
                     countBefore(arrivalsOf(race.warp, key), race.pos);
  }

  const ProtocolModel &protocol;
  const ProtocolInstance &in;
  bool acrossWarps;
  std::vector<CopyRecord> records;
  std::map<BucketKey, SmallVector<size_t, 2>> byBucket;
  std::map<std::pair<int64_t, int64_t>, SmallVector<size_t>> passages, arrivals;
  std::map<int64_t, SmallVector<size_t>> waits;
  std::map<int64_t, size_t> lastOtherArrival;
  std::map<std::pair<int64_t, unsigned>, SmallVector<size_t>> laneWaits;
  std::set<int64_t> ctaKeys;
};

/// The op that computes a ring copy's stage from the induction variable of
/// a loop around the copy (`stage = (i + lookahead) % stages`): the first
/// op of its destination's index chain with that variable as an operand.
Operation *stageOpOf(Operation *copyOp) {
  std::optional<CpAsyncCopy> copy = cpAsyncCopyOf(copyOp);
  std::optional<Address> address = copy ? decomposeAddress(copy->dst)
                                        : std::nullopt;
  if (!address)
    return nullptr;
  std::deque<Value> queue;
  llvm::SmallPtrSet<Operation *, 16> seen;
  for (auto [index, scale] : address->scaled)
    queue.push_back(index);
  while (!queue.empty() && seen.size() < 32) {
    Operation *def = queue.front().getDefiningOp();
    queue.pop_front();
    if (!def || !seen.insert(def).second)
      continue;
    for (Value operand : def->getOperands()) {
      Operation *loop = inductionLoopOf(operand);
      if (loop && loop->isProperAncestor(copyOp))
        return def;
      queue.push_back(operand);
    }
  }
  return nullptr;
}

struct Parties {
  Operation *copyOp, *readOp;
  int64_t reader, writer;
  std::string who, cta, when, some;
};

Parties partiesOf(const InstanceQuery &query, const Race &race,
                  Severity severity, const ProtocolModel &protocol) {
  const ProtocolInstance &in = query.instance();
  const CopyRecord &c = *race.copy;
  Parties p;
  p.copyOp = in.copies[c.warp][c.pos].op;
  p.readOp = in.copies[race.warp][race.pos].op;
  p.reader = (race.warp % protocol.warpsPerCTA()) * kWarpSize + race.lane;
  p.writer = (c.warp % protocol.warpsPerCTA()) * kWarpSize + c.lane;
  bool same = p.reader == p.writer && race.warp == c.warp;
  p.who = same ? "the thread itself" : "thread " + std::to_string(p.writer);
  p.cta = protocol.numWarps() > protocol.warpsPerCTA()
              ? " of CTA " + std::to_string(protocol.rankOf(c.warp))
              : "";
  p.when = same ? "before the read"
                : race.limit == kPending
                      ? "before the read (no CTA barrier precedes it)"
                      : "before the CTA barrier that orders the read";
  p.some = severity == Severity::Error ? "" : " on some launches";
  return p;
}

/// The racing copy overwrites the data of an older copy that the read
/// consumes.
void reportOverwrite(const InstanceQuery &query, const Race &race,
                     Severity severity, const ProtocolModel &protocol,
                     Reporter &out) {
  Parties p = partiesOf(query, race, severity, protocol);
  Operation *older =
      query.instance().copies[race.consumed->warp][race.consumed->pos].op;
  Operation *at = race.sameEpoch ? nullptr : stageOpOf(p.copyOp);
  if (race.sameEpoch) {
    at = p.copyOp;
    out.report(at, severity, kCpAsyncOverwriteSlot)
        << "writes shared memory that thread " << p.reader << p.cta
        << " may still be reading" << p.some
        << ": no CTA barrier lies between that read and this cp.async copy "
           "(by thread "
        << p.writer
        << "), so the copy may overwrite the bytes before the read; issue "
           "the copy after the CTA barrier that ends the reads";
  } else {
    if (!at)
      at = p.copyOp;
    out.report(at, severity, kCpAsyncOverwriteSlot)
        << "gives a cp.async copy (by thread " << p.writer
        << ") the stage that thread " << p.reader << p.cta
        << " reads after the next CTA barrier" << p.some
        << ": the copy is issued before that barrier while the stage still "
           "holds the tile of an older copy that the read consumes (more "
           "groups in flight than the ring has stages); copy into a stage "
           "whose reads ended before the last CTA barrier";
  }
  if (at != p.copyOp)
    out.note(at, kCpAsyncOverwriteSlot, p.copyOp->getLoc(),
             "the cp.async copy that overwrites the stage");
  out.note(at, kCpAsyncOverwriteSlot, p.readOp->getLoc(),
           "the read of the bytes it overwrites");
  out.note(at, kCpAsyncOverwriteSlot, older->getLoc(),
           "the older copy whose data the read consumes");
}

void report(InstanceQuery &query, const Race &race, Severity severity,
            const ProtocolModel &protocol, Reporter &out) {
  if (race.consumed)
    return reportOverwrite(query, race, severity, protocol, out);
  const ProtocolInstance &in = query.instance();
  const CopyRecord &c = *race.copy;
  Parties p = partiesOf(query, race, severity, protocol);
  if (query.unpublishedWait(race)) {
    Operation *wait = in.copies[c.warp][c.done].op;
    out.report(wait, severity, kCpAsyncBarrierSlot)
        << "completes the cp.async-group of a copy that thread " << p.reader
        << p.cta << " reads" << p.some
        << ", but no CTA barrier follows before the read: "
           "cp.async.wait_group waits for the executing thread's own copies "
           "only, so the copy (by thread "
        << p.writer
        << ") may still be writing the shared memory when the read runs; "
           "add a CTA barrier (__syncthreads) after the wait";
    out.note(wait, kCpAsyncBarrierSlot, p.copyOp->getLoc(),
             "the cp.async copy the wait completes");
    out.note(wait, kCpAsyncBarrierSlot, p.readOp->getLoc(),
             "the read of its destination");
    return;
  }
  std::optional<std::pair<Operation *, int64_t>> wait;
  if (race.limit != kPending)
    wait = query.lastWaitOf(race);
  if (wait && query.barrierWithoutWait(race)) {
    Operation *barrier = in.copies[c.warp][race.limit].op;
    out.report(barrier, severity, kCpAsyncGroupSlot)
        << "orders a read by thread " << p.reader << p.cta
        << " of shared memory that a cp.async copy (by " << p.who
        << ") may still be writing" << p.some
        << ": no cp.async.wait_group of the copying "
           "thread completes the copy's group between its previous CTA "
           "barrier and this one, and a CTA barrier does not wait for "
           "cp.async copies; wait (cp.async.wait_group) before this barrier";
    out.note(barrier, kCpAsyncGroupSlot, wait->first->getLoc(),
             "the copying thread's last cp.async.wait_group, before its "
             "previous CTA barrier");
    out.note(barrier, kCpAsyncGroupSlot, p.copyOp->getLoc(),
             "the cp.async copy whose group is pending");
    out.note(barrier, kCpAsyncGroupSlot, p.readOp->getLoc(),
             "the read of its destination");
    return;
  }
  if (wait) {
    int64_t newer = std::max<int64_t>(wait->second, 0);
    out.report(wait->first, severity, kCpAsyncGroupSlot)
        << "leaves pending the cp.async-group of a copy that thread "
        << p.reader << p.cta << " reads" << p.some << ": " << newer
        << " group(s) were committed after the copy's own when the wait "
           "ran, so the copy (by "
        << p.who << ") may still be writing the shared memory " << p.when
        << "; wait with cp.async.wait_group " << newer
        << " (or commit one group per stage and wait for all but the "
           "stages still in flight)";
    out.note(wait->first, kCpAsyncGroupSlot, p.copyOp->getLoc(),
             "the cp.async copy whose group is pending");
    out.note(wait->first, kCpAsyncGroupSlot, p.readOp->getLoc(),
             "the read of its destination");
    return;
  }
  out.report(p.readOp, severity, kCpAsyncGroupSlot)
      << "reads shared memory that a cp.async copy (by " << p.who
      << ") may still be writing" << p.some
      << ": no cp.async.wait_group of the copying thread completes the "
         "copy's group "
      << p.when << " (cp.async.commit_group, then cp.async.wait_group, then a "
                   "CTA barrier where other threads read it)";
  out.note(p.readOp, kCpAsyncGroupSlot, p.copyOp->getLoc(),
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
  // Inline PTX that is not a modelled event (a bar.sync or an mbarrier wait
  // written as asm) may order what the model sees unordered: pairs of two
  // warps then take the one-warp rule (the reader's CTA barrier only).
  bool opaqueSync = fn->walk([](Operation *op) {
                          return !inlinePTX(op).empty() && !isClusterArrive(op) &&
                                         !isClusterWait(op)
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        }).wasInterrupted();
  // The instances a report speaks for: those whose loops bounded by a
  // parameter run at least one trip (all, where none does).
  bool anyFull = llvm::any_of(protocol.instances(),
                              [](const ProtocolInstance &in) { return in.full(); });
  Severity severity = protocol.sampled() ? Severity::Warning : Severity::Error;
  for (const ProtocolInstance &in : protocol.instances()) {
    if (anyFull && !in.full())
      continue;
    InstanceQuery query(protocol, in, !opaqueSync);
    query.run([&](const Race &race) {
      report(query, race, severity, protocol, out);
    });
  }
}
