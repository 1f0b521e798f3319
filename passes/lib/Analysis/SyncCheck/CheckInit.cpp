//===- CheckInit.cpp - barriers never initialized, inits out of order -----===//
//
// What goes wrong before a barrier's first phase (docs/checker.md, classes
// 8 and 1):
//
// - never initialized: a barrier of a group allocated here (mbarrier.alloc,
//   or mbarrier.view of a global, with every other view of that global)
//   that is used (arrive, wait, expect_tx, commit, a copy completing on it)
//   while the kernel has no mbarrier.init of it at all (a forgotten
//   prologue, or a pipe without mbarrier.pipe.init). Only for groups whose
//   every use is in sight: a group or memory that reaches a call, inline
//   PTX, a region-carried value or a pointer cast may be initialized out of
//   sight. An error where a use certainly executes, else a warning.
// - init not visible to the CTA: a use by threads that did not execute the
//   barrier's init, with no CTA barrier (bar.sync: nvvm.barrier0,
//   gpu.barrier, nvvm.barrier, a cluster barrier) in between. A forward
//   walk (FlowWalker) with, per barrier, the inits pending since the last
//   CTA barrier and the points that executed them: error where every path
//   has the init pending, warning where some path has. Anything else that
//   may synchronize the threads (an mbarrier wait, a call, bar.warp.sync)
//   ends the pending inits too.
// - init by several threads: an mbarrier.init that several threads of a
//   CTA execute for the same barrier (NVIDIA/Fuser#1552; upstream MLIR's
//   sm90 TMA tests): an init of a barrier that another thread already
//   initialized is undefined, and an arrival before the last init is lost.
//   A warning: in one warp the inits are one instruction, and the kernel
//   may work.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/FlowWalker.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {


/// How many points of `set` each CTA has, if the same for every CTA that
/// has any (else -1).
int64_t perCTA(const llvm::BitVector &set, SPMDModel &model) {
  int64_t common = 0;
  for (int64_t r = 0; r < model.ranks(); ++r) {
    int64_t n = 0;
    for (int64_t t = 0; t < model.threads(); ++t)
      n += set.test(model.bit({r, t}));
    if (n && common && n != common)
      return -1;
    if (n)
      common = n;
  }
  return common;
}

//===----------------------------------------------------------------------===//
// Never initialized
//===----------------------------------------------------------------------===//

/// Whether `op` of a structured kernel certainly executes whenever the
/// kernel runs: each region around it is entered (an scf.if branch that
/// some thread takes, the body of an scf.for that runs at least once, an
/// scf.while's condition), and an arrival's `if %pred` holds somewhere.
bool certainlyExecuted(Operation *op, FunctionOpInterface fn,
                       SPMDModel &model) {
  for (Operation *child = op, *parent = op->getParentOp(); parent != fn;
       child = parent, parent = parent->getParentOp()) {
    if (!parent)
      return false;
    Region *region = child->getParentRegion();
    if (isIfOp(parent)) {
      const ExecSet &set = model.regionSet(region);
      if (!set || !set->any())
        return false;
    } else if (isForLoop(parent)) {
      if (!runsAtLeastOnce(parent))
        return false;
    } else if (isWhileLoop(parent)) {
      if (region->getRegionNumber() != 0)
        return false;
    } else if (!isExecuteRegion(parent)) {
      return false;
    }
  }
  if (isa<ArriveOp, ArriveExpectTxOp, CpAsyncBulkTensorOp>(op)) {
    const ExecSet &points = actingPoints(op, model);
    return points && points->any();
  }
  return true;
}

/// A use of a barrier: the op to report at and the barrier.
struct Use {
  Operation *op;
  BarrierKey key;
};

