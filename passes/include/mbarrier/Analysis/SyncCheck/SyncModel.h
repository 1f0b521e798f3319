//===- SyncModel.h - the SPMD model of mbarrier-check-sync ------*- C++ -*-===//
//
// What the synchronization checker knows about a kernel, shared by its
// analyses (docs/checker.md):
//
// - `SPMDModel`: the threads of a CTA (known_block_size / nvvm.reqntid) and
//   the CTAs of a cluster (known_cluster_size / nvvm.cluster_dim); an
//   evaluator of the integer expressions over thread ids, lane ids and CTA
//   ranks at one (CTA rank, thread) point; the *executing set* of an op:
//   the (rank, thread) points that reach it through the enclosing scf.if
//   conditions. Anything it cannot evaluate is "unknown", never guessed.
// - `BarrierKey`: which barrier an op touches (the group value with remote
//   views stripped, and the index: a constant or an SSA value).
// The path analyses' walker is in FlowWalker.h, the reports in Reporter.h.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_CONVERSION_SYNCMODEL_H
#define MBARRIER_CONVERSION_SYNCMODEL_H

#include "mbarrier/Analysis/SyncCheck/Reporter.h"
#include "mbarrier/Analysis/SyncCheck/UpstreamOps.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>

namespace mlir::mbarrier::checksync {

/// The width of an integer type (64 for `index`), 0 for another type.
inline unsigned integerWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return 0;
}

/// Threads per warp: how the model groups threads into warps (lane ids,
/// elect.sync, the warps of the named-barrier and deadlock checks).
constexpr int64_t kWarpSize = 32;

/// One (CTA rank, linear thread id) point of a cluster launch.
struct Point {
  int64_t rank;
  int64_t tid;
};

/// A set of points, or unknown.
using ExecSet = std::optional<llvm::BitVector>;

class SPMDModel {
public:
  explicit SPMDModel(FunctionOpInterface fn);

  /// Threads per CTA (0: unknown) and CTAs per cluster. Without a declared
  /// cluster the model has one CTA and a CTA rank evaluates to unknown.
  int64_t threads() const { return numThreads; }
  int64_t ranks() const { return numRanks; }
  bool clusterDeclared() const { return hasCluster; }
  bool countable() const { return numThreads > 0; }

  /// The value of `v` at `p`, or none where it depends on anything but
  /// constants, thread/lane ids, CTA ranks and elect.sync.
  std::optional<llvm::APInt> eval(Value v, Point p);
  std::optional<int64_t> evalInt(Value v, Point p);
  /// evalInt with the CTA ids (`%ctaid`, gpu.block_id) evaluated too: those
  /// of the CTA of rank `p.rank` in cluster `cluster` of the grid along x
  /// (cluster 0: the CTA ids are the ids in the cluster). None without a
  /// declared cluster.
  std::optional<int64_t> evalIntInCluster(Value v, Point p, int64_t cluster);
  /// Whether `v` may differ between the points: its definition reads a
  /// thread, lane or CTA id, or elect.sync (memoized; a block argument is
  /// not, since eval does not see through it).
  bool dependsOnPoint(Value v);

  /// The points that execute `op` (through the scf.if conditions around it),
  /// or none when a condition cannot be evaluated or the block size is
  /// unknown.
  const ExecSet &execSet(Operation *op);
  /// The executing set of the ops directly inside `region`.
  const ExecSet &regionSet(Region *region);
  /// The points that may execute `op`: its execSet, except that a loop
  /// whose bounds or condition vary only through loads from addresses that
  /// do not (a trip count read from memory at the CTA's index: DeepGEMM's
  /// `masked_m[blockIdx.y]`) is taken as entered by every point that
  /// reaches it. A superset of the points of a launch where each such
  /// loop runs a trip: for warnings only.
  const ExecSet &mayExecSet(Operation *op);
  /// The points that execute `op` at least once: its execSet, except that
  /// an scf.while whose trips vary but whose first trip does not (its
  /// condition on the initial values is uniform: a persistent tile loop
  /// whose first tile is the CTA's and whose next ones come through an
  /// atomic counter or shared memory) is taken as entered by every point
  /// that reaches it, a loop's trips being taken to be at least one. How
  /// many times each point executes `op` is not known.
  const ExecSet &enteredExecSet(Operation *op);
  /// Whether the scf.while `loop`'s condition, evaluated on its initial
  /// values, is uniform (SyncUniform.cpp).
  bool firstTripUniform(Operation *loop);
  /// The executing set of `op` where its `if %pred` (an arrival's) holds.
  const ExecSet &actingPoints(Operation *op);

