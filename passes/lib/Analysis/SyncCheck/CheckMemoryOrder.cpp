//===- CheckMemoryOrder.cpp - cross-CTA memory order (class 7) ------------===//
//
// A cross-CTA hand-off synchronizes only if the arrival's release and the
// wait's acquire are morally strong with each other: both at cluster scope
// (docs/design.md, "Memory order"). Warnings, since the analysis cannot see
// whether an arrival publishes anything:
//
// - a wait with an explicit `scope = cta` on a barrier that other CTAs
//   arrive on (a remote view of its group, `on %cta`, a multicast commit or
//   copy exists in the function);
// - a cluster-form arrival with `scope = cta` executed by threads that
//   stored to memory since their last cluster barrier: the arrival cannot
//   publish those stores (with nothing to publish it is a fine rendezvous);
// - a `relaxed` cluster-form arrival executed by threads that stored to
//   memory since their last fence (fence.acq_rel / release at cluster scope
//   or wider, mbarrier.fence_release; `fence_release shared_cta` covers only
//   stores to the CTA's own shared memory): nothing orders the stores
//   before the arrival. Tracked per
//   thread: the (rank, thread) points that certainly stored and did not
//   fence (or pass a cluster barrier) since.
//
// Class 19, the proxies (PTX ISA, "Proxies"): a generic-proxy store to
// shared memory that an async-proxy op reads (a wgmma's descriptor, a bulk
// store's source: the same global), handed to the reader by an mbarrier
// arrival with no `fence.proxy.async` between the store and the arrival on
// the way there: the barrier's release/acquire orders the generic proxy
// only. Where no arrival comes first: the first bulk store from the global
// after the store in program order (out of the scf.if, execute_region or
// loop around it), past thread barriers only (bar.sync, bar.arrive,
// bar.warp.sync, named barriers: they too order the generic proxy only),
// with no fence, mbarrier op, cluster barrier, call or inline PTX before
// it, that reads the written bytes (CUTLASS's epilogue without
// fence_view_async_shared() before its EpilogueBarrier sync). A warning
// (the stale read shows in some launches only).
//
//===----------------------------------------------------------------------===//
#include "NamedBarriers.h"
#include "mbarrier/Analysis/SyncCheck/FlowWalker.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// `mbarrier.fence_release shared_cta`: orders only the thread's accesses
/// to its own CTA's shared memory.
bool isSharedCTAReleaseFence(Operation *op) {
  auto fence = dyn_cast<FenceReleaseOp>(op);
  return fence && fence.getSharedCta();
}

/// A fence that makes the thread's earlier stores visible at cluster scope
/// to a later relaxed arrival.
bool isReleaseFence(Operation *op) {
  if (auto fence = dyn_cast<FenceReleaseOp>(op))
    return !fence.getSharedCta();
  return isUpstreamReleaseFence(op);
}

/// Per (rank, thread) point, on every path: `dirty`, it stored and has not
/// fenced (release, cluster scope) since; `unsynced`, it stored and has not
/// passed a cluster barrier since (a fence does not help a .cta arrival).
struct StoreState {
  // `dirty` for stores to anything but the CTA's own shared memory,
  // `dirtyShared` for those (a shared_cta release fence orders only them).
  llvm::BitVector dirty, dirtyShared, unsynced;

  bool operator==(const StoreState &o) const {
    return dirty == o.dirty && dirtyShared == o.dirtyShared &&
           unsynced == o.unsynced;
  }
  void join(const StoreState &o) {
    dirty &= o.dirty;
    dirtyShared &= o.dirtyShared;
    unsynced &= o.unsynced;
  }
  static StoreState mergeBranches(const StoreState &entry,
                                  ArrayRef<Branch<StoreState>> branches) {
    // Each thread takes one branch: where the sets are known, a point's
    // state is that of its branch; otherwise, what every branch agrees on.
    bool known = llvm::all_of(branches, [](auto &b) { return b.set.has_value(); });
    StoreState result = entry;
    if (known) {
      result.dirty.reset();
      result.dirtyShared.reset();
      result.unsynced.reset();
      for (const Branch<StoreState> &b : branches) {
        auto take = [&](const llvm::BitVector &from, llvm::BitVector &to) {
          llvm::BitVector mine = from;
          mine &= *b.set;
          to |= mine;
        };
        take(b.state.dirty, result.dirty);
        take(b.state.dirtyShared, result.dirtyShared);
        take(b.state.unsynced, result.unsynced);
      }
      return result;
    }
    result = branches.front().state;
    for (const Branch<StoreState> &b : branches)
      result.join(b.state);
    return result;
  }
};

