//===- ProtocolInstance.h - one instance of the protocol model --*- C++ -*-===//
//
// The builder of one instance of ProtocolModel.h (every warp's events for
// one sample of the kernel's parameters), private to the checker: its
// evaluation of values (ProtocolEval.cpp), its walk of the control flow
// (ProtocolWalk.cpp) and the events it records (ProtocolEvents.cpp). The
// model itself, which runs it per sample, is ProtocolModel.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLINSTANCE_H
#define MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLINSTANCE_H

#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"
#include "NamedBarriers.h"

#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Path.h"

#include <tuple>

// The including file defines DEBUG_TYPE (fail()'s LLVM_DEBUG).

namespace mlir::mbarrier::checksync::protocol {
using llvm::APInt;

constexpr unsigned kMaxEvalDepth = 64;


/// The ops that are synchronization events, or that the model cannot
/// follow (opaque calls): a region op without any is not walked.
inline bool isSyncLeaf(Operation *op, bool cpAsync) {
  if (cpAsync && (cpAsyncCopyOf(op) || isCpAsyncCommitGroup(op) ||
                  cpAsyncWaitGroup(op) || sharedReadOf(op).address))
    return true;
  return isa<MBarrierDialect>(op->getDialect()) || namedBarrierOpOf(op) ||
         isOpaqueCall(op) || isClusterArrive(op) || isClusterWait(op) ||
         cpAsyncMBarrierArriveOf(op);
}

enum class Outcome { Ok, Fail, Skip };

/// What does not change from one instance to the next, kept across them
/// (the instances walk the same function for other samples, most of them
/// with the trips of an earlier one: docs/checker.md, "Cost"): whether a
/// value depends on the environment, the values that do not at each point,
/// and the barrier each op addresses.
struct SharedFacts {
  llvm::DenseMap<Value, bool> envDependent;
  llvm::DenseMap<std::pair<const void *, size_t>, std::optional<APInt>>
      pointValues;
  llvm::DenseMap<Operation *, std::optional<BarrierKey>> barriers;
  /// Per block, the ops that the walk must look at, each with the number
  /// of ops before it that it only counts (an op without an event and
  /// without a region that holds one: `leaf` and `walkOp` do nothing else
  /// for it), and the number of such ops after the last.
  struct BlockPlan {
    SmallVector<std::pair<Operation *, uint64_t>> ops;
    uint64_t tail = 0;
  };
  llvm::DenseMap<Block *, std::unique_ptr<BlockPlan>> plans;
};

/// One instance: every warp's events for one sample.
class InstanceBuilder {
public:
  InstanceBuilder(FunctionOpInterface fn, SPMDModel &model, int64_t perCTA,
                  int64_t sample, uint64_t &work,
                  const llvm::DenseSet<Operation *> &withSync,
                  SharedFacts &shared, bool cpAsync)
      : fn(fn), model(model), perCTA(perCTA), sample(sample), work(work),
        withSync(withSync), shared(shared), cpAsync(cpAsync),
        envDependent(shared.envDependent) {}

  Outcome build(ProtocolInstance &out) {
    instance = &out;
    out.sample = sample;
    out.traces.assign(perCTA * model.ranks(), {});
    if (cpAsync)
      out.copies.assign(perCTA * model.ranks(), {});
    for (rank = 0; rank < model.ranks(); ++rank)
      for (warp = 0; warp < perCTA; ++warp) {
        env.clear();
        ++epoch;
        trip = -1;
        lanes = fullLanes();
        clusterLanes = 0;
        trace = &out.traces[rank * perCTA + warp];
        if (cpAsync)
          copyTrace = &out.copies[rank * perCTA + warp];
        if (!walkBlock(fn.getFunctionBody().front()))
          return skip ? Outcome::Skip : Outcome::Fail;
      }
    bool anyTrip = out.trips.empty() ||
                   llvm::any_of(out.trips, [](int64_t t) { return t > 0; });
    return anyTrip ? Outcome::Ok : Outcome::Skip;
  }

  bool usedParameters = false;
  bool overBudget = false;

private:
  /// Leaves the instance: not modelled (`-debug-only=mbarrier-protocol`
  /// says where and which check of this file).
  bool fail(int line, const char *file = __builtin_FILE()) {
    LLVM_DEBUG(llvm::dbgs() << "protocol model, sample " << sample
                            << ", CTA " << rank << " warp " << warp
                            << ": not modelled at "
                            << llvm::sys::path::filename(file) << ":" << line
                            << (current ? " on " : "");
               if (current) current->getLoc().print(llvm::dbgs());
               llvm::dbgs() << "\n");
    return false;
  }
  Operation *current = nullptr;

  uint32_t fullLanes() const {
    int64_t n = std::min<int64_t>(kWarpSize,
                                  model.threads() - warp * kWarpSize);
    return n >= 32 ? ~uint32_t(0) : (uint32_t(1) << n) - 1;
  }
  Point pointOf(unsigned lane) const {
    return {rank, warp * kWarpSize + lane};
  }
  bool charge() {
    if (++work > ProtocolModel::kWorkBudget) {
      overBudget = true;
      return false;
    }
    return true;
  }

  /// Whether `v` depends on the environment: a block argument, or a CTA id
  /// or launch dimension that the model does not evaluate.
  bool dependsOnEnv(Value v, unsigned depth = 0);

  std::optional<APInt> eval(Value v, Point p, unsigned depth = 0);

  std::optional<APInt> evalFresh(Value v, Point p, unsigned width,
                                 unsigned depth);