  size_t bit(Point p) const { return p.rank * numThreads + p.tid; }
  Point point(size_t bit) const {
    return {static_cast<int64_t>(bit / numThreads),
            static_cast<int64_t>(bit % numThreads)};
  }
  /// Whether some point of `set` lies in CTA `rank`.
  bool hasRank(const llvm::BitVector &set, int64_t rank) const;

  /// Whether `v` is provably the same at every point that computes it in
  /// one dynamic instance (SyncUniform.cpp): built of constants, kernel
  /// parameters, launch dimensions and pure arithmetic on them, and of loop
  /// and branch values whose every input is. A value that depends on a
  /// thread or lane id, elect.sync, a load, a call, a device function's
  /// argument, or (in a cluster of several CTAs) on the CTA, is not.
  bool uniform(Value v);
  /// Whether every point that enters `loop` runs the same trips: its
  /// bounds (scf.for, scf.parallel, scf.forall) or its condition
  /// (scf.while) are uniform. Otherwise the executing set of its body is
  /// unknown.
  bool uniformTrips(Operation *loop);
  /// uniform / uniformTrips with a load taken as uniform where its address
  /// is (the same memory, read by every thread: mayExecSet).
  bool uniformOverLoads(Value v);
  bool uniformTripsOverLoads(Operation *loop);
  /// Whether the cluster-form `op` (an arrival or expect-tx through a
  /// remote view or `on %cta`, a multicast copy or commit) targets the
  /// executing CTA itself at every point of its executing set: a cluster of
  /// one, `on %rank` with the CTA's own rank, a mask of its own bit.
  bool targetsOwnCTA(Operation *op);
  /// The CTAs that the cluster-form `op` reaches from the points of its
  /// executing set, as a mask of ranks; none where a point's target does
  /// not evaluate.
  std::optional<uint64_t> targetRanks(Operation *op);

private:
  /// The flavours of executing sets: exact, mayExecSet's, enteredExecSet's.
  enum class SetKind { Exact, OverLoads, Entered };
  void computeVarying(bool loadsVary, llvm::DenseSet<Value> &out);
  bool loopTripsUniform(Operation *loop, bool overLoads);
  const ExecSet &regionSetOf(Region *region, SetKind kind);
  bool computeTargetsOwnCTA(Operation *op);
  /// Calls `fn(point, mask of target ranks)` for each point of the
  /// executing set of the cluster-form `op`; false (and stops) where the
  /// set or a target is unknown.
  bool forEachTarget(Operation *op,
                     llvm::function_ref<void(Point, uint64_t)> fn);
  std::optional<llvm::APInt> evalOp(Operation *op, Value v, Point p);
  std::optional<llvm::APInt> evalElect(Operation *elect, Point p);

