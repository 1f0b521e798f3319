//===- FlowWalker.h - program order over structured control flow -*- C++ -*-===//
//
// A forward walk in program order over structured control flow for the path
// analyses of mbarrier-check-sync (docs/checker.md, "Paths"): scf.if joins
// its branches, a loop runs its body twice, other region ops run each
// region (or none).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_FLOWWALKER_H
#define MBARRIER_ANALYSIS_SYNCCHECK_FLOWWALKER_H

#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

namespace mlir::mbarrier::checksync {

/// One branch of an scf.if after the walk: its state, whether some thread
/// certainly takes it (known, non-empty executing set) and that set.
template <typename State>
struct Branch {
  State state;
  bool taken;
  ExecSet set;
};

/// `State` has `operator==`, `void join(const State &)` (paths meet: a
/// loop's entry and back edge) and `static State mergeBranches(const State &entry,
/// ArrayRef<Branch<State>>)` (the branches of an scf.if; a state may prefer
/// what a taken branch did to objects the whole CTA shares: an init by
/// thread 0 initializes the barrier for everyone). `Visit(Operation *,
/// State &)` is called for every op without regions (terminators too).
template <typename State, typename Visit>
class FlowWalker {
public:
  FlowWalker(SPMDModel &model, Visit visit) : model(model), visit(visit) {}

  void walkRegion(Region &region, State &state) {
    if (region.empty())
      return;
    for (Operation &op : region.front())
      walkOp(&op, state);
  }

  void walkOp(Operation *op, State &state) {
    if (op->getNumRegions() == 0) {
      visit(op, state);
      return;
    }
    if (isIfOp(op) && op->getNumRegions() == 2) {
      State entry = state;
      SmallVector<Branch<State>, 2> branches;
      for (Region &region : op->getRegions()) {
        State branch = entry;
        walkRegion(region, branch);
        ExecSet set = model.regionSet(&region);
        bool taken = !region.empty() && set && set->any();
        branches.push_back({branch, taken, std::move(set)});
      }
      state = State::mergeBranches(entry, branches);
      return;
    }
    if (isLoop(op)) {
      // A walk is a function of the state it starts from (the visits
      // report per op, the last walk winning): a loop reached again with
      // the state of its last walk leaves what that walk left, and repeats
      // its reports, so it is not walked again. Without this, loops nested
      // d deep would walk the innermost body 2^d times.
      auto known = loops.find(op);
      if (known != loops.end() && known->second.first == state) {
        state = known->second.second;
        return;
      }
      // Zero or more trips: the body twice, so that what a trip leaves
      // reaches the next one; the reports of the last walk stand. Where
      // the first trip leaves nothing new (the join is the entry), the
      // second walk would be the first one again.
      State entry = state;
      State body = entry;
      for (Region &region : op->getRegions())
        walkRegion(region, body);
      State again = entry;
      again.join(body);
      State second = body;
      if (!(again == entry)) {
        second = again;
        for (Region &region : op->getRegions())
          walkRegion(region, second);
      }
      if (runsAtLeastOnce(op)) {
        state = second;
      } else {
        state = entry;
        state.join(second);
      }
      loops[op] = {std::move(entry), state};
      return;
    }
    // Other region ops (scf.execute_region, scf.index_switch, ...): each
    // region may run.
    State entry = state;
    State result = entry;
    for (Region &region : op->getRegions()) {
      State branch = entry;
      walkRegion(region, branch);
      result.join(branch);
    }
    state = result;
  }

private:
  SPMDModel &model;
  Visit visit;
  /// Per loop, the state its last walk started from and the one it left.
  llvm::DenseMap<Operation *, std::pair<State, State>> loops;
};

template <typename State, typename Visit>
FlowWalker<State, Visit> makeWalker(SPMDModel &model, Visit visit) {
  return FlowWalker<State, Visit>(model, visit);
}

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_FLOWWALKER_H