/// The uses of the group `root`, if every one is in sight: barrier ops on
/// it or on its remote views, and its addresses (mbarrier.ptr) taken only by
/// bulk copies, which complete on the barrier. Anything else (a call, inline
/// PTX, an scf.yield, a pipe not lowered) may initialize it out of sight.
bool usesInSight(Value root, SmallVectorImpl<Use> &uses) {
  return forEachGroupUser(root, [&](Operation *user) {
    std::optional<BarrierKey> key = barrierOf(user);
    if (!key)
      return false;
    if (!isa<PtrOp>(user)) {
      uses.push_back({user, *key});
      return true;
    }
    for (Operation *copy : user->getUsers()) {
      if (!isBulkCopy(copy))
        return false;
      uses.push_back({copy, *key});
    }
    return true;
  });
}

/// The global that `ptr` points into (through GEPs and address space
/// casts), if any.
LLVM::AddressOfOp globalOf(Value ptr) {
  for (unsigned i = 0; i < 16 && ptr; ++i) {
    Operation *def = ptr.getDefiningOp();
    if (auto global = dyn_cast_or_null<LLVM::AddressOfOp>(def))
      return global;
    if (!isa_and_nonnull<LLVM::GEPOp, LLVM::AddrSpaceCastOp>(def))
      return {};
    ptr = def->getOperand(0);
  }
  return {};
}

/// The views of global `name` in `fn`, if its memory is in sight: reached
/// only through GEPs, casts, loads, stores (as the address), bulk copies
/// and mbarrier.view, in a function that calls nothing (a callee could
/// reach the global itself).
std::optional<SmallVector<Value>> viewsOfGlobal(FunctionOpInterface fn,
                                                StringRef name) {
  SmallVector<Value> pointers, views;
  bool calls = false;
  fn->walk([&](Operation *op) {
    if (isa<CallOpInterface>(op))
      calls = true;
    if (auto global = dyn_cast<LLVM::AddressOfOp>(op))
      if (global.getGlobalName() == name)
        pointers.push_back(global.getResult());
  });
  if (calls)
    return std::nullopt;
  while (!pointers.empty()) {
    Value ptr = pointers.pop_back_val();
    for (OpOperand &use : ptr.getUses()) {
      Operation *user = use.getOwner();
      if (isa<LLVM::GEPOp, LLVM::AddrSpaceCastOp>(user) &&
          use.getOperandNumber() == 0) {
        pointers.push_back(user->getResult(0));
      } else if (auto view = dyn_cast<ViewOp>(user)) {
        views.push_back(view.getResult());
      } else if (auto store = dyn_cast<LLVM::StoreOp>(user)) {
        if (store.getValue() == ptr)
          return std::nullopt; // the address escapes
      } else if (!isa<LLVM::LoadOp>(user) && !isBulkCopy(user)) {
        return std::nullopt;
      }
    }
  }
  return views;
}

/// One report for the uses of a never-initialized group (a pipe's ops each
/// compute their own index): at the first use that certainly executes (an
/// error), else at the first use (a warning); a note at the op that makes
/// the group.
void reportNeverInitialized(SmallVector<const Use *> &never, Operation *group,
                            bool kernel, FunctionOpInterface fn,
                            SPMDModel &model,
                            const llvm::DenseMap<Operation *, unsigned> &order,
                            Reporter &out) {
  llvm::sort(never, [&](const Use *a, const Use *b) {
    return order.lookup(a->op) < order.lookup(b->op);
  });
  const Use *const *sure = llvm::find_if(never, [&](const Use *use) {
    return kernel && certainlyExecuted(use->op, fn, model);
  });
  bool certain = sure != never.end();
  const Use *first = certain ? *sure : never.front();
  std::string which =
      first->key.constIndex
          ? "barrier " + std::to_string(*first->key.constIndex) + " of "
          : std::string("a barrier of ");
  if (certain)
    out.report(first->op, Severity::Error, kNeverInitSlot)
        << "uses " << which
        << "a group that is never initialized: the kernel has no "
           "mbarrier.init of it (nor an mbarrier.pipe.init of its pipe), "
           "and every mbarrier operation but init is undefined on an "
           "uninitialized barrier (initialize it from one thread and "
           "synchronize before any use: k.prologue() in lang)";
  else
    out.report(first->op, Severity::Warning, kNeverInitSlot)
        << "may use " << which
        << "a group that is never initialized: the kernel has no "
           "mbarrier.init of it (nor an mbarrier.pipe.init of its pipe), "
           "and every mbarrier operation but init is undefined on an "
           "uninitialized barrier";
  out.note(first->op, kNeverInitSlot, group->getLoc(),
           isa<AllocOp>(group) ? "the group is allocated here"
                               : "the group is a view of memory made here");
}