/// Groups other CTAs arrive on (a remote view of the group, `on %cta`, a
/// multicast commit or bulk copy), unless the target is the CTA itself.
SmallVector<Value> remotelyArrived(FunctionOpInterface fn, SPMDModel &model) {
  SmallVector<Value> groups;
  fn->walk([&](Operation *op) {
    if (auto view = dyn_cast<RemoteViewOp>(op)) {
      if (!model.targetsOwnCTA(op))
        groups.push_back(rootOf(view.getBarriers()));
    } else if (isRemoteUse(model, op)) {
      if (std::optional<BarrierKey> key = barrierOf(op))
        groups.push_back(key->root);
    }
    for (Value operand : op->getOperands())
      if (auto ptr = operand.getDefiningOp<PtrOp>())
        if (isRemoteUse(model, op))
          groups.push_back(rootOf(ptr.getBarriers()));
  });
  return groups;
}

/// The globals that `v` is computed from (a wgmma descriptor from
/// `ptrtoint` of an address, a pointer), through at most 64 ops.
void allocationsOf(Value v, SmallVectorImpl<Attribute> &out, unsigned *work) {
  if (++*work > 64)
    return;
  if (Attribute symbol = allocationOf(v)) {
    if (!llvm::is_contained(out, symbol))
      out.push_back(symbol);
    return;
  }
  if (Operation *def = v.getDefiningOp())
    for (Value operand : def->getOperands())
      allocationsOf(operand, out, work);
}

/// Whether `op` may order the thread's accesses in a way the proxy scan
/// does not follow: a thread or cluster barrier, a call, inline PTX.
bool mayOrderOtherwise(Operation *op) {
  return isThreadBarrier(op) || isClusterArrive(op) || isClusterWait(op) ||
         isOpaqueCall(op) || !inlinePTX(op).empty();
}

/// The first mbarrier arrival that follows `store` in program order (its
/// block, then the blocks of the scf.if / execute_region around it) with
/// no `fence.proxy.async` before it; null where a fence comes first, or
/// something the scan does not follow (a loop's end, a barrier, a call, a
/// region that fences, arrives or synchronizes).
Operation *arrivalBeforeProxyFence(Operation *store, Operation *fn) {
  Operation *op = store;
  while (true) {
    Operation *next = op->getNextNode();
    if (!next) {
      Operation *parent = op->getParentOp();
      if (parent == fn || !(isIfOp(parent) || isExecuteRegion(parent)))
        return nullptr;
      op = parent;
      continue;
    }
    op = next;
    if (isAsyncProxySharedFence(op) || mayOrderOtherwise(op))
      return nullptr;
    if (isa<ArriveOp, ArriveExpectTxOp>(op))
      return op;
    if (op->getNumRegions() == 0)
      continue;
    bool opaque = false;
    op->walk([&](Operation *inner) {
      if (isAsyncProxySharedFence(inner) || mayOrderOtherwise(inner) ||
          isa<MBarrierArrivalOpInterface>(inner))
        opaque = true;
    });
    if (opaque)
      return nullptr;
  }
}

/// Whether `op` is a bulk store from the global `symbol` (a wgmma reads
/// through a descriptor whose bytes the scan does not compare).
bool bulkStoreFrom(Operation *op, Attribute symbol) {
  Value source = bulkStoreSource(op);
  return source && allocationOf(source) == symbol;
}

/// Whether the scan for a direct read stops at `op`: a fence.proxy.async,
/// an mbarrier op (the hand-off rule's), or something that may fence
/// otherwise (a cluster barrier, a call, inline PTX). Thread barriers
/// (bar.sync, bar.arrive, bar.warp.sync, named barriers) do not stop it:
/// they order the generic proxy only.
bool stopsDirectScan(Operation *op) {
  if (isAsyncProxySharedFence(op) || isClusterArrive(op) ||
      isClusterWait(op) || isOpaqueCall(op) || !inlinePTX(op).empty())
    return true;
  return op->getDialect() && op->getDialect()->getNamespace() == "mbarrier" &&
         !namedBarrierOpOf(op) && !isa<AllocOp, ViewOp, RemoteViewOp, PtrOp>(op);
}

