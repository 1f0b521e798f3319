//===- ProtocolModel.cpp - the synchronization protocol per role ----------===//
//
// Builds the per-warp event sequences of ProtocolModel.h: one walk of the
// function per warp of each CTA, in program order, with the warp's active
// lanes (an scf.if splits them by its condition, evaluated per lane), and an
// environment that binds each loop's induction variable and loop-carried
// values to their value in the current trip, the results of loops and
// branches to what they yield, and the kernel's integer parameters to the
// instance's sample. Values are evaluated through that environment, and
// where they do not depend on it through the SPMD model (SPMDModel::eval).
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "ProtocolInstance.h"

#include <chrono>
#include <set>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using llvm::APInt;
using namespace mlir::mbarrier::checksync::protocol;

namespace {
/// The parameters' samples, in increasing order: small trip counts first.
constexpr int64_t kSamples[] = {1,   2,   3,   4,   5,   6,    7,    8,   16,
                                32,  64,  96,  128, 192, 256,  384,  512,
                                768, 1024, 1536, 2048, 4096, 8192};
constexpr size_t kMaxInstances = 4;
/// The cp.async query's instances: a ring of S stages first reuses a
/// stage at trip S + 1, so its trip counts are sampled up to
/// kMaxSampledTrips (instances past kMaxInstances that run over the work
/// budget are dropped, the first ones kept).
constexpr size_t kMaxCpAsyncInstances = 8;
} // namespace

ProtocolModel::ProtocolModel(FunctionOpInterface fn, SPMDModel &model,
                             bool cpAsync)
    : model(model) {
  if (!model.countable() || !isStructured(fn) ||
      (model.ranks() > 1 && !model.clusterDeclared()))
    return;
  perCTA = (model.threads() + kWarpSize - 1) / kWarpSize;
  threadsPerCTA = model.threads();
  ranks = model.ranks();
  // The region ops that hold an event: the others are not walked.
  llvm::DenseSet<Operation *> withSync;
  fn->walk([&](Operation *op) {
    if (op->getNumRegions() != 0 || !isSyncLeaf(op, cpAsync))
      return;
    for (Operation *parent = op->getParentOp();
         parent && parent != fn.getOperation() &&
         withSync.insert(parent).second;
         parent = parent->getParentOp()) {
    }
  });
  uint64_t work = 0;
  std::set<std::vector<int64_t>> seen;
  SharedFacts shared;
  for (int64_t sample : kSamples) {
    ProtocolInstance instance;
    InstanceBuilder builder(fn, model, perCTA, sample, work, withSync, shared,
                            cpAsync);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t w0 = work;
    Outcome outcome = builder.build(instance);
    LLVM_DEBUG({
      static const char *const outcomes[] = {"ok", "not modelled", "skipped"};
      llvm::dbgs() << "protocol model, sample " << sample << ": "
                   << outcomes[int(outcome)] << ", work " << (work - w0)
                   << ", "
                   << std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count()
                   << " ms, trips";
      for (int64_t t : instance.trips) llvm::dbgs() << " " << t;
      llvm::dbgs() << "\n";
    });
    if (builder.overBudget && cpAsync && all.size() >= kMaxInstances)
      break;
    if (builder.overBudget) {
      budgetExceeded = true;
      all.clear();
      return;
    }
    usesParameters |= builder.usedParameters;
    if (outcome == Outcome::Fail) {
      all.clear();
      return;
    }
    if (outcome == Outcome::Ok && seen.insert(instance.trips).second)
      all.push_back(std::move(instance));
    // Without parameters every sample is the same instance; past the
    // sampled trips the larger samples take more.
    if (!builder.usedParameters ||
        all.size() >= (cpAsync ? kMaxCpAsyncInstances : kMaxInstances) ||
        (outcome == Outcome::Skip && !instance.trips.empty() &&
         llvm::any_of(instance.trips,
                      [](int64_t t) { return t > kMaxSampledTrips; })))
      break;
  }
  modelled = !all.empty();
}

SmallVector<llvm::BitVector>
ProtocolModel::roles(const ProtocolInstance &in) const {
  SmallVector<llvm::BitVector> result;
  SmallVector<int64_t> representative;
  for (int64_t w = 0; w < numWarps(); ++w) {
    bool placed = false;
    for (auto [i, r] : llvm::enumerate(representative)) {
      const auto &a = in.traces[r], &b = in.traces[w];
      if (a.size() == b.size() &&
          llvm::all_of(llvm::seq<size_t>(0, a.size()),
                       [&](size_t k) { return a[k].op == b[k].op; })) {
        result[i].set(w);
        placed = true;
        break;
      }
    }
    if (!placed) {
      representative.push_back(w);
      result.emplace_back(numWarps());
      result.back().set(w);
    }
  }
  return result;
}

std::string ProtocolModel::describe(const llvm::BitVector &warps) const {
  if (ranks == 1)
    return describeWarps(warps);
  std::string text;
  for (int64_t r = 0; r < ranks; ++r) {
    llvm::BitVector inRank(perCTA);
    for (int64_t w = 0; w < perCTA; ++w)
      if (warps.test(r * perCTA + w))
        inRank.set(w);
    if (inRank.none())
      continue;
    text += (text.empty() ? "" : " and ") + describeWarps(inRank) +
            " of CTA " + std::to_string(r);
  }
  return text;
}
