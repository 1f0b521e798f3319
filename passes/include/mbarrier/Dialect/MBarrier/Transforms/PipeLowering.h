//===- PipeLowering.h - what mbarrier-lower-pipes leaves for the checker -===//
//
// The marks `mbarrier-lower-pipes` (LowerPipes.cpp) leaves on the ops it
// makes of a pipe, read by mbarrier-check-sync.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PIPELOWERING_H
#define MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PIPELOWERING_H

namespace mlir {
namespace mbarrier {
/// A unit attribute on the `mbarrier.init` of each of a pipe's empty
/// barriers: its count is the consumer count the pipe's type declares, so
/// a phase short of it is the releases' bug (DeadlockPhases.cpp).
inline constexpr char kPipeConsumerCountAttr[] = "mbarrier.consumer_count";
} // namespace mbarrier
} // namespace mlir

#endif // MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PIPELOWERING_H