/// The first bulk store from `symbol` after `store` in program order (its
/// block, then after the scf.if / execute_region / loop around it: a
/// loop's last trip) with no op between them that stopsDirectScan; null
/// where such an op comes first. `barrier`: the first thread barrier on
/// the way, or null.
Operation *readBeforeProxyFence(Operation *store, Attribute symbol,
                                Operation *fn, Operation *&barrier) {
  Operation *op = store;
  while (true) {
    Operation *next = op->getNextNode();
    if (!next) {
      Operation *parent = op->getParentOp();
      if (parent == fn ||
          !(isIfOp(parent) || isExecuteRegion(parent) || isLoop(parent)))
        return nullptr;
      op = parent;
      continue;
    }
    op = next;
    Operation *found = nullptr;
    bool stop = false;
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (stopsDirectScan(inner)) {
        stop = true;
        return WalkResult::interrupt();
      }
      if (bulkStoreFrom(inner, symbol)) {
        found = inner;
        return WalkResult::interrupt();
      }
      if (!barrier && (isThreadBarrier(inner) || namedBarrierOpOf(inner)))
        barrier = inner;
      return WalkResult::advance();
    });
    if (stop)
      return nullptr;
    if (found)
      return found;
  }
}

/// An address as its allocation plus a constant and a sum of SSA values
/// times constants: through the GEP indices, integer casts that keep the
/// value, additions, and multiplications by a constant.
struct LinearAddress {
  Address allocation;
  int64_t constant = 0;
  llvm::MapVector<Value, int64_t> terms;

  void add(Value v, int64_t scale, unsigned depth = 0) {
    if (std::optional<int64_t> c = constantOf(v)) {
      constant += *c * scale;
      return;
    }
    Operation *def = v.getDefiningOp();
    if (def && depth < 16) {
      if (isIntegerCast(def) && !isIntegerTrunc(def))
        return add(def->getOperand(0), scale, depth + 1);
      if (isIntegerAdd(def)) {
        add(def->getOperand(0), scale, depth + 1);
        return add(def->getOperand(1), scale, depth + 1);
      }
      if (isIntegerMul(def))
        for (unsigned i = 0; i < 2; ++i)
          if (std::optional<int64_t> c = constantOf(def->getOperand(i)))
            return add(def->getOperand(1 - i), scale * *c, depth + 1);
    }
    terms[v] += scale;
  }
};

std::optional<LinearAddress> linearAddressOf(Value ptr) {
  std::optional<Address> address = decomposeAddress(ptr);
  if (!address)
    return std::nullopt;
  LinearAddress linear{*address, address->constant, {}};
  for (auto [index, scale] : address->scaled)
    linear.add(index, scale);
  return linear;
}

/// Whether the generic-proxy `store` writes into the first bytes that the
/// bulk store `reader` reads (16, the smallest box, or all of a plain bulk
/// store of a constant size) at some pair of points that run them: a term
/// of both addresses with the same factor cancels where its value is the
/// same at every point (uniform), the others are evaluated at the points.
/// False where it does not, or where that cannot be decided.
bool writesIntoSource(Operation *store, Operation *reader, SPMDModel &model) {
  MemoryWrite write = memoryWriteOf(store);
  if (!write.address || !model.countable())
    return false;
  std::optional<LinearAddress> to = linearAddressOf(write.address);
  std::optional<LinearAddress> from = linearAddressOf(bulkStoreSource(reader));
  const ExecSet &writers = actingPoints(store, model);
  const ExecSet &readers = actingPoints(reader, model);
  if (!to || !from || !writers || !readers ||
      !to->allocation.sameAllocation(from->allocation))
    return false;
  int64_t bytes = 16;
  if (Value size = bulkStoreSize(reader)) {
    std::optional<int64_t> n = constantOf(size);
    if (!n)
      return false;
    bytes = *n;
  }
  // The terms left after the cancellation, with their factors.
  SmallVector<std::pair<Value, int64_t>> written, read;
  for (auto [v, factor] : to->terms) {
    auto it = from->terms.find(v);
    if (it != from->terms.end() && it->second == factor && model.uniform(v))
      continue;
    written.push_back({v, factor});
  }
  for (auto [v, factor] : from->terms) {
    auto it = to->terms.find(v);
    if (it != to->terms.end() && it->second == factor && model.uniform(v))
      continue;
    read.push_back({v, factor});
  }
  auto offsets = [&](ArrayRef<std::pair<Value, int64_t>> terms,
                     int64_t constant, const llvm::BitVector &set)
      -> std::optional<SmallVector<std::pair<Point, int64_t>>> {
    SmallVector<std::pair<Point, int64_t>> out;
    for (unsigned b : set.set_bits()) {
      Point p = model.point(b);
      int64_t offset = constant;
      for (auto [v, factor] : terms) {
        std::optional<int64_t> value = model.evalInt(v, p);
        if (!value)
          return std::nullopt;
        offset += *value * factor;
      }
      out.push_back({p, offset});
    }
    return out;
  };
  auto writes = offsets(written, to->constant, *writers);
  auto starts = offsets(read, from->constant, *readers);
  if (!writes || !starts)
    return false;
  for (auto [p, w] : *writes)
    for (auto [q, start] : *starts)
      if (p.rank == q.rank && w < start + bytes && w + write.bytes > start)
        return true;
  return false;
}

