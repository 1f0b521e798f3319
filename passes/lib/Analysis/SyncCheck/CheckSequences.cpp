//===- CheckSequences.cpp - the groups of an ordered sequence -------------===//
//
// An ordered sequence of L groups (`!mbarrier.ordered_seq<D, L>`, CUTLASS's
// OrderedSequenceBarrier) hands its turn from group g to group g + 1 mod L:
// group g waits on its own barriers, which only group g - 1's arrivals
// complete (group 0's first turn at each stage passes at once). So each
// group must be played by some threads. `mbarrier-lower-pipes` folds
// `seq.start %seq, %group` into the state it starts (the group value) and
// leaves beside it a marker (OrderedSeqLowering.h, kSeqStartAttr): an unused
// `arith.ori %group, 0` at the seq.start's location naming the sequence and
// its length. With the group evaluated at each point of each marker's
// executing set (the SPMD model), a group of [0, L) that no point starts
// is reported at the first seq.start of the sequence, a warning: the group
// after it waits for turns that nobody hands on (a hang once group 0 has
// taken its D released turns, or at the first turn of another group), and
// the threads that share a group take their turns together, out of order;
// a launch with few turns may complete (CUTLASS ping-pong with both math
// warp groups started as group 0).
//
// Silence where an executing set or a group does not evaluate, or a group
// falls outside [0, L).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Analysis/SyncCheck/Reporter.h"
#include "mbarrier/Analysis/SyncCheck/SyncModel.h"
#include "mbarrier/Dialect/MBarrier/Transforms/OrderedSeqLowering.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;

void checksync::checkSequences(FunctionOpInterface fn, SPMDModel &model,
                               Reporter &out) {
  if (!model.countable())
    return;
  struct Sequence {
    int64_t length = 0;
    SmallVector<Operation *> starts;
  };
  std::map<int64_t, Sequence> sequences;
  fn->walk([&](Operation *op) {
    auto marker = op->getAttrOfType<DenseI64ArrayAttr>(kSeqStartAttr);
    if (!marker || marker.size() != 2 || op->getNumOperands() < 1)
      return;
    Sequence &seq = sequences[marker[0]];
    seq.length = marker[1];
    seq.starts.push_back(op);
  });
  for (auto &[id, seq] : sequences) {
    if (seq.length < 2 || seq.length > 64)
      continue;
    uint64_t started = 0;
    bool known = true;
    for (Operation *start : seq.starts) {
      const ExecSet &points = model.execSet(start);
      if (!points) {
        known = false;
        break;
      }
      for (unsigned b : points->set_bits()) {
        std::optional<int64_t> group =
            model.evalInt(start->getOperand(0), model.point(b));
        if (!group || *group < 0 || *group >= seq.length) {
          known = false;
          break;
        }
        started |= uint64_t(1) << *group;
      }
      if (!known)
        break;
    }
    if (!known || started == 0)
      continue;
    SmallVector<std::string> played, missing;
    for (int64_t g = 0; g < seq.length; ++g)
      ((started >> g) & 1 ? played : missing).push_back(std::to_string(g));
    if (missing.empty())
      continue;
    int64_t next = (std::stoll(missing.front()) + 1) % seq.length;
    out.report(seq.starts.front(), Severity::Warning, kSequenceGroupSlot)
        << "starts the ordered sequence of " << seq.length
        << " groups only as group(s) " << llvm::join(played, ", ")
        << ": no thread starts group(s) " << llvm::join(missing, ", ")
        << ", so group " << next
        << " waits for turns that nobody hands on (a hang once its released "
           "turns are taken) and the threads that share a group take their "
           "turns together, out of order (each role starts as its own group: "
           "seq.start with the role's index, CUTLASS's warp group - 1)";
  }
}