  /// The value of `v` for the whole warp: the same at every active lane.
  std::optional<APInt> evalWarp(Value v);
  std::optional<int64_t> evalWarpInt(Value v);
  /// The active lanes where the i1 `cond` holds, or none. A condition of
  /// the thread alone (not of the environment) is evaluated once per warp.
  std::optional<uint32_t> lanesWhere(Value cond);
  std::optional<uint32_t> lanesAt(Value cond);
  void bind(Value v, std::optional<APInt> value);

  /// Charges `n` ops at once (the same units and the same outcome as
  /// charging them one by one: past the budget the walk stops either way).
  bool chargeOps(uint64_t n);

  const SharedFacts::BlockPlan &planOf(Block &block);

  bool walkBlock(Block &block);

  bool walkOp(Operation *op);

  SmallVector<std::optional<APInt>> yielded(Block &block,
                                            bool loop = false);

  /// Lets the parameters be sampled (in a loop's bounds, condition and
  /// carried values) while it lives.
  struct SaveParameters {
    InstanceBuilder &builder;
    bool before;
    SaveParameters(InstanceBuilder &builder, bool allow)
        : builder(builder), before(builder.allowParameters) {
      builder.allowParameters = allow;
    }
    ~SaveParameters() { builder.allowParameters = before; }
  };

  bool walkIf(Operation *op);

  /// Records the trips of a loop whose bounds depend on a parameter; false
  /// where the instance takes more than the model samples.
  bool countTrips(Operation *loop, bool parameterBound, int64_t trips);

  bool walkFor(Operation *op);

  /// A spin loop on a test_wait / try_wait (`while (!test_wait(...))`,
  /// a nanosleep or other ops without events between the probes): the
  /// loop exits once the phase completed, so it is that wait.
  std::optional<bool> spinWait(Operation *op);

  bool walkWhile(Operation *op);

  /// Appends an event; an event costs four units of the budget (it is
  /// kept), so that the traces stay below a million events.
  bool push(SyncEvent event);

  /// cp.async.mbarrier.arrive: with `.noinc`, one arrival per lane on the
  /// barrier of its `mbarrier.ptr` address (the copies are taken to land);
  /// without, a net zero (no event).
  bool cpAsyncArrive(Operation *op, const CpAsyncArrive &arrive);

  /// The cp.async query's events (none for another op): copies and reads
  /// with each lane's byte offset in their allocation (dropped where an
  /// offset does not evaluate), commits and waits.
  std::optional<bool> asyncCopyEvent(Operation *op);

  bool place(Operation *op, AsyncCopyEvent::Kind kind, Value ptr,
             int64_t bytes, uint32_t acting);

  bool leaf(Operation *op);

  /// A cluster arrive or wait (the count-less barrier of the cluster).
  bool clusterBarrier(Operation *op, bool arrives);

  /// A named-barrier op; a warp arrives for its threads (as class 11
  /// counts), also where only some of its lanes execute the op (thread 0
  /// alone at a bar.sync: the barrier counts the warp). Lanes of one warp
  /// at named barriers in both branches of an scf.if are not followed.
  bool named(Operation *op, bool waits);

  std::optional<int64_t> mbarrierKey(Operation *op, Point p, int64_t owner);

  /// Each active lane initializes the barrier of its index (threads 0-3
  /// each initializing one barrier of a group); lanes of the warp that
  /// name the same barrier make one init (one instruction).
  bool initOp(InitOp init);

  /// The CTAs that the arrival `op` at `p` reaches, as a mask.
  std::optional<uint64_t> targetsAt(Operation *op, Point p);

  bool arrive(Operation *op);

  bool waitOp(WaitOp wait);

  /// A wait (an mbarrier.wait, or a spin loop on a test_wait / try_wait)
  /// for the phase of parity `phase ^ offset`.
  bool waitEvent(Operation *wait, Value phaseValue, int64_t offset);

  FunctionOpInterface fn;
  SPMDModel &model;
  int64_t perCTA;
  int64_t sample;
  uint64_t &work;
  const llvm::DenseSet<Operation *> &withSync;
  SharedFacts &shared;
  ProtocolInstance *instance = nullptr;
  int64_t rank = 0, warp = 0, trip = -1;
  uint32_t lanes = 0;
  bool skip = false;
  bool partialNamed = false; // a named-barrier op by some lanes of the warp
  uint32_t clusterLanes = 0; // the lanes of a cluster barrier by some lanes
  bool allowParameters = false;
  bool cpAsync = false;
  std::vector<SyncEvent> *trace = nullptr;
  std::vector<AsyncCopyEvent> *copyTrace = nullptr;
  llvm::DenseMap<Value, APInt> env;
  struct Memo {
    uint64_t epoch;
    size_t bit;
    bool allow;
    bool usedParameters;
    std::optional<APInt> value;
  };
  llvm::DenseMap<Value, Memo> memo;
  llvm::DenseMap<std::pair<const void *, int64_t>, std::optional<uint32_t>>
      laneMasks;
  uint64_t epoch = 0;
  llvm::DenseMap<Value, bool> &envDependent;
  llvm::DenseMap<std::tuple<const void *, int64_t, int64_t>, int64_t> keys;
  llvm::SmallPtrSet<Operation *, 8> recordedLoops;
};

} // namespace mlir::mbarrier::checksync::protocol

#endif // MBARRIER_ANALYSIS_SYNCCHECK_PROTOCOLINSTANCE_H