/// Class 19 (see the file comment).
void checkProxyFences(FunctionOpInterface fn, SPMDModel &model,
                      Reporter &out) {
  // The async-proxy readers of each global, and the waits in program order.
  SmallVector<std::pair<Attribute, Operation *>> readers;
  llvm::DenseMap<Operation *, unsigned> order;
  SmallVector<Operation *> waits;
  fn->walk<WalkOrder::PreOrder>([&](Operation *op) {
    order.try_emplace(op, order.size());
    if (isa<MBarrierWaitOpInterface>(op))
      waits.push_back(op);
    for (Value read : asyncProxySharedReads(op)) {
      SmallVector<Attribute> symbols;
      unsigned work = 0;
      allocationsOf(read, symbols, &work);
      for (Attribute symbol : symbols)
        readers.push_back({symbol, op});
    }
  });
  if (readers.empty())
    return;
  fn->walk([&](Operation *op) {
    Value address = isStore(op) ? memoryWriteOf(op).address : Value();
    if (!address || isRemoteMemoryAccess(op))
      return;
    Attribute symbol = allocationOf(address);
    if (!symbol || llvm::none_of(readers, [&](const auto &reader) {
          return reader.first == symbol;
        }))
      return;
    // Handed to the reader by an arrival whose group the reader waits on.
    if (Operation *arrival = arrivalBeforeProxyFence(op, fn)) {
      Value group = barrierOf(arrival)->root;
      for (auto &[readSymbol, reader] : readers) {
        bool handedOff =
            readSymbol == symbol &&
            llvm::any_of(waits, [&](Operation *wait) {
              return barrierOf(wait)->root == group &&
                     order.lookup(wait) < order.lookup(reader);
            });
        if (!handedOff)
          continue;
        out.report(op, Severity::Warning, kProxyFenceSlot)
            << "stores to shared memory (" << symbol
            << ") through the generic proxy, which " << reader->getName()
            << " reads through the async proxy, and the arrival that hands "
               "it to the reader follows with no fence.proxy.async in "
               "between: the barrier's release and acquire order the "
               "generic proxy only, so the reader may see stale data (put "
               "fence.proxy.async.shared::cta, CUTLASS's "
               "fence_view_async_shared(), after the stores and before the "
               "arrival)";
        out.note(op, kProxyFenceSlot, arrival->getLoc(), "handed off here");
        out.note(op, kProxyFenceSlot, reader->getLoc(),
                 "read through the async proxy here");
        return;
      }
      return;
    }
    // Read by a bulk store after it in program order, past thread barriers
    // at most: the report is at the reader (one per reader).
    Operation *barrier = nullptr;
    Operation *reader = readBeforeProxyFence(op, symbol, fn, barrier);
    if (!reader || !writesIntoSource(op, reader, model))
      return;
    auto diag = out.report(reader, Severity::Warning, kProxyFenceSlot);
    diag << "reads shared memory (" << symbol
         << ") through the async proxy that a store through the generic "
            "proxy wrote before it";
    if (barrier)
      diag << ", past a thread barrier (bar.sync, a named barrier), with no "
              "fence.proxy.async in between: the barrier orders the generic "
              "proxy only";
    else
      diag << " with no fence.proxy.async in between: program order does "
              "not order the proxies";
    diag << ", so the read may see stale data (put "
            "fence.proxy.async.shared::cta, CUTLASS's "
            "fence_view_async_shared(), after the stores";
    if (barrier)
      diag << " and before the barrier)";
    else
      diag << " and before the read)";
    out.note(reader, kProxyFenceSlot, op->getLoc(),
             "the generic-proxy store");
    if (barrier)
      out.note(reader, kProxyFenceSlot, barrier->getLoc(),
               "the thread barrier");
  });
}

} // namespace

