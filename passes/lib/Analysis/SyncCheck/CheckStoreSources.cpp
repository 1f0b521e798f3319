//===- CheckStoreSources.cpp - a bulk store's source between threads ------===//
//
// Two rules of class 10 about the other threads around a bulk store
// (`cp.async.bulk[.tensor]` shared::cta -> global), whose source is
// written by the threads of the CTA and read by the issuing thread's store:
//
// - Written without a barrier: a store into the source by another thread
//   of the CTA, before the bulk store in program order with no op in
//   between that may order the threads (a CTA or named barrier,
//   bar.warp.sync, an mbarrier op, a cluster barrier, an atomic, a call,
//   inline PTX, an scf.while): the issuing thread may start the copy before
//   the other thread's write is done (the CUDA guide's add_one_kernel
//   without the __syncthreads() before thread 0's store). The scan goes
//   back from the store through its block and the blocks around it (a
//   loop's body before the store, then what precedes the loop); a region
//   op in the way is looked into unless it holds such an op. The points
//   that write where: the model's, with the loops around the write that
//   the model does not evaluate (trips that differ between the threads: a
//   strided loop from the thread id) taken at their first trip, where it
//   runs. The issuing thread's own writes are in program order (their
//   proxy fence is class 19's).
// - Released before the read: an mbarrier arrival by the issuing thread
//   (the executing set of the arrival is within the store's) on a barrier
//   of the store's stage (the barrier index and a term of the source's
//   offset built from the same value: `outputs_finished[s]` and
//   `out + s * bytes`; or both constant), after the store in its trip,
//   while its bulk async-group is not freed by a
//   `cp.async.bulk.wait_group[.read] N` (which frees every group but the
//   newest N; an open group is never freed), where a wait on that
//   barrier's group precedes a write into the source's allocation in the
//   waiting code: the waiters may overwrite the buffer that the store
//   still reads (ThunderKittens' storer arriving `outputs_finished` before
//   `tma::store_async_read_wait()`).
// Both are warnings: the race loses only in some launches.
//
//===----------------------------------------------------------------------===//
#include "NamedBarriers.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace store_sources {

/// Whether `op` may order the threads of the CTA, or hand data between
/// them, in a way the scans do not follow.
bool mayOrderThreads(Operation *op) {
  if (isThreadBarrier(op) || namedBarrierOpOf(op) || isClusterArrive(op) ||
      isClusterWait(op) || isOpaqueCall(op) || !inlinePTX(op).empty() ||
      isWhileLoop(op) || isOrderedMemoryAccess(op))
    return true;
  // An mbarrier op (an arrival, a wait, a sequence or a pipe op), but not
  // the ones that only name barriers.
  return isa_and_nonnull<MBarrierDialect>(op->getDialect()) &&
         !isa<AllocOp, ViewOp, RemoteViewOp, PtrOp>(op);
}