void checkNeverInitialized(FunctionOpInterface fn, SPMDModel &model,
                           Reporter &out) {
  // The groups to check, each with what aliases it: an alloc alone; the
  // views of one global together.
  SmallVector<std::pair<Operation *, SmallVector<Value>>> classes;
  llvm::StringSet<> globals;
  fn->walk([&](Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op))
      classes.push_back({op, {alloc.getResult()}});
    if (auto view = dyn_cast<ViewOp>(op))
      if (LLVM::AddressOfOp global = globalOf(view.getPtr()))
        if (globals.insert(global.getGlobalName()).second)
          if (auto views = viewsOfGlobal(fn, global.getGlobalName()))
            classes.push_back({op, *views});
  });
  if (classes.empty())
    return;
  // Program order, to report at the first use.
  llvm::DenseMap<Operation *, unsigned> order;
  fn->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order.try_emplace(op, order.size()); });

  bool kernel = isKernelFunction(fn) && isStructured(fn);
  // Views that no other view may overlap (SyncViews.cpp): an init through
  // one of them cannot reach another's barriers.
  SmallVector<Value> open = openRoots(fn);
  auto mayReach = [&](const BarrierKey &init, const BarrierKey &use) {
    if (init.root == use.root)
      return !init.differentFrom(use);
    return llvm::is_contained(open, init.root) ||
           llvm::is_contained(open, use.root);
  };
  for (auto &[made, roots] : classes) {
    SmallVector<Use> uses;
    if (!llvm::all_of(roots, [&](Value root) { return usesInSight(root, uses); }))
      continue;
    SmallVector<BarrierKey> inits;
    for (const Use &use : uses)
      if (isa<InitOp>(use.op))
        inits.push_back(use.key);
    // The uses of barriers that no init can reach, per group: each group of
    // a pool (a barrier group, a pipe, an ordered sequence: views of one
    // global at disjoint offsets) needs its own init.
    llvm::MapVector<Value, SmallVector<const Use *>> never;
    for (const Use &use : uses)
      if (!isa<InitOp>(use.op) &&
          llvm::none_of(inits, [&](const BarrierKey &init) {
            return mayReach(init, use.key);
          }))
        never[use.key.root].push_back(&use);
    for (auto &[root, groupUses] : never) {
      // The op that makes the group: its alloc, or its first view.
      Operation *group = root.getDefiningOp<AllocOp>();
      for (Operation *user : root.getUsers())
        if (isa<ViewOp>(user) &&
            (!group || order.lookup(user) < order.lookup(group)))
          group = user;
      reportNeverInitialized(groupUses, group ? group : made, kernel, fn,
                             model, order, out);
    }
  }
}

//===----------------------------------------------------------------------===//
// Init not visible to the CTA
//===----------------------------------------------------------------------===//

/// An init since the last CTA barrier: the barrier (a constant index, or an
/// SSA index), whether it is pending on every path and on some path, and the
/// points that executed it (over all paths).
struct Pending {
  Value root;
  std::optional<int64_t> index;
  Value indexValue; // when `index` is not a constant
  bool every = false, some = false;
  llvm::BitVector by;
  Operation *init = nullptr;

  bool sameBarrier(const Pending &o) const {
    return root == o.root && index == o.index &&
           (index || indexValue == o.indexValue);
  }
};

struct InitState {
  SmallVector<Pending> pending;

  Pending *find(const Pending &key) {
    for (Pending &p : pending)
      if (p.sameBarrier(key))
        return &p;
    return nullptr;
  }
  const Pending *find(const Pending &key) const {
    return const_cast<InitState *>(this)->find(key);
  }
  void set(Pending p) {
    if (Pending *old = find(p))
      *old = std::move(p);
    else
      pending.push_back(std::move(p));
  }

