//===- OrderedSeqLowering.h - ordered sequences to mbarrier ops -*- C++ -*-===//
//
// The part of `mbarrier-lower-pipes` that rewrites the ordered-sequence ops
// (MBarrierOrderedSeq.td) into mbarrier.init / wait / arrive
// (LowerOrderedSeq.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_DIALECT_MBARRIER_TRANSFORMS_ORDEREDSEQLOWERING_H
#define MBARRIER_DIALECT_MBARRIER_TRANSFORMS_ORDEREDSEQLOWERING_H

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;

namespace mbarrier {
/// The attribute of the marker that each lowered `seq.start` leaves (an
/// unused `arith.ori %group, 0` at its location): `array<i64: sequence,
/// length>`, read by mbarrier-check-sync (CheckSequences.cpp).
inline constexpr char kSeqStartAttr[] = "mbarrier.group_start";

/// Adds the type conversions (`!mbarrier.ordered_seq<D, L>` -> the
/// `!mbarrier.group<D*L>` it was made from, states and turns -> `i32`), the
/// patterns of every ordered-sequence op, and marks those ops illegal.
void populateOrderedSeqLowering(TypeConverter &types,
                                RewritePatternSet &patterns,
                                ConversionTarget &target);
} // namespace mbarrier
} // namespace mlir

#endif // MBARRIER_DIALECT_MBARRIER_TRANSFORMS_ORDEREDSEQLOWERING_H