void checksync::checkMemoryOrder(FunctionOpInterface fn, SPMDModel &model,
                                 Reporter &out) {
  SmallVector<Value> remote = remotelyArrived(fn, model);

  fn->walk([&](Operation *op) {
    if (isa<MBarrierWaitOpInterface>(op)) {
      std::optional<Scope> scope;
      if (auto w = dyn_cast<WaitOp>(op))
        scope = w.getScope();
      else if (auto w = dyn_cast<TryWaitOp>(op))
        scope = w.getScope();
      else
        scope = cast<TestWaitOp>(op).getScope();
      if (scope == Scope::cta &&
          llvm::is_contained(remote, barrierOf(op)->root))
        out.report(op, Severity::Warning, kCTAScopeWaitSlot)
            << "waits with scope cta on a barrier that other CTAs arrive "
               "on: a .cta acquire is not morally strong with their "
               ".release.cluster arrivals, so the data they wrote before "
               "arriving is not guaranteed visible after the wait (use "
               "scope cluster, the default in a cluster kernel)";
    }
  });

  if (!isStructured(fn))
    return;
  checkProxyFences(fn, model, out);
  // Relaxed remote arrivals after stores with no fence, per thread. Without
  // a known block size the whole CTA is one point (every path must store).
  size_t points = model.countable() ? model.ranks() * model.threads() : 1;
  auto setOf = [&](Operation *op) -> ExecSet {
    if (!model.countable())
      return llvm::BitVector(1, true);
    return model.execSet(op);
  };
  // A release by the threads of `set` (all threads where it is unknown)
  // publishes their stores: clear them from each of `tracked`.
  auto release = [](const ExecSet &set,
                    std::initializer_list<llvm::BitVector *> tracked) {
    llvm::BitVector keep;
    if (set) {
      keep = *set;
      keep.flip();
    }
    for (llvm::BitVector *bits : tracked) {
      if (set)
        *bits &= keep;
      else
        bits->reset();
    }
  };
  auto visit = [&](Operation *op, StoreState &state) {
    if (isStore(op)) {
      ExecSet set = setOf(op);
      if (set) {
        (isLocalSharedStore(op) ? state.dirtyShared : state.dirty) |= *set;
        state.unsynced |= *set;
      }
      return;
    }
    if (isSharedCTAReleaseFence(op)) {
      release(setOf(op), {&state.dirtyShared});
      return;
    }
    bool relaxedBarrier = false;
    if (isClusterArrive(op, &relaxedBarrier) && !relaxedBarrier) {
      // barrier.cluster.arrive is a release: what the thread stored before
      // is visible to every CTA after the cluster wait.
      release(setOf(op),
              {&state.dirty, &state.dirtyShared, &state.unsynced});
      return;
    }
    if (isReleaseFence(op)) {
      release(setOf(op), {&state.dirty, &state.dirtyShared});
      return;
    }
    if (isOpaqueCall(op)) {
      // It may fence or be a cluster barrier: what was stored before is
      // no longer certainly unpublished.
      release(setOf(op), {&state.dirty, &state.dirtyShared, &state.unsynced});
      return;
    }
    auto weakRemote = [&](auto arrive) {
      if (!isRemoteUse(model, op))
        return;
      ExecSet set = setOf(op);
      if (arrive.getEffectiveScope() == Scope::cta) {
        if (set && set->anyCommon(state.unsynced))
          out.report(op, Severity::Warning, kCTAScopeArrivalSlot)
              << "arrives on another CTA's barrier with scope cta after "
                 "stores: a .cta release is not morally strong with the "
                 "owner's wait, so it does not publish them (use scope "
                 "cluster, the default of the cluster form)";
        else
          out.clear(op, kCTAScopeArrivalSlot);
        return;
      }
      if (arrive.getEffectiveSem() != Semantics::relaxed)
        return;
      if (set && (set->anyCommon(state.dirty) ||
                  set->anyCommon(state.dirtyShared)))
        out.report(op, Severity::Warning, kRelaxedArrivalSlot)
            << "is a relaxed arrival on another CTA's barrier after stores "
               "with no release fence in between: nothing orders those "
               "stores before the arrival, so the waiting CTA may not see "
               "them (put a fence.acq_rel.cluster between the stores and "
               "the arrival, or arrive with sem release)";
      else
        out.clear(op, kRelaxedArrivalSlot);
    };
    if (auto arrive = dyn_cast<MBarrierArrivalOpInterface>(op))
      weakRemote(arrive);
  };
  StoreState state{llvm::BitVector(points, false),
                   llvm::BitVector(points, false),
                   llvm::BitVector(points, false)};
  auto walker = makeWalker<StoreState>(model, visit);
  walker.walkRegion(fn.getFunctionBody(), state);
}