  bool operator==(const InitState &o) const {
    if (pending.size() != o.pending.size())
      return false;
    for (const Pending &p : pending) {
      const Pending *q = o.find(p);
      if (!q || q->every != p.every || q->some != p.some || q->by != p.by)
        return false;
    }
    return true;
  }

  /// Paths meet: pending on every path only if on both.
  void join(const InitState &o) {
    for (Pending &p : pending) {
      const Pending *q = o.find(p);
      p.every = p.every && q && q->every;
      if (q) {
        p.some |= q->some;
        p.by |= q->by;
      }
    }
    for (const Pending &q : o.pending)
      if (!find(q)) {
        Pending copy = q;
        copy.every = false;
        pending.push_back(std::move(copy));
      }
  }

  /// The branches of an scf.if run side by side (each thread takes one): an
  /// init pending on every path of a branch that some thread takes is
  /// pending after the scf.if.
  static InitState mergeBranches(const InitState &entry,
                                 ArrayRef<Branch<InitState>> branches) {
    InitState result;
    auto keys = [&](auto fn) {
      for (const Branch<InitState> &b : branches)
        for (const Pending &p : b.state.pending)
          fn(p);
    };
    keys([&](const Pending &p) {
      if (result.find(p))
        return;
      Pending merged = p;
      bool everyTaken = false, everyAll = true;
      merged.some = false;
      merged.by.reset();
      for (const Branch<InitState> &b : branches) {
        const Pending *q = b.state.find(p);
        bool every = q && q->every;
        everyTaken |= b.taken && every;
        everyAll &= every;
        if (q) {
          merged.some |= q->some;
          merged.by |= q->by;
        }
      }
      merged.every = everyTaken || everyAll;
      result.pending.push_back(std::move(merged));
    });
    (void)entry;
    return result;
  }
};

/// Ops after which the threads of the CTA (may) have synchronized: CTA and
/// cluster barriers, warp barriers, mbarrier waits (a hand-off through
/// another barrier), calls.
bool mayOrderThreads(Operation *op) {
  if (isThreadBarrier(op) || isClusterWait(op) ||
      isa<MBarrierWaitOpInterface, CallOpInterface>(op))
    return true;
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
    StringRef ptx = asmOp.getAsmString();
    return ptx.contains("bar.") || ptx.contains("barrier.") ||
           ptx.contains("mbarrier.try_wait") || ptx.contains("mbarrier.test_wait");
  }
  return false;
}

/// The points that may execute `op`: those that the scf.if conditions
/// around it, where they evaluate, let through (a condition that does not
/// evaluate lets every point through). The executing set where it is
/// known; a superset otherwise.
llvm::BitVector mayExecute(Operation *op, SPMDModel &model) {
  if (const ExecSet &set = model.execSet(op))
    return *set;
  llvm::BitVector set(model.ranks() * model.threads(), true);
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentOp()->getParentRegion()) {
    Operation *parent = region->getParentOp();
    if (!parent || isa<FunctionOpInterface>(parent))
      break;
    if (!isIfOp(parent))
      continue;
    bool thenRegion = region->getRegionNumber() == 0;
    for (unsigned b : llvm::BitVector(set).set_bits()) {
      std::optional<int64_t> cond =
          model.evalInt(parent->getOperand(0), model.point(b));
      if (cond && (*cond != 0) != thenRegion)
        set.reset(b);
    }
  }
  return set;
}