bool holdsThreadOrder(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return mayOrderThreads(inner) ? WalkResult::interrupt()
                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The value an index or offset is built from: through integer casts and
/// the addition or multiplication of a constant.
Value rootValue(Value v) {
  for (unsigned i = 0; i < 16 && v; ++i) {
    Operation *def = v.getDefiningOp();
    if (isIntegerCast(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (isIntegerAdd(def) || isIntegerMul(def)) {
      if (constantOf(def->getOperand(1))) {
        v = def->getOperand(0);
        continue;
      }
      if (constantOf(def->getOperand(0))) {
        v = def->getOperand(1);
        continue;
      }
    }
    break;
  }
  return v;
}


/// Values and executing sets in the first trip of each loop around an op
/// that the model does not evaluate: an scf.for's induction variable is
/// its lower bound there, an iter_arg its initial value.
class FirstTrip {
public:
  explicit FirstTrip(SPMDModel &model) : model(model) {}
  Point point(unsigned bit) const { return model.point(bit); }

  std::optional<llvm::APInt> eval(Value v, Point p, unsigned depth = 0) {
    if (std::optional<llvm::APInt> known = model.eval(v, p))
      return known;
    unsigned width = integerWidth(v.getType());
    if (depth > 24 || width == 0)
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *loop = arg.getOwner()->getParentOp();
      if (!isForLoop(loop) || loop->getNumOperands() < 3 + arg.getArgNumber())
        return std::nullopt;
      // Operands: lower bound, upper bound, step, initial values.
      unsigned operand = arg.getArgNumber() == 0 ? 0 : 2 + arg.getArgNumber();
      return eval(loop->getOperand(operand), p, depth + 1);
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1 || def->getNumRegions() != 0)
      return std::nullopt;
    return evalArith(def, width, [&](unsigned i) {
      return eval(def->getOperand(i), p, depth + 1);
    });
  }
  std::optional<int64_t> evalInt(Value v, Point p) {
    std::optional<llvm::APInt> value = eval(v, p);
    if (!value || value->getBitWidth() > 64)
      return std::nullopt;
    if (value->getBitWidth() == 1)
      return value->getZExtValue();
    return value->getSExtValue();
  }

  /// The points that run `region` in the first trip of the loops around
  /// it: the model's executing set where it knows it; else the points that
  /// reach the op around it and, for an scf.for, run its first trip, for an
  /// scf.if, take this branch; none where something does not evaluate.
  ExecSet regionSet(Region *region) {
    if (const ExecSet &known = model.regionSet(region))
      return known;
    Operation *parent = region->getParentOp();
    if (!parent || isa<FunctionOpInterface>(parent))
      return std::nullopt;
    bool loop = isForLoop(parent) && parent->getNumOperands() >= 3;
    bool branch = isIfOp(parent) && ifCondition(parent);
    if (!loop && !branch)
      return std::nullopt;
    ExecSet base = regionSet(parent->getParentRegion());
    if (!base)
      return std::nullopt;
    llvm::BitVector set(base->size());
    for (unsigned b : base->set_bits()) {
      Point p = model.point(b);
      if (loop) {
        std::optional<int64_t> lb = evalInt(parent->getOperand(0), p);
        std::optional<int64_t> ub = evalInt(parent->getOperand(1), p);
        if (!lb || !ub)
          return std::nullopt;
        if (*lb < *ub)
          set.set(b);
        continue;
      }
      std::optional<int64_t> c = evalInt(ifCondition(parent), p);
      if (!c)
        return std::nullopt;
      if ((*c != 0) == (region == &parent->getRegion(0)))
        set.set(b);
    }
    return set;
  }

  /// The byte offset of `address` at `p`, or none.
  std::optional<int64_t> offsetAt(const Address &address, Point p) {
    int64_t offset = address.constant;
    for (auto [index, scale] : address.scaled) {
      std::optional<int64_t> v = evalInt(index, p);
      if (!v)
        return std::nullopt;
      offset += *v * scale;
    }
    return offset;
  }

private:
  SPMDModel &model;
};

//===----------------------------------------------------------------------===//
// Written without a barrier
//===----------------------------------------------------------------------===//

/// The source of a bulk store at each issuing point: its offset and the
/// bytes it reads from there (a plain copy's size; a tensor copy's
/// smallest box).
struct IssuedSource {
  Address address;
  int64_t bytes;
  SmallVector<std::pair<Point, int64_t>> at; // (issuing point, offset)
};

std::optional<IssuedSource> issuedSource(Operation *store, FirstTrip &trip,
                                         SPMDModel &model) {
  std::optional<Address> address = decomposeAddress(bulkStoreSource(store));
  const ExecSet &points = actingPoints(store, model);
  if (!address || !points || points->none())
    return std::nullopt;
  int64_t bytes = kMinBoxBytes;
  if (Value size = bulkStoreSize(store)) {
    std::optional<int64_t> n = constantOf(size);
    if (!n || *n < 1)
      return std::nullopt;
    bytes = *n;
  }
  IssuedSource source{*address, bytes, {}};
  for (unsigned b : points->set_bits()) {
    Point p = model.point(b);
    std::optional<int64_t> offset = trip.offsetAt(*address, p);
    if (!offset)
      return std::nullopt;
    source.at.push_back({p, *offset});
  }
  return source;
}

/// A point other than an issuing one (of the same CTA) whose write `op`
/// lands in the source; none where there is none or it does not evaluate.
std::optional<Point> otherWriter(Operation *op, const IssuedSource &source,
                                 FirstTrip &trip) {
  if (!isStore(op))
    return std::nullopt;
  MemoryWrite write = memoryWriteOf(op);
  std::optional<Address> address =
      write.address ? decomposeAddress(write.address) : std::nullopt;
  if (!address || !address->sameAllocation(source.address))
    return std::nullopt;
  ExecSet points = trip.regionSet(op->getParentRegion());
  if (!points)
    return std::nullopt;
  for (unsigned b : points->set_bits()) {
    Point p = trip.point(b);
    std::optional<int64_t> offset = trip.offsetAt(*address, p);
    if (!offset)
      return std::nullopt;
    for (auto [q, from] : source.at)
      if (q.rank == p.rank && q.tid != p.tid && *offset < from + source.bytes &&
          *offset + write.bytes > from)
        return p;
  }
  return std::nullopt;
}

void checkUnorderedWrites(Operation *store, FirstTrip &trip, SPMDModel &model,
                          Reporter &out) {
  std::optional<IssuedSource> source = issuedSource(store, trip, model);
  if (!source)
    return;
  Operation *fn = store->getParentOfType<FunctionOpInterface>();
  for (Operation *at = store; at && at != fn;) {
    for (Operation *op = at->getPrevNode(); op; op = op->getPrevNode()) {
      if (mayOrderThreads(op) ||
          (op->getNumRegions() != 0 && holdsThreadOrder(op)))
        return;
      std::optional<std::pair<Operation *, Point>> hit;
      op->walk([&](Operation *inner) {
        if (std::optional<Point> p = otherWriter(inner, *source, trip)) {
          hit = std::make_pair(inner, *p);
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (!hit)
        continue;
      auto diag = out.report(store, Severity::Warning, kStagingUnorderedSlot);
      diag << "reads a buffer that thread " << hit->second.tid;
      if (model.ranks() > 1)
        diag << " of CTA " << hit->second.rank;
      diag << " writes before it with no barrier in between: the bulk store "
              "may copy the buffer before that write is done, on some "
              "launches (synchronize the writing threads with the issuing "
              "one, __syncthreads() or a named barrier, after their writes "
              "and their fence.proxy.async, before the store)";
      out.note(store, kStagingUnorderedSlot, hit->first->getLoc(),
               "the write into the buffer");
      return;
    }
    Operation *parent = at->getParentOp();
    if (!parent || !(isIfOp(parent) || isExecuteRegion(parent) ||
                     isForLoop(parent)))
      return;
    at = parent;
  }
}

//===----------------------------------------------------------------------===//
// Released before the read
//===----------------------------------------------------------------------===//

/// The bulk async-groups of the issuing thread from a store to a later op:
/// whether the store is committed and how many groups were committed after
/// its own; `freed` once a wait frees it, `unknown` where a loop in
/// between commits or waits.
struct StoreGroup {
  bool committed = false, freed = false, unknown = false;
  int64_t newer = 0;

  void step(Operation *op) {
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (inner != op && (isLoop(inner) || isIfOp(inner)) &&
          inner->walk([](Operation *o) {
                 return isBulkCommitGroup(o) || bulkWaitGroup(o)
                            ? WalkResult::interrupt()
                            : WalkResult::advance();
               }).wasInterrupted()) {
        unknown = true; // groups per trip or per branch: not followed
        return WalkResult::skip();
      }
      if (isBulkCommitGroup(inner)) {
        newer += committed;
        committed = true;
      }
      if (std::optional<BulkWait> wait = bulkWaitGroup(inner))
        if (committed && newer >= wait->groups)
          freed = true;
      return WalkResult::advance();
    });
  }
};

/// Whether some op that writes into `source`'s allocation follows, in its
/// block or a block around it, a wait on a barrier of `root`.
bool writtenAfterWaitOn(Value root, const Address &source, Operation *fn) {
  return fn
      ->walk([&](Operation *op) {
        MemoryWrite write = memoryWriteOf(op);
        std::optional<Address> address =
            write.address ? decomposeAddress(write.address) : std::nullopt;
        if (!address || !address->sameAllocation(source))
          return WalkResult::advance();
        for (Operation *at = op; at && at != fn; at = at->getParentOp())
          for (Operation *prev = at->getPrevNode(); prev;
               prev = prev->getPrevNode()) {
            std::optional<BarrierKey> key =
                isa<MBarrierWaitOpInterface>(prev) ? barrierOf(prev)
                                                         : std::nullopt;
            if (key && key->root == root)
              return WalkResult::interrupt();
          }
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether the barrier `key` is of the stage the source `address` is in.
bool sameStage(const BarrierKey &key, const Address &address) {
  if (key.constIndex)
    return address.scaled.empty();
  Value stage = rootValue(key.index);
  return llvm::any_of(address.scaled, [&](const auto &term) {
    return rootValue(term.first) == stage;
  });
}

void checkEarlyRelease(ArriveOp release, SPMDModel &model, Reporter &out) {
  std::optional<BarrierKey> key = barrierOf(release);
  const ExecSet &releasing = actingPoints(release, model);
  if (!key || !releasing || releasing->none())
    return;
  // The last bulk store before the release in its trip: its block, then
  // the blocks of the scf.if / execute_region around it. `path`: the
  // release and the ops around it, up to the one in the store's block.
  SmallVector<Operation *> path;
  Operation *store = nullptr;
  for (Operation *at = release; at && !store;) {
    path.push_back(at);
    for (Operation *op = at->getPrevNode(); op && !store;
         op = op->getPrevNode())
      if (bulkStoreSource(op))
        store = op;
    Operation *parent = at->getParentOp();
    if (!parent || !(isIfOp(parent) || isExecuteRegion(parent)))
      break;
    at = parent;
  }
  if (!store)
    return;
  std::optional<Address> source = decomposeAddress(bulkStoreSource(store));
  const ExecSet &issuing = actingPoints(store, model);
  if (!source || !issuing || !sameStage(*key, *source))
    return;
  llvm::BitVector others = *releasing;
  others.reset(*issuing);
  if (others.any())
    return; // not (only) the issuing thread releases
  StoreGroup group;
  for (Operation *op = store->getNextNode(); op != path.back();
       op = op->getNextNode())
    group.step(op);
  for (size_t i = path.size() - 1; i > 0; --i)
    for (Operation &op : *path[i - 1]->getBlock()) {
      if (&op == path[i - 1])
        break;
      group.step(&op);
    }
  if (group.unknown || group.freed)
    return;
  Operation *fn = release->getParentOfType<FunctionOpInterface>();
  if (!writtenAfterWaitOn(key->root, *source, fn))
    return;
  auto diag = out.report(release, Severity::Warning, kStagingReleaseSlot);
  diag << "releases the staging buffer of a bulk store that may still be "
          "reading it: ";
  if (!group.committed)
    diag << "the store's bulk async-group is not committed "
            "(cp.async.bulk.commit_group), so no wait_group.read frees it";
  else
    diag << "no cp.async.bulk.wait_group.read between them frees the "
            "store's group ("
         << group.newer << " group(s) were committed after its own)";
  diag << ", and the threads that wait on this barrier write the buffer "
          "next, on some launches before the store has read it (wait with "
          "cp.async.bulk.wait_group.read "
       << group.newer
       << " before the arrival: ThunderKittens' "
          "tma::store_async_read_wait())";
  out.note(release, kStagingReleaseSlot, store->getLoc(),
           "the bulk store that reads the buffer");
}

} // namespace store_sources

using namespace store_sources;

void checksync::checkStoreSources(FunctionOpInterface fn, SPMDModel &model,
                                  Reporter &out) {
  if (!model.countable() || !isStructured(fn))
    return;
  FirstTrip trip(model);
  fn->walk([&](Operation *op) {
    if (bulkStoreSource(op))
      checkUnorderedWrites(op, trip, model, out);
    if (auto release = dyn_cast<ArriveOp>(op))
      checkEarlyRelease(release, model, out);
  });
}
