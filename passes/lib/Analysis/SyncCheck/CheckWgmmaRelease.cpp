//===- CheckWgmmaRelease.cpp - a stage released under a wgmma (class 17) --===//
//
// A consumer that releases a pipeline stage (an arrival on its empty
// barrier) while a `wgmma.mma_async` that reads the stage's shared memory
// may still run: the producer's next copy into the stage races with the
// MMA's reads, and the results are wrong in the launches where the copy
// lands first (facebookexperimental/triton#1278, NVIDIA/Fuser#3561). The
// MMA is freed by `wgmma.commit_group` then `wgmma.wait_group N` with N
// below the number of groups committed after its own; an MMA not yet
// committed is never waited for.
//
// In program order, within one trip of the consumer's loop (its block and
// the scf.if regions in it): from an mbarrier wait (the full barrier of a
// stage) to a later arrival on a barrier of the same stage (the index built from the same value, a
// pipeline's `stage` and `stage + D`, or both constants), the wgmma groups
// issued after the wait (before the next wait: an unrolled trip's next
// tile reads another stage) and still pending at the arrival. A release of
// the previous trip's stage (CUTLASS's mma(): the slot waited for carried
// to the next trip as an scf.for iter_arg, released there after
// `warpgroup_wait<K_PIPE_MMAS>()`) is judged over the two trips: the MMAs
// after that wait to the end of the body, then the commits and waits from
// the body's start to the release. A warning: the race loses only in some
// launches. An MMA in a nested loop that commits or waits is not
// judged.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"


using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

namespace {

/// The value a barrier index is built from: through casts and the
/// addition of a constant (a pipeline's empty barriers, `stage + D`), and
/// the constants added on the way.
std::pair<Value, int64_t> stageAndOffsetOf(Value index) {
  int64_t offset = 0;
  for (unsigned i = 0; i < 16 && index; ++i) {
    Operation *def = index.getDefiningOp();
    if (isIntegerCast(def)) {
      index = def->getOperand(0);
      continue;
    }
    if (isIntegerAdd(def)) {
      if (std::optional<int64_t> c = constantOf(def->getOperand(1))) {
        offset += *c;
        index = def->getOperand(0);
        continue;
      }
      if (std::optional<int64_t> c = constantOf(def->getOperand(0))) {
        offset += *c;
        index = def->getOperand(1);
        continue;
      }
    }
    break;
  }
  return {index, offset};
}

Value stageOf(Value index) { return stageAndOffsetOf(index).first; }

bool sameStage(const BarrierKey &a, const BarrierKey &b) {
  if (a.constIndex && b.constIndex)
    return true; // a ring of one stage: its full and its empty barrier
  return !a.constIndex && !b.constIndex && stageOf(a.index) == stageOf(b.index);
}

/// The wgmma groups of one thread: the open group (MMAs issued since the
/// last commit) and the committed ones not yet freed, oldest first; each
/// with the first MMA it holds (null: none).
struct Groups {
  Operation *open = nullptr;
  SmallVector<Operation *> committed;
  bool unknown = false;
  bool window = true;

  void step(Operation *op) {
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isLoop(inner) &&
          inner->walk([](Operation *o) {
                 return isWgmmaCommitGroup(o) || wgmmaWaitGroup(o)
                            ? WalkResult::interrupt()
                            : WalkResult::advance();
               }).wasInterrupted()) {
        unknown = true; // groups per trip: not followed
        return WalkResult::skip();
      }
      // The MMAs that read the stage: those before the next mbarrier wait
      // (the next tile's stage, in an unrolled trip).
      if (isa<WaitOp>(inner))
        window = false;
      if (isWgmmaMma(inner) && window && !open)
        open = inner;
      if (isWgmmaCommitGroup(inner)) {
        committed.push_back(open);
        open = nullptr;
      }
      if (std::optional<int64_t> n = wgmmaWaitGroup(inner))
        while (static_cast<int64_t>(committed.size()) > std::max<int64_t>(*n, 0))
          committed.erase(committed.begin());
      return WalkResult::advance();
    });
  }
  /// The first MMA that may still run, and whether it was committed.
  std::pair<Operation *, bool> pending() const {
    for (Operation *mma : committed)
      if (mma)
        return {mma, true};
    return {open, false};
  }
};

/// The warning at `release` where an MMA of `groups` may still run.
void reportPendingMma(ArriveOp release, const Groups &groups, bool carried,
                      Reporter &out) {
  auto [mma, committed] = groups.pending();
  if (groups.unknown || !mma)
    return;
  auto diag = out.report(release, Severity::Warning, kWgmmaReleaseSlot);
  diag << "releases a stage while a wgmma.mma_async that reads it may "
          "still run: ";
  if (committed)
    diag << "no nvvm.wgmma.wait.group.sync.aligned between them frees its "
            "group (wait_group N keeps the newest N groups pending)";
  else
    diag << "its group is not committed (nvvm.wgmma.commit.group.sync."
            "aligned) before the release, and no wait frees an open group";
  diag << ", so the producer's next copy into the stage can overwrite "
          "operands the MMA has not read yet (facebookexperimental/"
          "triton#1278): ";
  if (carried)
    diag << "the stage is the previous trip's, so wait with wait_group 1 "
            "at most (CUTLASS's warpgroup_wait<K_PIPE_MMAS>() with the "
            "release K_PIPE_MMAS stages behind)";
  else
    diag << "wait for it with wait_group 0, or release the stage one trip "
            "later after wait_group 1";
  out.note(release, kWgmmaReleaseSlot, mma->getLoc(),
           "the wgmma.mma_async that reads the stage");
}