  /// Memo of eval, so that a value shared by several uses (`x + x`) is
  /// computed once per point: values that do not depend on the point once
  /// for all points, the others once per point (the entry of the last point
  /// that computed them). A result cut short by the depth or work bound is
  /// not kept.
  struct Memo {
    size_t bit; // the point; ignored for point-independent values
    std::optional<llvm::APInt> value;
  };
  llvm::DenseMap<Value, Memo> memo;
  llvm::DenseMap<Value, bool> pointDependent;
  unsigned evalDepth = 0;
  uint64_t evalWork = 0; // evalOp calls, bounded by kMaxEvalWork
  uint64_t cutShort = 0; // results cut short by a bound
  unsigned dependDepth = 0;
  uint64_t dependCutShort = 0;
  int64_t gridCluster = -1; // evalIntInCluster's cluster; -1: CTA ids unknown

  FunctionOpInterface fn;
  int64_t block[3] = {0, 0, 0};
  int64_t cluster[3] = {1, 1, 1};
  int64_t numThreads = 0;
  int64_t numRanks = 1;
  bool hasCluster = false;
  Operation *root;
  std::map<Region *, ExecSet> regionSets; // stable references
  std::map<Region *, ExecSet> mayRegionSets; // mayExecSet's
  std::map<Region *, ExecSet> enteredRegionSets; // enteredExecSet's
  std::map<Operation *, ExecSet> actingSets;
  llvm::DenseMap<Operation *, ExecSet> electSets;
  std::optional<llvm::DenseSet<Value>> varying; // not uniform
  std::optional<llvm::DenseSet<Value>> varyingOverLoads; // loads not sources
  llvm::DenseMap<Operation *, bool> ownTargets;  // targetsOwnCTA, per op
};

/// Which barrier an op touches: the owner's group (remote views stripped)
/// and the index.
struct BarrierKey {
  Value root;
  Value index;                  // the index operand
  std::optional<int64_t> constIndex;
  /// The values the index can take, [first, second), where its definition
  /// bounds it (a constant, `x mod C`, `x & C`, sums of those: a pipeline's
  /// stage and stage + D).
  std::optional<std::pair<int64_t, int64_t>> range;

  /// Certainly the same barrier (same group; equal constant indices or the
  /// same SSA index).
  bool sameAs(const BarrierKey &other) const;
  /// Certainly a different barrier of the same group, or another group.
  bool differentFrom(const BarrierKey &other) const;
};

/// The group value with remote views stripped; for a group made by
/// `mbarrier.view`, the viewed pointer (views of one pointer are one group).
Value rootOf(Value barriers);
/// The `mbar` operand of a bulk copy that completes on a barrier, or null.
Value mbarOperand(Operation *op);
/// Groups whose memory ops the checker does not see may reach
/// (SyncViews.cpp): a view whose memory is also reached otherwise, or that
/// may overlap another view; a group whose `mbarrier.ptr` address is used
/// other than by a bulk copy completing on it. Neither counted nor followed.
SmallVector<Value> openRoots(FunctionOpInterface fn);
BarrierKey keyOf(Value barriers, Value index);
std::optional<int64_t> constantOf(Value v);

/// The barrier an mbarrier op addresses (`barriers[index]`), if it has one
/// (an op that names a whole group, mbarrier.pipe.create, has none).
std::optional<BarrierKey> barrierOf(Operation *op);
/// Visits every user of the group `root` (for a pointer, the groups that
/// mbarrier.view makes of it) and, through mbarrier.remote_view, of its
/// remote views; stops at the first user for which `visit` returns false
/// and returns false then. The one walk of "who can touch these barriers"
/// (CheckInit's uses in sight, CheckCounts's closed world).
bool forEachGroupUser(Value root, llvm::function_ref<bool(Operation *)> visit);
/// Whether `op` is an arrival on (or expect-tx to, or a copy into) another
/// CTA's barrier: through a remote view, `on %cta`, a multicast or 2-CTA
/// commit, a multicast bulk copy, or a bulk copy into another CTA.
bool isRemoteBarrierUse(Operation *op);
/// The same, unless the model proves the target to be the executing CTA
/// itself (SPMDModel::targetsOwnCTA): then it is a local use.
bool isRemoteUse(SPMDModel &model, Operation *op);
/// Whether `op` is an scf.for with constant bounds that runs at least once.
bool runsAtLeastOnce(Operation *op);

