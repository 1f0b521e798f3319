//===- Reporter.cpp - the checker's diagnostics, once per op and place ----===//
//
// Reports are kept per (op, slot) while the analyses run (a loop walked
// twice reports once: the last walk wins) and emitted at the end, once per
// source location and slot, the most severe first (docs/checker.md, "Using
// it").
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/Reporter.h"

#include <map>

using namespace mlir;
using namespace mlir::mbarrier::checksync;

Reporter::Message Reporter::report(Operation *op, Severity severity,
                                   ReportSlot slot) {
  auto key = std::make_pair(op, static_cast<unsigned>(slot));
  auto [it, inserted] = entries.try_emplace(key, Entry{severity, "", {}});
  if (inserted)
    order.push_back(key);
  it->second = Entry{severity, "", {}};
  return Message(it->second.message);
}

void Reporter::note(Operation *op, ReportSlot slot, Location loc,
                    const Twine &text) {
  auto it = entries.find(std::make_pair(op, static_cast<unsigned>(slot)));
  if (it != entries.end())
    it->second.notes.push_back({loc, text.str()});
}

void Reporter::clear(Operation *op, ReportSlot slot) {
  entries.erase(std::make_pair(op, static_cast<unsigned>(slot)));
}

bool Reporter::hasError() const {
  for (const auto &entry : entries)
    if (entry.second.severity == Severity::Error)
      return true;
  return false;
}

bool Reporter::hasReport(ReportSlot slot) const {
  for (const auto &entry : entries)
    if (entry.first.second == static_cast<unsigned>(slot))
      return true;
  return false;
}

bool Reporter::emit(bool strict) {
  // The report kept per (location, slot): the first of the most severe. An
  // unknown location stands for its op alone.
  auto place = [](std::pair<Operation *, unsigned> key) {
    Location loc = key.first->getLoc();
    const void *where = isa<UnknownLoc>(loc)
                            ? static_cast<const void *>(key.first)
                            : loc.getAsOpaquePointer();
    return std::make_pair(where, key.second);
  };
  std::map<std::pair<const void *, unsigned>, std::pair<Operation *, unsigned>>
      kept;
  for (auto key : order) {
    auto it = entries.find(key);
    if (it == entries.end())
      continue;
    auto [at, inserted] = kept.try_emplace(place(key), key);
    if (!inserted && it->second.severity == Severity::Error &&
        entries.at(at->second).severity == Severity::Warning)
      at->second = key;
  }
  bool error = false;
  for (auto key : order) {
    auto it = entries.find(key);
    if (it == entries.end())
      continue;
    if (kept.at(place(key)) == key) {
      bool isError = strict || it->second.severity == Severity::Error;
      InFlightDiagnostic diag = isError ? key.first->emitError()
                                        : key.first->emitWarning();
      diag << it->second.message;
      for (auto &[loc, text] : it->second.notes)
        diag.attachNote(loc) << text;
      error |= isError;
    }
    entries.erase(it);
  }
  order.clear();
  return error;
}
