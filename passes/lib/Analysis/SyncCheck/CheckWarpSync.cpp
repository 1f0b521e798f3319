//===- CheckWarpSync.cpp - bar.warp.sync member masks (class 15) ----------===//
//
// `bar.warp.sync membermask` (nvvm.bar.warp.sync; PTX ISA, "bar.warp.sync"):
// the executing thread must be in the mask (else the behaviour is
// undefined), and it waits until every thread of the mask has executed a
// bar.warp.sync with the same mask. With the mask evaluated at each point
// of the executing set (the SPMD model):
//
// a point that executes it with its own lane outside the mask, where the op
// runs on every launch (its executing set is known and not empty), is an
// error. Lanes of the mask that never execute one are not: exited threads
// in the mask are allowed (a full mask in a partial warp is the ordinary
// form), and a thread still running elsewhere is waited for until it exits.
//
// Silence where the executing set or the mask is unknown.
//
//===----------------------------------------------------------------------===//
#include "NamedBarriers.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::checksync;
using Severity = Reporter::Severity;


void checksync::checkWarpSync(FunctionOpInterface fn, SPMDModel &model,
                              Reporter &out) {
  if (!model.countable())
    return;
  SmallVector<Operation *> syncs;
  fn->walk([&](Operation *op) {
    if (barWarpSyncMask(op))
      syncs.push_back(op);
  });
  if (syncs.empty())
    return;
  for (Operation *op : syncs) {
    const ExecSet &points = model.execSet(op);
    if (!points)
      continue;
    Value mask = barWarpSyncMask(op);
    for (unsigned b : points->set_bits()) {
      Point p = model.point(b);
      std::optional<int64_t> bits = model.evalInt(mask, p);
      if (!bits)
        break;
      int64_t lane = p.tid % kWarpSize;
      if (!((static_cast<uint64_t>(*bits) >> lane) & 1)) {
        out.report(op, Severity::Error, kLaneOutsideMaskSlot)
            << "bar.warp.sync with member mask 0x"
            << llvm::utohexstr(static_cast<uint32_t>(*bits))
            << " is executed by thread " << p.tid
            << (model.ranks() > 1 ? " of CTA " + std::to_string(p.rank) : "")
            << " (lane " << lane
            << "), which the mask leaves out: the behaviour is undefined "
               "(the executing thread must be in the mask)";
        break;
      }
    }
  }
}
