//===- Reporter.h - the diagnostics of mbarrier-check-sync ------*- C++ -*-===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_REPORTER_H
#define MBARRIER_ANALYSIS_SYNCCHECK_REPORTER_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace mlir::mbarrier::checksync {

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
  Message report(Operation *op, Severity severity, unsigned slot = 0);
  /// A note of the report of (`op`, `slot`), at `loc` (e.g. the init that a
  /// use races with); dropped with its report.
  void note(Operation *op, unsigned slot, Location loc, const Twine &text);
  void clear(Operation *op, unsigned slot = 0);
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