/// The constant values of `index` an init at it covers: the constant, or
/// each value of the induction variable of an scf.for with constant bounds
/// (a ring initialized in a loop); none where unknown.
std::optional<SmallVector<int64_t>> initIndices(const BarrierKey &key) {
  if (key.constIndex)
    return SmallVector<int64_t>{*key.constIndex};
  auto arg = dyn_cast<BlockArgument>(key.index);
  Operation *loop = arg ? arg.getOwner()->getParentOp() : nullptr;
  if (!loop || !isForLoop(loop) ||
      arg.getArgNumber() != 0 || loop->getNumOperands() < 3)
    return std::nullopt;
  std::optional<int64_t> lb = constantOf(loop->getOperand(0));
  std::optional<int64_t> ub = constantOf(loop->getOperand(1));
  std::optional<int64_t> step = constantOf(loop->getOperand(2));
  std::optional<int64_t> span = lb && ub ? llvm::checkedSub(*ub, *lb) : std::nullopt;
  if (!span || !step || *step < 1 || *span / *step > 64)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (int64_t k = 0; *span > 0 && k <= (*span - 1) / *step; ++k)
    values.push_back(*lb + k * *step); // below ub: no overflow
  return values;
}

void checkInitVisibleToCTA(FunctionOpInterface fn, SPMDModel &model,
                           Reporter &out) {
  if (!model.countable() || !isStructured(fn))
    return;
  struct Decision {
    bool error;
    Operation *init;
    llvm::BitVector by;
  };
  llvm::DenseMap<Operation *, Decision> decisions;
  auto visit = [&](Operation *op, InitState &state) {
    std::optional<BarrierKey> key = barrierOf(op);
    if (isa<InitOp>(op)) {
      // The initializers, or a superset of them where a condition does not
      // evaluate (a use by a thread outside it certainly is by another).
      std::optional<SmallVector<int64_t>> indices = initIndices(*key);
      Pending p{key->root, std::nullopt, key->index};
      p.every = p.some = true;
      p.init = op;
      p.by = mayExecute(op, model);
      if (!indices) {
        state.set(p);
        return;
      }
      for (int64_t i : *indices) {
        p.index = i;
        state.set(p);
      }
      return;
    }
    bool local = key && !isa<PtrOp, InvalOp>(op) && !isRemoteBarrierUse(op) &&
                 !isa<RemoteType>(op->getOperand(0).getType());
    if (local) {
      // The pending inits this use may be of: its constant index, its SSA
      // index, or each value of its range.
      SmallVector<const Pending *> candidates;
      bool complete = true;
      Pending probe{key->root, key->constIndex, key->index};
      if (const Pending *p = state.find(probe)) {
        candidates.push_back(p);
      } else if (!key->constIndex && key->range &&
                 key->range->second - key->range->first <= 64) {
        for (int64_t i = key->range->first; i < key->range->second; ++i) {
          probe.index = i;
          const Pending *p = state.find(probe);
          if (p)
            candidates.push_back(p);
          else
            complete = false;
        }
      } else {
        complete = false;
      }
      const ExecSet &users = actingPoints(op, model);
      // Users that did not initialize it; an error needs one in a warp with
      // no initializer (within the initializer's own warp the race is one
      // the memory model has but current hardware does not show).
      auto others = [&](const Pending *p) {
        llvm::BitVector rest = *users;
        rest.reset(p->by);
        return rest;
      };
      auto otherWarp = [&](const Pending *p) {
        for (unsigned b : others(p).set_bits()) {
          Point u = model.point(b);
          int64_t warp = u.tid / kWarpSize;
          bool initializer = false;
          for (int64_t t = warp * kWarpSize;
               t < std::min<int64_t>(model.threads(), (warp + 1) * kWarpSize); ++t)
            initializer |= p->by.test(model.bit({u.rank, t}));
          if (!initializer)
            return true;
        }
        return false;
      };
      bool error = false, warning = false;
      const Pending *shown = nullptr;
      if (users && users->any() && !candidates.empty()) {
        error = complete && llvm::all_of(candidates, [&](const Pending *p) {
                  return p->every && otherWarp(p);
                });
        for (const Pending *p : candidates)
          if (p->some && others(p).any()) {
            warning = true;
            shown = shown ? shown : p;
          }
      }
      // Decided by the last walk (a loop's body is walked twice).
      if ((error || warning) && shown)
        decisions[op] = {error, shown->init, shown->by};
      else
        decisions.erase(op);
    }
    if (mayOrderThreads(op))
      state.pending.clear();
  };
  InitState state;
  auto walker = makeWalker<InitState>(model, visit);
  walker.walkRegion(fn.getFunctionBody(), state);

  // One report per init, at its first racing use in program order (the
  // later ones repeat it), an error before a warning.
  llvm::DenseMap<Operation *, unsigned> order;
  fn->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order.try_emplace(op, order.size()); });
  auto rank = [&](Operation *use) {
    return std::make_pair(!decisions.find(use)->second.error, order.lookup(use));
  };
  llvm::MapVector<Operation *, Operation *> firstUse; // init -> use
  fn->walk<WalkOrder::PreOrder>([&](Operation *use) {
    auto decision = decisions.find(use);
    if (decision == decisions.end())
      return;
    auto [it, inserted] = firstUse.try_emplace(decision->second.init, use);
    if (!inserted && rank(use) < rank(it->second))
      it->second = use;
  });
  for (auto &[init, use] : firstUse) {
    const Decision &decision = decisions.find(use)->second;
    if (decision.error)
      out.report(use, Severity::Error, kInitRaceSlot)
          << "uses a barrier before its mbarrier.init is visible to these "
             "threads: other threads initialized it, and no CTA barrier "
             "(nvvm.barrier0, gpu.barrier, or a cluster barrier) lies "
             "between the init and this use, so it may reach the barrier "
             "before it is initialized";
    else
      out.report(use, Severity::Warning, kInitRaceSlot)
          << "may use a barrier before its mbarrier.init is visible to "
             "these threads: on some path other threads initialized it "
             "with no CTA barrier (nvvm.barrier0, gpu.barrier, or a "
             "cluster barrier) between the init and this use";
    int64_t n = perCTA(decision.by, model);
    std::string text = "the init, by ";
    text += n > 0 ? std::to_string(n) + " thread(s) of each CTA"
                  : std::string("other threads");
    out.note(use, kInitRaceSlot, init->getLoc(), text);
  }
}

