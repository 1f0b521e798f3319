//===- NamedBarriers.h - named-barrier uses, for the checker ----*- C++ -*-===//
//
// The named-barrier ops the checker reads (CheckNamedBarriers.cpp,
// CheckDeadlock.cpp): mbarrier.bar_sync / bar_arrive / bar_red, whose id is
// their declaration's, and the upstream ones (UpstreamOps.h), whose id and
// thread count are SSA values evaluated at each point.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_NAMEDBARRIERS_H
#define MBARRIER_ANALYSIS_SYNCCHECK_NAMEDBARRIERS_H

#include "mbarrier/Analysis/SyncCheck/SyncModel.h"

#include <string>

namespace mlir::mbarrier::checksync {

/// A named-barrier op: whether it waits (bar.sync, bar.red) or only
/// arrives (bar.arrive).
struct NamedBarrierOpInfo {
  bool waits;
  bool upstream;
};
std::optional<NamedBarrierOpInfo> namedBarrierOpOf(Operation *op);

/// The barrier `op` names at point `p`: its hardware id 0..15, or, for a
/// declaration that has no id yet, 16 + its position in its module (a
/// barrier of its own); none where the id cannot be evaluated.
std::optional<int64_t> namedBarrierKeyAt(Operation *op, SPMDModel &model,
                                         Point p);
/// The thread count `op` waits for at `p` (0: every thread of the CTA); none
/// where it cannot be evaluated.
std::optional<int64_t> namedBarrierCountAt(Operation *op, SPMDModel &model,
                                           Point p);
/// "id 9" or "@name" for messages.
std::string describeNamedBarrier(Operation *op, int64_t key);
/// "warps 4-7" (or "warps 0-3, 8") of a set of warp numbers.
std::string describeWarps(const llvm::BitVector &warps);

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_ANALYSIS_SYNCCHECK_NAMEDBARRIERS_H
