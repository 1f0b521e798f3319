//===- Reporter.h - the diagnostics of mbarrier-check-sync ------*- C++ -*-===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_REPORTER_H
#define MBARRIER_ANALYSIS_SYNCCHECK_REPORTER_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace mlir::mbarrier::checksync {

/// The report slots, one per rule of the classes (docs/checker.md): a
/// report is kept per (op, slot), and once per (source location, slot), so
/// two rules never share a slot (the one list, instead of a number per file).
enum ReportSlot : unsigned {
  kDefaultSlot = 0,            // a report that names no rule
  kInitNotVisibleSlot = 1,     // class 1, cross-CTA
  kExitSlot = 2,               // class 2
  kOverArrivalSlot = 3,        // class 3
  kUnderArrivalSlot = 4,       // class 4
  kParitySlot = 5,             // class 5, a loop-invariant parity
  kNoBackPressureSlot = 50,    // class 5, a loop that never waits
  kParityAfterLoopSlot = 51,   // class 5, after a loop
  kStartupDeadlockSlot = 52,   // class 5, a first-trip wait without the phase offset
  kExpectTxSlot = 6,           // class 6
  kCTAScopeWaitSlot = 7,       // class 7, a scope-cta wait
  kRelaxedArrivalSlot = 70,    // class 7, a relaxed arrival after stores
  kCTAScopeArrivalSlot = 71,   // class 7, a scope-cta arrival after stores
  kLifetimeSlot = 8,           // class 8, inval / re-init
  kNeverInitSlot = 81,         // class 8, never initialized
  kInitRaceSlot = 82,          // class 1, within the CTA
  kSeveralInitSlot = 83,       // class 8, init by several threads
  kRankSlot = 90,              // class 9
  kStagingSlot = 100,          // class 10
  kStagingUnorderedSlot = 101, // class 10, a source written by another thread, no barrier
  kStagingReleaseSlot = 102,   // class 10, a source released before the read wait
  kNeverCompletesSlot = 105,   // class 11, more threads than arrive
  kTwoCountsSlot = 106,        // class 11, one id two counts
  kUnbalancedSyncsSlot = 107,  // class 11, a warp syncs more often than another
  kMixedCountsSlot = 108,      // class 11, one rendezvous with two counts
  kDeadlockSlot = 110,         // class 12
  kUnmatchedArriveSlot = 111,  // class 12, a phase of arrivals only
  kPartialCTABarrierSlot = 130, // class 13
  kSameCountRolesSlot = 140,   // class 14
  kLaneOutsideMaskSlot = 150,  // class 15
  kGridRankSlot = 160,         // class 16
  kWgmmaReleaseSlot = 170,     // class 17
  kCpAsyncGroupSlot = 180,     // class 18, a read before its cp.async group completes
  kCpAsyncOverwriteSlot = 181, // class 18, a copy into bytes another thread still reads
  kCpAsyncBarrierSlot = 182,   // class 18, a wait_group with no CTA barrier before the read
  kProxyFenceSlot = 190,       // class 19
  kRemoteRewriteSlot = 200,    // class 20
  kSequenceGroupSlot = 53,     // class 5, an ordered-sequence group no thread starts
  kRingCounterSlot = 54,       // class 5, ring counters restarted at different depths
};

/// Every slot once: two rules given one number do not compile (a slot
/// added above must be added here too; the API takes a ReportSlot, so a
/// bare number does not compile either).
inline constexpr ReportSlot kAllReportSlots[] = {
    kDefaultSlot,
    kInitNotVisibleSlot,
    kExitSlot,
    kOverArrivalSlot,
    kUnderArrivalSlot,
    kParitySlot,
    kNoBackPressureSlot,
    kParityAfterLoopSlot,
    kStartupDeadlockSlot,
    kExpectTxSlot,
    kCTAScopeWaitSlot,
    kRelaxedArrivalSlot,
    kCTAScopeArrivalSlot,
    kLifetimeSlot,
    kNeverInitSlot,
    kInitRaceSlot,
    kSeveralInitSlot,
    kRankSlot,
    kStagingSlot,
    kStagingUnorderedSlot,
    kStagingReleaseSlot,
    kNeverCompletesSlot,
    kTwoCountsSlot,
    kUnbalancedSyncsSlot,
    kMixedCountsSlot,
    kDeadlockSlot,
    kUnmatchedArriveSlot,
    kPartialCTABarrierSlot,
    kSameCountRolesSlot,
    kLaneOutsideMaskSlot,
    kGridRankSlot,
    kWgmmaReleaseSlot,
    kCpAsyncGroupSlot,
    kCpAsyncOverwriteSlot,
    kCpAsyncBarrierSlot,
    kProxyFenceSlot,
    kRemoteRewriteSlot,
    kSequenceGroupSlot,
    kRingCounterSlot};
constexpr bool reportSlotsDistinct() {
  constexpr unsigned n = sizeof(kAllReportSlots) / sizeof(kAllReportSlots[0]);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = i + 1; j < n; ++j)
      if (kAllReportSlots[i] == kAllReportSlots[j])
        return false;
  return true;
}
static_assert(reportSlotsDistinct(), "two report slots share a number");

/// Reports of the checker, one per op and message, emitted at the end so
/// that a loop walked twice reports once (the last walk wins), and once per
/// source location and slot: the barrier ops that one pipe op (or one line
/// of lang code) becomes share its location, and would otherwise repeat the
/// same diagnostic (the most severe, first, is kept).
class Reporter {
public:
  enum class Severity { Warning, Error };
  /// Streams the message: `out.report(op, Severity::Error) << "..." << n;`
  /// (one report per op and slot; a later report replaces an earlier one).
  class Message {
  public:
    explicit Message(std::string &text) : text(text) {}
    template <typename T>
    Message &operator<<(const T &value) {
      llvm::raw_string_ostream os(text);
      os << value;
      return *this;
    }

  private:
    std::string &text;
  };
  Message report(Operation *op, Severity severity,
                 ReportSlot slot = kDefaultSlot);
  /// A note of the report of (`op`, `slot`), at `loc` (e.g. the init that a
  /// use races with); dropped with its report.
  void note(Operation *op, ReportSlot slot, Location loc, const Twine &text);
  void clear(Operation *op, ReportSlot slot = kDefaultSlot);
  /// Whether an error is reported (of this function: one Reporter each).
  bool hasError() const;
  /// Whether a report of `slot` is kept, of either severity.
  bool hasReport(ReportSlot slot) const;
  /// Emits every report (`strict`: warnings as errors); returns whether any
  /// is an error.
  bool emit(bool strict = false);

private:
  struct Entry {
    Severity severity;
    std::string message;
    SmallVector<std::pair<Location, std::string>> notes;
  };
  std::map<std::pair<Operation *, unsigned>, Entry> entries; // stable references
  std::vector<std::pair<Operation *, unsigned>> order;
};

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_REPORTER_H