/// A copy of `fn` (not inserted anywhere; the caller destroys it) in which
/// the calls to functions of the module with a one-block body are replaced
/// by those bodies, recursively but not for recursion (SyncCallees.cpp); or
/// null where `fn` has no such call.
Operation *inlineCallees(FunctionOpInterface fn);
/// Whether `op` is a call the checker cannot see into (one that
/// `inlineCallees` left): it may synchronize, and what it is passed may be
/// arrived on, initialized or invalidated.
bool isOpaqueCall(Operation *op);
/// The points that execute `op` and, for an arrival with `if %pred`, where
/// the predicate holds; none where unknown (SPMDModel::actingPoints, once
/// per op).
const ExecSet &actingPoints(Operation *op, SPMDModel &model);

/// The value of the arith op `op` (constants, integer arithmetic,
/// comparisons, select, casts) of result width `width`, its operands given
/// by `operand(i)`; none for another op or an unknown operand. The one
/// arithmetic of SPMDModel::eval and of the protocol model's per-trip
/// evaluation (ProtocolModel.cpp).
std::optional<llvm::APInt>
evalArith(Operation *op, unsigned width,
          llvm::function_ref<std::optional<llvm::APInt>(unsigned)> operand);

/// The analyses, one per class family (docs/checker.md).
void checkLifetime(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
void checkCounts(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
void checkMemoryOrder(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
void checkInit(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
void checkRanks(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
void checkStagingBuffers(FunctionOpInterface fn, SPMDModel &model,
                         Reporter &out);
/// Class 10 between threads: a bulk store's source written by another
/// thread with no barrier, or released before the read wait
/// (CheckStoreSources.cpp).
void checkStoreSources(FunctionOpInterface fn, SPMDModel &model,
                       Reporter &out);
void checkNamedBarriers(FunctionOpInterface fn, SPMDModel &model,
                        Reporter &out);
void checkDeadlock(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
/// Class 2's phases (ExitPhases.cpp): a remote arrival whose target CTA's
/// own waits on the barrier, in some counted instance of the protocol model,
/// require fewer phases than the arrivals on it complete, so that the
/// target may exit before it: the target, the instance (`sample`, where
/// the parameters are sampled) and the phases required and completed.
struct ArrivalPastLastWait {
  int64_t target = 0;
  bool sampled = false;
  int64_t sample = 0;
  int64_t required = 0, phases = 0;
};
/// Per such arrival op, the first instance that has it; none where the
/// protocol model is not built.
std::optional<llvm::DenseMap<Operation *, ArrivalPastLastWait>>
remoteArrivalsPastLastWait(FunctionOpInterface fn, SPMDModel &model);
/// Class 5: two accesses of a ring whose counters restart at different loop
/// depths (CheckRingCounters.cpp).
void checkRingCounters(FunctionOpInterface fn, SPMDModel &model,
                       Reporter &out);
/// Class 17: a stage released while a wgmma that reads it may still run.
void checkWgmmaRelease(FunctionOpInterface fn, SPMDModel &model,
                       Reporter &out);
void checkWarpSync(FunctionOpInterface fn, SPMDModel &model, Reporter &out);
/// Class 18: shared memory read while a cp.async group may still write it.
void checkCpAsyncGroups(FunctionOpInterface fn, SPMDModel &model,
                        Reporter &out);
/// Ordered sequences: the groups their seq.start ops start.
void checkSequences(FunctionOpInterface fn, SPMDModel &model, Reporter &out);


/// Whether `fn` is one block of structured control flow (the walkers need
/// it; a function with cf branches is skipped).
bool isStructured(FunctionOpInterface fn);

} // namespace mlir::mbarrier::checksync

#endif // MBARRIER_CONVERSION_SYNCMODEL_H