/// A release of the stage that the previous trip waited for (CUTLASS's
/// mma(): consumer_release of smem_pipe_release, one stage behind the
/// wait): the index built from an iter_arg of the scf.for around it whose
/// yielded value builds the index of a wait in the body. The MMAs from that
/// wait to the end of the body, then the commits and waits from the body's
/// start to the release. `path`: the release and the scf.if ops around
/// it, the last one in the body.
void checkCarriedRelease(ArriveOp release, const BarrierKey &released,
                         ArrayRef<Operation *> path, Reporter &out) {
  if (released.constIndex)
    return;
  auto arg = dyn_cast<BlockArgument>(stageOf(released.index));
  if (!arg || arg.getArgNumber() == 0)
    return;
  Operation *loop = arg.getOwner()->getParentOp();
  Block *body = arg.getOwner();
  if (!isForLoop(loop) || path.back()->getBlock() != body)
    return;
  Operation *yield = body->getTerminator();
  unsigned carriedIndex = arg.getArgNumber() - 1;
  if (!yield || carriedIndex >= yield->getNumOperands())
    return;
  auto [carried, carriedOffset] =
      stageAndOffsetOf(yield->getOperand(carriedIndex));
  Operation *stageWait = nullptr;
  for (Operation &op : *body) {
    std::optional<BarrierKey> waited =
        isa<WaitOp>(&op) ? barrierOf(&op) : std::nullopt;
    if (!waited || waited->constIndex || stageOf(waited->index) != carried)
      continue;
    // Another barrier of the stage: another group, or the index of the
    // same stage value plus another constant (the full barrier `stage`,
    // the empty one `stage + D`).
    if (waited->root != released.root ||
        stageAndOffsetOf(waited->index).second !=
            carriedOffset + stageAndOffsetOf(released.index).second)
      stageWait = &op;
  }
  if (!stageWait || !stageWait->isBeforeInBlock(path.back()))
    return;
  Groups groups;
  for (Operation *op = stageWait->getNextNode(); op && op != yield;
       op = op->getNextNode())
    groups.step(op);
  // The next trip's MMAs read its own stage.
  groups.window = false;
  for (size_t i = path.size(); i > 0; --i)
    for (Operation &op : *path[i - 1]->getBlock()) {
      if (&op == path[i - 1])
        break;
      groups.step(&op);
    }
  reportPendingMma(release, groups, /*carried=*/true, out);
}

} // namespace

void checksync::checkWgmmaRelease(FunctionOpInterface fn, SPMDModel &model,
                                  Reporter &out) {
  (void)model;
  bool any = fn->walk([](Operation *op) {
                 return isWgmmaMma(op) ? WalkResult::interrupt()
                                    : WalkResult::advance();
               }).wasInterrupted();
  if (!any)
    return;
  fn->walk([&](ArriveOp release) {
    std::optional<BarrierKey> released = barrierOf(release);
    if (!released)
      return;
    // The last wait before the release, in its block or a block around it
    // within the trip (through scf.if, not out of a loop), on another
    // barrier of the same stage (the full barrier of the stage it
    // releases). `path`: the release and the ops around it, up to the one
    // in the wait's block.
    SmallVector<Operation *> path;
    Operation *stageWait = nullptr;
    for (Operation *at = release; at && !stageWait;) {
      path.push_back(at);
      for (Operation *op = at->getPrevNode(); op && !stageWait;
           op = op->getPrevNode()) {
        std::optional<BarrierKey> waited =
            isa<WaitOp>(op) ? barrierOf(op) : std::nullopt;
        if (waited && waited->differentFrom(*released) &&
            sameStage(*waited, *released))
          stageWait = op;
      }
      Operation *parent = at->getParentOp();
      if (!parent || !(isIfOp(parent) || isExecuteRegion(parent)))
        break;
      at = parent;
    }
    if (!stageWait)
      return checkCarriedRelease(release, *released, path, out);
    // The groups from the wait to the release: the ops after the wait in
    // its block, then in each block inward, the ops before the next one.
    Groups groups;
    for (Operation *op = stageWait->getNextNode(); op != path.back();
         op = op->getNextNode())
      groups.step(op);
    for (size_t i = path.size() - 1; i > 0; --i)
      for (Operation &op : *path[i - 1]->getBlock()) {
        if (&op == path[i - 1])
          break;
        groups.step(&op);
      }
    reportPendingMma(release, groups, /*carried=*/false, out);
  });
}
