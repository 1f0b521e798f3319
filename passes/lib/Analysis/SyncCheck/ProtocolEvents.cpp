//===- ProtocolEvents.cpp - the protocol model's events -------------------===//
//
// The events an instance records per warp (ProtocolInstance.h): mbarrier
// init / arrive / expect_tx / wait, named-barrier syncs and arrivals, cluster
// barriers, cp.async copies, commits and waits, each with its barrier and
// its CTA targets.
//
//===----------------------------------------------------------------------===//
#define DEBUG_TYPE "mbarrier-protocol"
#include "ProtocolInstance.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using namespace mlir::mbarrier::checksync::protocol;

bool InstanceBuilder::push(SyncEvent event) {
  work += 3;
  if (!charge())
    return fail(__LINE__);
  // After a cluster barrier of some lanes, an event of the others: they
  // would not wait for those lanes (clusterBarrier()).
  if (clusterLanes && (lanes & ~clusterLanes) &&
      event.key != kClusterBarrierKey)
    return fail(__LINE__);
  event.trip = trip;
  trace->push_back(event);
  if (copyTrace)
    copyTrace->push_back({AsyncCopyEvent::Sync, event.op, lanes,
                          static_cast<int64_t>(trace->size() - 1)});
  return true;
}

bool InstanceBuilder::cpAsyncArrive(Operation *op,
                                    const CpAsyncArrive &arrive) {
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

std::optional<bool> InstanceBuilder::asyncCopyEvent(Operation *op) {
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

bool InstanceBuilder::place(Operation *op, AsyncCopyEvent::Kind kind, Value ptr,
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

bool InstanceBuilder::leaf(Operation *op) {
  if (isOpaqueCall(op))
    return fail(__LINE__);
  if (std::optional<NamedBarrierOpInfo> info = namedBarrierOpOf(op))
    return named(op, info->waits);
  bool arrives = isClusterArrive(op);
  if (arrives || isClusterWait(op))
    return clusterBarrier(op, arrives);
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

bool InstanceBuilder::clusterBarrier(Operation *op, bool arrives) {
  // By some lanes of the warp (a role branch: one lane's cluster arrive and
  // wait, the tutorial's "cannot be used inside a warp_specialize block"):
  // the warp is taken to arrive whole, the other lanes' arrivals of that
  // phase counted ahead of them (they come at their own next cluster
  // arrive, which is counted again: more arrivals than there are, so a
  // phase that still does not complete does not in any launch), and to
  // block whole at the wait, which holds while the other lanes make no
  // event but cluster barriers from there on (push()). One split of the
  // warp only, and not where cp.async events are followed per lane.
  if (lanes != fullLanes()) {
    if (copyTrace || (clusterLanes && clusterLanes != lanes))
      return fail(__LINE__);
    clusterLanes = lanes;
  }
  return push({arrives ? SyncEvent::Arrive : SyncEvent::Wait, op,
               kClusterBarrierKey, 0, llvm::popcount(fullLanes()), 0, arrives,
               -1});
}

bool InstanceBuilder::named(Operation *op, bool waits) {
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

std::optional<int64_t> InstanceBuilder::mbarrierKey(Operation *op, Point p,
    int64_t owner) {
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

bool InstanceBuilder::initOp(InitOp init) {
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

std::optional<uint64_t> InstanceBuilder::targetsAt(Operation *op, Point p) {
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

bool InstanceBuilder::arrive(Operation *op) {
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

bool InstanceBuilder::waitOp(WaitOp wait) {
  return waitEvent(wait, wait.getPhase(), wait.getPhaseOffset());
}

bool InstanceBuilder::waitEvent(Operation *wait, Value phaseValue,
                                int64_t offset) {
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
