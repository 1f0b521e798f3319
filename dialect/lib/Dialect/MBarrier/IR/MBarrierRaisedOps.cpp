//===- MBarrierRaisedOps.cpp - arrive_nocomplete, cp_async_bulk_tensor ----===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"
#include "VerifyHelpers.h"

using namespace mlir;
using namespace mlir::mbarrier;
using namespace mlir::mbarrier::detail;

LogicalResult ArriveNoCompleteOp::verify() {
  // PTX has only the .shared::cta form of arrive.noComplete.
  if (failed(verifyOwner(*this, getBarriers(), "arrived on without completing")) ||
      failed(verifyIndex(*this, getBarriers(), getIndex())))
    return failure();
  return verifyInRange(*this, getCount(), 1, kMaxArriveCount, "arrival count");
}

LogicalResult CpAsyncBulkTensorOp::verify() {
  // The copy completes on the barrier in the CTAs it lands in: this CTA's
  // (or, multicast, each of the mask's at the same offset), never another
  // CTA's through a view.
  if (failed(verifyOwner(*this, getBarriers(),
                         "the completion barrier of a tensor copy")) ||
      failed(verifyIndex(*this, getBarriers(), getIndex())))
    return failure();
  size_t dims = getCoordinates().size();
  if (dims < 1 || dims > 5)
    return emitOpError() << "takes 1 to 5 coordinates (a tensor of 1 to 5 "
                            "dimensions), got "
                         << dims;
  uint32_t bytes = getBytes();
  if (bytes % 16 || bytes > kMaxTxCount)
    return emitOpError() << "states a box of " << bytes
                         << " bytes: a box is a multiple of 16 bytes, at most "
                         << kMaxTxCount << " (the tx-count limit)";
  return success();
}

BarrierTarget CpAsyncBulkTensorOp::getBarrierTarget() {
  return BarrierTarget::ofMulticast(getMask(), getBarriers());
}
Value CpAsyncBulkTensorOp::getBarrierPredicate() { return getPred(); }