//===----------------------------------------------------------------------===//
// Init by several threads
//===----------------------------------------------------------------------===//

void checkInitBySeveralThreads(FunctionOpInterface fn, SPMDModel &model,
                               Reporter &out) {
  if (!model.countable())
    return;
  fn->walk([&](InitOp init) {
    const ExecSet &set = model.execSet(init);
    if (!set)
      return;
    // Per CTA, whether two of its threads initialize the same barrier.
    unsigned work = 0;
    bool uniform = getConstantInt(init.getIndex()).has_value() ||
                   uniformInCTA(init.getIndex(), &work);
    // The most threads of one CTA that initialize one barrier.
    int64_t most = 0;
    for (int64_t r = 0; r < model.ranks(); ++r) {
      llvm::DenseMap<int64_t, int64_t> byIndex;
      for (int64_t t = 0; t < model.threads(); ++t) {
        if (!set->test(model.bit({r, t})))
          continue;
        std::optional<int64_t> i =
            uniform ? 0 : model.evalInt(init.getIndex(), {r, t});
        if (!i)
          return; // unknown, and perhaps one barrier per thread
        most = std::max(most, ++byIndex[*i]);
      }
    }
    if (most < 2)
      return;
    out.report(init, Severity::Warning, kSeveralInitSlot)
        << "is executed by " << most
        << " threads of a CTA for the same barrier: an mbarrier.init of a "
           "barrier that another thread already initialized is undefined, "
           "and an arrival made before another thread's init is lost "
           "(NVIDIA/Fuser#1552); initialize from one thread (tid == 0, or "
           "elect.sync in one warp) and synchronize the CTA before any use";
  });
}

} // namespace

void checksync::checkInit(FunctionOpInterface fn, SPMDModel &model,
                          Reporter &out) {
  checkNeverInitialized(fn, model, out);
  checkInitVisibleToCTA(fn, model, out);
  checkInitBySeveralThreads(fn, model, out);
}
