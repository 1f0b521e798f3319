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
#include "mbarrier/Analysis/SyncCheck/ProtocolModel.h"
#include "NamedBarriers.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/Support/Debug.h"

#include <chrono>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using llvm::APInt;

#define DEBUG_TYPE "mbarrier-protocol"

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
constexpr unsigned kMaxEvalDepth = 64;

unsigned intWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return 0;
}

/// The ops that are synchronization events, or that the model cannot
/// follow (opaque calls): a region op without any is not walked.
bool isSyncLeaf(Operation *op, bool cpAsync) {
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
  bool fail(int line) {
    LLVM_DEBUG(llvm::dbgs() << "protocol model, sample " << sample
                            << ", CTA " << rank << " warp " << warp
                            << ": not modelled at ProtocolModel.cpp:" << line
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
  bool dependsOnEnv(Value v, unsigned depth = 0) {
    if (auto it = envDependent.find(v); it != envDependent.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    // A block argument, or a loop's or branch's result: bound per trip.
    bool result = !def || def->getNumRegions() != 0 || depth > kMaxEvalDepth;
    if (!result && def->getNumOperands() == 0 && !readsPoint(def))
      result = pointSourceOf(def) == PointSource::CTA ||
               pointSourceOf(def) == PointSource::Launch;
    if (!result && def->getNumRegions() == 0)
      for (Value operand : def->getOperands())
        if (dependsOnEnv(operand, depth + 1)) {
          result = true;
          break;
        }
    envDependent[v] = result;
    return result;
  }

  std::optional<APInt> eval(Value v, Point p, unsigned depth = 0) {
    if (auto it = env.find(v); it != env.end())
      return it->second;
    unsigned width = intWidth(v.getType());
    if (!width || depth > kMaxEvalDepth || !charge())
      return std::nullopt;
    if (!dependsOnEnv(v)) {
      auto key = std::make_pair(v.getAsOpaquePointer(),
                                model.dependsOnPoint(v) ? model.bit(p) : 0);
      auto [it, inserted] = shared.pointValues.try_emplace(key);
      if (inserted)
        it->second = model.eval(v, p);
      return it->second;
    }
    // Memoized per environment (an epoch: every bind starts a new one), and
    // per point for values that depend on it: a shared subexpression is
    // evaluated once (`x + x` chains), not once per path.
    size_t at = model.bit(p);
    if (auto it = memo.find(v); it != memo.end() && it->second.epoch == epoch &&
                                it->second.allow == allowParameters &&
                                (it->second.bit == at || !model.dependsOnPoint(v))) {
      usedParameters |= it->second.usedParameters;
      return it->second.value;
    }
    bool usedBefore = usedParameters;
    usedParameters = false;
    std::optional<APInt> result = evalFresh(v, p, width, depth);
    memo[v] = {epoch, at, allowParameters, usedParameters, result};
    usedParameters |= usedBefore;
    return result;
  }

  std::optional<APInt> evalFresh(Value v, Point p, unsigned width,
                                 unsigned depth) {
    Operation *def = v.getDefiningOp();
    if (!def) {
      // A kernel parameter: the instance's sample.
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner()->getParentOp() != fn.getOperation() ||
          !allowParameters || !model.uniform(v))
        return std::nullopt; // an unbound loop value, not a loop's, or a
                             // device function's argument
      usedParameters = true;
      return APInt(64, static_cast<uint64_t>(sample)).zextOrTrunc(width);
    }
    if (def->getNumOperands() == 0 && !readsPoint(def)) {
      if (std::optional<APInt> known = model.eval(v, p))
        return known;
      PointSource source = pointSourceOf(def);
      if (allowParameters &&
          (source == PointSource::CTA || source == PointSource::Launch)) {
        // The CTA's id: 0; a launch dimension: the sample.
        usedParameters = true;
        return APInt(64, source == PointSource::CTA ? 0 : sample)
            .zextOrTrunc(width);
      }
    }
    return evalArith(def, width, [&](unsigned i) {
      return eval(def->getOperand(i), p, depth + 1);
    });
  }

  /// The value of `v` for the whole warp: the same at every active lane.
  std::optional<APInt> evalWarp(Value v) {
    if (!v || lanes == 0)
      return std::nullopt;
    unsigned first = llvm::countr_zero(lanes);
    std::optional<APInt> value = eval(v, pointOf(first));
    if (!value || !model.dependsOnPoint(v))
      return value;
    for (unsigned lane = first + 1; lane < 32; ++lane)
      if ((lanes >> lane) & 1) {
        std::optional<APInt> other = eval(v, pointOf(lane));
        if (!other || *other != *value)
          return std::nullopt;
      }
    return value;
  }
  std::optional<int64_t> evalWarpInt(Value v) {
    std::optional<APInt> value = evalWarp(v);
    if (!value || value->getBitWidth() > 64)
      return std::nullopt;
    return value->getBitWidth() == 1 ? value->getZExtValue()
                                     : value->getSExtValue();
  }
  /// The active lanes where the i1 `cond` holds, or none. A condition of
  /// the thread alone (not of the environment) is evaluated once per warp.
  std::optional<uint32_t> lanesWhere(Value cond) {
    if (model.dependsOnPoint(cond) && !dependsOnEnv(cond)) {
      auto key = std::make_pair(cond.getAsOpaquePointer(),
                                rank * perCTA + warp);
      auto it = laneMasks.find(key);
      if (it == laneMasks.end()) {
        uint32_t active = lanes;
        lanes = fullLanes();
        std::optional<uint32_t> mask = lanesAt(cond);
        lanes = active;
        it = laneMasks.try_emplace(key, mask).first;
      }
      if (!it->second)
        return std::nullopt;
      return *it->second & lanes;
    }
    return lanesAt(cond);
  }
  std::optional<uint32_t> lanesAt(Value cond) {
    if (!model.dependsOnPoint(cond)) {
      std::optional<APInt> value = evalWarp(cond);
      if (!value)
        return std::nullopt;
      return value->isZero() ? 0 : lanes;
    }
    uint32_t holds = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((lanes >> lane) & 1) {
        std::optional<APInt> value = eval(cond, pointOf(lane));
        if (!value)
          return std::nullopt;
        if (!value->isZero())
          holds |= uint32_t(1) << lane;
      }
    return holds;
  }
  void bind(Value v, std::optional<APInt> value) {
    ++epoch;
    if (value && intWidth(v.getType()) == value->getBitWidth())
      env[v] = *value;
    else
      env.erase(v);
  }

  /// Charges `n` ops at once (the same units and the same outcome as
  /// charging them one by one: past the budget the walk stops either way).
  bool chargeOps(uint64_t n) {
    work += n;
    if (work > ProtocolModel::kWorkBudget) {
      overBudget = true;
      return false;
    }
    return true;
  }

  const SharedFacts::BlockPlan &planOf(Block &block) {
    // Held by pointer: the walk of a nested block adds to the map.
    std::unique_ptr<SharedFacts::BlockPlan> &plan = shared.plans[&block];
    if (!plan) {
      plan = std::make_unique<SharedFacts::BlockPlan>();
      uint64_t inert = 0;
      for (Operation &op : block) {
        bool counted = op.getNumRegions() == 0 ? !isSyncLeaf(&op, cpAsync)
                                               : !withSync.contains(&op);
        if (counted) {
          ++inert;
          continue;
        }
        plan->ops.push_back({&op, inert});
        inert = 0;
      }
      plan->tail = inert;
    }
    return *plan;
  }

  bool walkBlock(Block &block) {
    // The ops that are neither events nor hold one are only counted.
    const SharedFacts::BlockPlan &plan = planOf(block);
    for (auto [op, before] : plan.ops)
      if (!chargeOps(before) || !walkOp(op))
        return false;
    return chargeOps(plan.tail);
  }

  bool walkOp(Operation *op) {
    current = op;
    if (!charge())
      return false;
    if (op->getNumRegions() == 0)
      return leaf(op);
    if (!withSync.contains(op))
      return true; // its results are never bound: unknown

    if (isIfOp(op) && !isIndexSwitch(op) && !isExecuteRegion(op))
      return walkIf(op);
    if (isForLoop(op))
      return walkFor(op);
    if (isWhileLoop(op))
      return walkWhile(op);
    if (isExecuteRegion(op) && op->getRegion(0).hasOneBlock())
      return walkBlock(op->getRegion(0).front());
    return fail(__LINE__);
  }

  SmallVector<std::optional<APInt>> yielded(Block &block,
                                            bool loop = false) {
    SaveParameters save(*this, loop);
    SmallVector<std::optional<APInt>> values;
    for (Value operand : block.getTerminator()->getOperands())
      values.push_back(evalWarp(operand));
    return values;
  }

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

  bool walkIf(Operation *op) {
    // A condition may read the parameters (a trip against a bound:
    // `j < n_blocks`), as a loop's bounds do.
    std::optional<uint32_t> thenLanes;
    {
      SaveParameters save(*this, true);
      thenLanes = lanesWhere(op->getOperand(0));
    }
    if (!thenLanes)
      return fail(__LINE__);
    uint32_t all = lanes;
    uint32_t parts[2] = {*thenLanes, all & ~*thenLanes};
    SmallVector<SmallVector<std::optional<APInt>>, 2> results;
    bool partialBefore = partialNamed;
    bool partialIn[2] = {false, false};
    for (unsigned i = 0; i < 2; ++i) {
      Region &region = op->getRegion(i);
      if (!parts[i] || region.empty())
        continue;
      lanes = parts[i];
      partialNamed = false;
      bool walked = walkBlock(region.front());
      partialIn[i] = partialNamed;
      if (walked)
        results.push_back(yielded(region.front()));
      lanes = all;
      if (!walked)
        return fail(__LINE__);
    }
    // A warp split between named barriers in both branches: its arrivals
    // per phase are not the warp's once.
    if (partialIn[0] && partialIn[1])
      return fail(__LINE__);
    partialNamed = partialBefore || partialIn[0] || partialIn[1];
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      std::optional<APInt> value;
      for (auto [j, branch] : llvm::enumerate(results)) {
        if (i >= branch.size() || !branch[i] || (j && value != branch[i])) {
          value = std::nullopt;
          break;
        }
        value = branch[i];
      }
      bind(result, value);
    }
    return true;
  }

  /// Records the trips of a loop whose bounds depend on a parameter; false
  /// where the instance takes more than the model samples.
  bool countTrips(Operation *loop, bool parameterBound, int64_t trips) {
    if (!parameterBound)
      return trips <= ProtocolModel::kMaxTrips;
    if (recordedLoops.insert(loop).second)
      instance->trips.push_back(trips);
    if (trips > ProtocolModel::kMaxSampledTrips) {
      skip = true;
      return fail(__LINE__);
    }
    return true;
  }

  bool walkFor(Operation *op) {
    SaveParameters save(*this, true);
    bool before = usedParameters;
    usedParameters = false;
    std::optional<int64_t> lb = evalWarpInt(op->getOperand(0));
    std::optional<int64_t> ub = evalWarpInt(op->getOperand(1));
    std::optional<int64_t> step = evalWarpInt(op->getOperand(2));
    bool parameterBound = usedParameters;
    usedParameters |= before;
    if (!lb || !ub || !step || *step <= 0)
      return fail(__LINE__);
    int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    if (!countTrips(op, parameterBound, trips))
      return fail(__LINE__);
    Block &body = op->getRegion(0).front();
    SmallVector<std::optional<APInt>> carried;
    for (Value init : op->getOperands().drop_front(3))
      carried.push_back(evalWarp(init));
    allowParameters = save.before;
    int64_t outer = trip;
    Value iv = body.getArgument(0);
    for (int64_t t = 0; t < trips; ++t) {
      trip = t;
      bind(iv, APInt(64, static_cast<uint64_t>(*lb + t * *step), true)
                   .sextOrTrunc(intWidth(iv.getType())));
      for (auto [arg, value] : llvm::zip(body.getArguments().drop_front(),
                                         carried))
        bind(arg, value);
      if (!walkBlock(body))
        return fail(__LINE__);
      carried = yielded(body, /*loop=*/true);
    }
    trip = outer;
    for (auto [result, value] : llvm::zip(op->getResults(), carried))
      bind(result, value);
    return true;
  }

  /// A spin loop on a test_wait / try_wait (`while (!test_wait(...))`,
  /// a nanosleep or other ops without events between the probes): the
  /// loop exits once the phase completed, so it is that wait.
  std::optional<bool> spinWait(Operation *op) {
    Value done = spinLoopExitValue(op);
    Operation *probe = done ? done.getDefiningOp() : nullptr;
    if (!probe || !isa<TestWaitOp, TryWaitOp>(probe))
      return std::nullopt;
    bool otherEvents = false;
    op->walk([&](Operation *inner) {
      otherEvents |= inner != probe && inner->getNumRegions() == 0 &&
                     isSyncLeaf(inner, cpAsync);
    });
    if (otherEvents)
      return std::nullopt;
    int64_t offset = isa<TestWaitOp>(probe)
                         ? cast<TestWaitOp>(probe).getPhaseOffset()
                         : cast<TryWaitOp>(probe).getPhaseOffset();
    return waitEvent(probe, cast<MBarrierWaitOpInterface>(probe).getPhase(),
                     offset);
  }

  bool walkWhile(Operation *op) {
    if (op->getNumRegions() != 2)
      return fail(__LINE__);
    if (std::optional<bool> walked = spinWait(op))
      return *walked || fail(__LINE__);
    Block &cond = op->getRegion(0).front(), &body = op->getRegion(1).front();
    SmallVector<std::optional<APInt>> carried;
    {
      SaveParameters save(*this, true);
      for (Value init : op->getOperands())
        carried.push_back(evalWarp(init));
    }
    int64_t outer = trip;
    bool parameterBound = false;
    for (int64_t t = 0;; ++t) {
      trip = t;
      for (auto [arg, value] : llvm::zip(cond.getArguments(), carried))
        bind(arg, value);
      if (!walkBlock(cond))
        return fail(__LINE__);
      Operation *condition = cond.getTerminator();
      if (condition->getNumOperands() == 0)
        return fail(__LINE__);
      bool before = usedParameters;
      usedParameters = false;
      SaveParameters save(*this, true);
      std::optional<int64_t> goOn = evalWarpInt(condition->getOperand(0));
      parameterBound |= usedParameters;
      usedParameters |= before;
      SmallVector<std::optional<APInt>> passed;
      for (Value operand : condition->getOperands().drop_front())
        passed.push_back(evalWarp(operand));
      allowParameters = save.before;
      if (!goOn)
        return fail(__LINE__);
      if (!*goOn) {
        trip = outer;
        for (auto [result, value] : llvm::zip(op->getResults(), passed))
          bind(result, value);
        return countTrips(op, parameterBound, t);
      }
      if (t >= (parameterBound ? ProtocolModel::kMaxSampledTrips
                               : ProtocolModel::kMaxTrips)) {
        skip = parameterBound;
        return fail(__LINE__);
      }
      for (auto [arg, value] : llvm::zip(body.getArguments(), passed))
        bind(arg, value);
      if (!walkBlock(body))
        return fail(__LINE__);
      carried = yielded(body, /*loop=*/true);
    }
  }

  /// Appends an event; an event costs four units of the budget (it is
  /// kept), so that the traces stay below a million events.
  bool push(SyncEvent event) {
    work += 3;
    if (!charge())
      return fail(__LINE__);
    event.trip = trip;
    trace->push_back(event);
    if (copyTrace)
      copyTrace->push_back({AsyncCopyEvent::Sync, event.op, lanes,
                            static_cast<int64_t>(trace->size() - 1)});
    return true;
  }

  /// cp.async.mbarrier.arrive: with `.noinc`, one arrival per lane on the
  /// barrier of its `mbarrier.ptr` address (the copies are taken to land);
  /// without, a net zero (no event).
  bool cpAsyncArrive(Operation *op, const CpAsyncArrive &arrive) {
    if (copyTrace)
      copyTrace->push_back({AsyncCopyEvent::MBarrierArrive, op, lanes});
    if (!arrive.noinc)
      return true;
    auto ptr = dyn_cast_or_null<PtrOp>(arrive.barrier.getDefiningOp());
    if (!ptr || isa<RemoteViewOp>(ptr.getBarriers().getDefiningOp()))
      return fail(__LINE__);
    std::map<int64_t, int64_t> amounts; // key -> arrivals
    SmallVector<int64_t> order;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!((lanes >> lane) & 1))
        continue;
      std::optional<int64_t> key = mbarrierKey(ptr, pointOf(lane), rank);
      if (!key)
        return fail(__LINE__);
      if (!amounts[*key]++)
        order.push_back(*key);
    }
    for (int64_t key : order)
      if (!push({SyncEvent::Arrive, op, key, 0, amounts[key], 0, false, -1}))
        return fail(__LINE__);
    return true;
  }

  /// The cp.async query's events (none for another op): copies and reads
  /// with each lane's byte offset in their allocation (dropped where an
  /// offset does not evaluate), commits and waits.
  std::optional<bool> asyncCopyEvent(Operation *op) {
    if (std::optional<CpAsyncCopy> copy = cpAsyncCopyOf(op))
      return place(op, AsyncCopyEvent::Copy, copy->dst, copy->bytes, lanes);
    if (isCpAsyncCommitGroup(op)) {
      copyTrace->push_back({AsyncCopyEvent::Commit, op, lanes});
      return true;
    }
    if (std::optional<int64_t> n = cpAsyncWaitGroup(op)) {
      copyTrace->push_back({AsyncCopyEvent::WaitGroup, op, lanes, *n});
      return true;
    }
    SharedRead read = sharedReadOf(op);
    if (read.address)
      return place(op, AsyncCopyEvent::Read, read.address, read.bytes,
                   lanes & read.lanes);
    return std::nullopt;
  }

  bool place(Operation *op, AsyncCopyEvent::Kind kind, Value ptr,
             int64_t bytes, uint32_t acting) {
    std::optional<Address> address = decomposeAddress(ptr);
    if (!address || !acting)
      return true;
    AsyncCopyEvent event{kind, op, acting};
    event.allocation = address->symbol ? address->symbol.getAsOpaquePointer()
                                       : address->base.getAsOpaquePointer();
    event.bytes = bytes;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!((acting >> lane) & 1))
        continue;
      int64_t offset = address->constant;
      for (auto [index, scale] : address->scaled) {
        std::optional<APInt> v = eval(index, pointOf(lane));
        if (!v || v->getBitWidth() > 64)
          return !overBudget || fail(__LINE__); // not placed: dropped
        offset += v->getSExtValue() * scale;
      }
      event.offset[lane] = offset;
    }
    work += 3;
    if (!charge())
      return fail(__LINE__);
    copyTrace->push_back(event);
    return true;
  }

  bool leaf(Operation *op) {
    if (isOpaqueCall(op))
      return fail(__LINE__);
    if (std::optional<NamedBarrierOpInfo> info = namedBarrierOpOf(op))
      return named(op, info->waits);
    bool arrives = isClusterArrive(op);
    if (arrives || isClusterWait(op)) {
      if (lanes != fullLanes())
        return fail(__LINE__);
      return push({arrives ? SyncEvent::Arrive : SyncEvent::Wait, op,
                   kClusterBarrierKey, 0, llvm::popcount(lanes), 0, arrives,
                   -1});
    }
    if (std::optional<CpAsyncArrive> arrive = cpAsyncMBarrierArriveOf(op))
      return cpAsyncArrive(op, *arrive);
    if (copyTrace)
      if (std::optional<bool> walked = asyncCopyEvent(op))
        return *walked;
    if (!isa<MBarrierDialect>(op->getDialect()))
      return true;
    if (isa<AllocOp, ViewOp, RemoteViewOp, PtrOp, FenceInitOp, FenceReleaseOp,
            ExpectTxOp, InvalOp, CpAsyncBulkTensorOp>(op))
      return true;
    if (auto init = dyn_cast<InitOp>(op))
      return initOp(init);
    // tcgen05.commit arrives once per executing thread when its MMAs are
    // done (PTX ISA, "tcgen05.commit"): like bulk copies, they are taken to
    // complete.
    if (isa<ArriveOp, ArriveExpectTxOp, Tcgen05CommitOp>(op))
      return arrive(op);
    if (auto wait = dyn_cast<WaitOp>(op))
      return waitOp(wait);
    return fail(__LINE__); // try_wait, test_wait, pipes, sequences
  }

  /// A named-barrier op; a warp arrives for its threads (as class 11
  /// counts), also where only some of its lanes execute the op (thread 0
  /// alone at a bar.sync: the barrier counts the warp). Lanes of one warp
  /// at named barriers in both branches of an scf.if are not followed.
  bool named(Operation *op, bool waits) {
    partialNamed |= lanes != fullLanes();
    std::optional<int64_t> id, count;
    if (std::optional<UpstreamNamedBarrier> up = upstreamNamedBarrierOf(op)) {
      id = up->id ? evalWarpInt(up->id) : std::optional<int64_t>(0);
      count = up->threads ? evalWarpInt(up->threads) : std::optional<int64_t>(0);
    } else {
      id = namedBarrierKeyAt(op, model, pointOf(0));
      count = namedBarrierCountAt(op, model, pointOf(0));
    }
    if (!id || !count || *id < 0 || *id >= kNamedPerCTA || *count < 0)
      return fail(__LINE__);
    int64_t key = rank * kNamedPerCTA + *id;
    int64_t amount = llvm::popcount(fullLanes());
    if (!push({SyncEvent::Arrive, op, key, *count, amount, 0, waits, -1}))
      return fail(__LINE__);
    return !waits || push({SyncEvent::Wait, op, key, *count, 0, 0, false, -1});
  }

  std::optional<int64_t> mbarrierKey(Operation *op, Point p, int64_t owner) {
    auto [known, fresh] = shared.barriers.try_emplace(op);
    if (fresh)
      known->second = barrierOf(op);
    const std::optional<BarrierKey> &key = known->second;
    if (!key || !key->root)
      return std::nullopt;
    std::optional<APInt> index;
    if (key->constIndex)
      index = APInt(64, static_cast<uint64_t>(*key->constIndex), true);
    else
      index = eval(key->index, p);
    if (!index || index->getBitWidth() > 64)
      return std::nullopt;
    auto [it, inserted] = keys.try_emplace(
        std::make_tuple(key->root.getAsOpaquePointer(), index->getSExtValue(),
                        owner),
        kMBarrierKeyBase + static_cast<int64_t>(keys.size()));
    return it->second;
  }

  /// Each active lane initializes the barrier of its index (threads 0-3
  /// each initializing one barrier of a group); lanes of the warp that
  /// name the same barrier make one init (one instruction).
  bool initOp(InitOp init) {
    std::map<int64_t, int64_t> counts; // key -> count
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!((lanes >> lane) & 1))
        continue;
      std::optional<int64_t> key = mbarrierKey(init, pointOf(lane), rank);
      std::optional<APInt> count = eval(init.getCount(), pointOf(lane));
      if (!key || !count || count->getBitWidth() > 64 ||
          count->getSExtValue() < 1 || instance->initCounts.count(*key))
        return fail(__LINE__);
      auto [it, fresh] = counts.try_emplace(*key, count->getSExtValue());
      if (!fresh && it->second != count->getSExtValue())
        return fail(__LINE__);
    }
    for (auto [key, count] : counts) {
      instance->initCounts[key] = count;
      instance->initOps[key] = init;
    }
    return true;
  }

  /// The CTAs that the arrival `op` at `p` reaches, as a mask.
  std::optional<uint64_t> targetsAt(Operation *op, Point p) {
    auto barrierOp = cast<MBarrierOpInterface>(op);
    if (!barrierOp.reachesAnotherCTA() || model.targetsOwnCTA(op))
      return uint64_t(1) << rank;
    if (!model.clusterDeclared())
      return std::nullopt;
    BarrierTarget target = barrierOp.getBarrierTarget();
    std::optional<int64_t> r;
    switch (target.kind) {
    case BarrierTarget::Kind::Local:
      return uint64_t(1) << rank;
    case BarrierTarget::Kind::RemoteView:
    case BarrierTarget::Kind::OnCta:
      if (target.constRank)
        r = *target.constRank;
      else if (target.rank)
        if (std::optional<APInt> value = eval(target.rank, p))
          r = value->getSExtValue();
      if (!r || *r < 0 || *r >= model.ranks())
        return std::nullopt;
      return uint64_t(1) << *r;
    case BarrierTarget::Kind::Multicast:
      if (std::optional<APInt> mask = eval(target.mask, p))
        return mask->getZExtValue() & ((uint64_t(1) << model.ranks()) - 1);
      return std::nullopt;
    }
    return std::nullopt;
  }

  bool arrive(Operation *op) {
    auto arrival = dyn_cast<MBarrierArrivalOpInterface>(op);
    Value countValue = arrival ? arrival.getArrivalCount() : Value();
    std::optional<int64_t> count =
        countValue ? evalWarpInt(countValue) : std::optional<int64_t>(1);
    if (!count || *count < 1)
      return fail(__LINE__);
    uint32_t acting = lanes;
    if (Value pred = cast<MBarrierOpInterface>(op).getBarrierPredicate()) {
      std::optional<uint32_t> holds = lanesWhere(pred);
      if (!holds)
        return fail(__LINE__);
      acting = *holds;
    }
    std::map<int64_t, int64_t> amounts; // key -> arrivals
    SmallVector<int64_t> order;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!((acting >> lane) & 1))
        continue;
      std::optional<uint64_t> targets = targetsAt(op, pointOf(lane));
      if (!targets)
        return fail(__LINE__);
      for (int64_t r = 0; r < model.ranks(); ++r) {
        if (!((*targets >> r) & 1))
          continue;
        std::optional<int64_t> key = mbarrierKey(op, pointOf(lane), r);
        if (!key)
          return fail(__LINE__);
        if (!amounts.count(*key))
          order.push_back(*key);
        amounts[*key] += *count;
      }
    }
    for (int64_t key : order)
      if (!push({SyncEvent::Arrive, op, key, 0, amounts[key], 0, false, -1}))
        return fail(__LINE__);
    return true;
  }

  bool waitOp(WaitOp wait) {
    return waitEvent(wait, wait.getPhase(), wait.getPhaseOffset());
  }

  /// A wait (an mbarrier.wait, or a spin loop on a test_wait / try_wait)
  /// for the phase of parity `phase ^ offset`.
  bool waitEvent(Operation *wait, Value phaseValue, int64_t offset) {
    unsigned first = llvm::countr_zero(lanes);
    std::optional<int64_t> key = mbarrierKey(wait, pointOf(first), rank);
    std::optional<int64_t> phase = evalWarpInt(phaseValue);
    if (!key || !phase)
      return fail(__LINE__);
    // Every active lane waits on the same barrier.
    for (unsigned lane = first + 1; lane < 32; ++lane)
      if (((lanes >> lane) & 1) && mbarrierKey(wait, pointOf(lane), rank) != key)
        return fail(__LINE__);
    int64_t parity = (*phase ^ offset) & 1;
    return push({SyncEvent::Wait, wait, *key, 0, 0, parity, false, -1});
  }

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
