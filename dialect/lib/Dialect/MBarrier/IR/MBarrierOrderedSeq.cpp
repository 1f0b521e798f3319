//===- MBarrierOrderedSeq.cpp - ordered sequences: type and verifiers -----===//
//
// The rules of docs/pipelines.md ("Ordered sequences"): the numbers of the
// type (stages, groups, arrivals) within the hardware's bounds; a sequence
// made from a group of exactly D x L barriers; a constant group id inside
// [0, L). States and turns are linear values: verifyPipeLinearity walks
// them with the pipe's states and slots (PipeLinearity.cpp).
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"
#include "mbarrier/Dialect/MBarrier/IR/PipeLinearity.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::mbarrier;

//===----------------------------------------------------------------------===//
// !mbarrier.ordered_seq
//===----------------------------------------------------------------------===//

/// The rules of the type on its numbers as written (signed, 64-bit), so that
/// the parser reports a negative or huge one as written.
static LogicalResult
verifySeqParameters(function_ref<InFlightDiagnostic()> emitError,
                    int64_t depth, int64_t length, int64_t arrivals) {
  if (depth < 1)
    return withNegative(
        emitError() << "an ordered sequence needs at least one stage", depth);
  if (length < 2)
    return withNegative(emitError() << "an ordered sequence orders at least "
                                       "two groups",
                        length);
  if (arrivals < 1 || arrivals > kMaxArriveCount)
    return emitError() << "arrivals must be 1 to " << kMaxArriveCount
                       << " (the arrivals that hand a turn on), got "
                       << arrivals;
  // depth, length <= 2^63: their product fits 128 bits.
  APInt barriers = APInt(128, depth) * APInt(128, length);
  if (barriers.ugt(kMaxDepth)) {
    SmallString<24> bytes;
    (barriers * 8).toStringUnsigned(bytes);
    return emitError() << "an ordered sequence of " << depth << " stages x "
                       << length << " groups needs " << bytes
                       << " bytes of barriers, more than the "
                       << kMaxSharedBytes / 1024
                       << " KiB of shared memory a CTA can have";
  }
  return success();
}

Type OrderedSeqType::parse(AsmParser &parser) {
  SMLoc typeLoc = parser.getCurrentLocation();
  int64_t depth = 0, length = 0, arrivals = 1;
  if (parser.parseLess() || parser.parseInteger(depth) ||
      parser.parseComma() || parser.parseInteger(length))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key != "arrivals") {
      parser.emitError(keyLoc) << "unknown ordered_seq parameter '" << key
                               << "' (expected arrivals)";
      return {};
    }
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc)
          << "ordered_seq parameter '" << key << "' is given twice";
      return {};
    }
    if (parser.parseInteger(arrivals))
      return {};
  }
  if (parser.parseGreater() ||
      failed(verifySeqParameters([&] { return parser.emitError(typeLoc); },
                                 depth, length, arrivals)))
    return {};
  return parser.getChecked<OrderedSeqType>(parser.getContext(),
                                           unsigned(depth), unsigned(length),
                                           unsigned(arrivals));
}

void OrderedSeqType::print(AsmPrinter &printer) const {
  printer << "<" << getDepth() << ", " << getLength();
  if (getArrivals() != 1)
    printer << ", arrivals = " << getArrivals();
  printer << ">";
}

LogicalResult
OrderedSeqType::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned depth, unsigned length, unsigned arrivals) {
  return verifySeqParameters(emitError, depth, length, arrivals);
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult SeqCreateOp::verify() {
  OrderedSeqType seq = getSeq().getType();
  unsigned need = seq.getDepth() * seq.getLength();
  if (getBarriers().getType().getDepth() != need)
    return emitOpError() << "an ordered sequence of " << seq.getDepth()
                         << " stages x " << seq.getLength()
                         << " groups needs a group of " << need
                         << " barriers (one per group and stage), got "
                         << getBarriers().getType();
  return verifyPipeLinearity(*this);
}

LogicalResult SeqStartOp::verify() {
  unsigned length = getSeq().getType().getLength();
  if (std::optional<int64_t> group = getConstantInt(getGroup()))
    if (*group < 0 || *group >= int64_t(length))
      return emitOpError() << "starts group " << *group
                           << ", outside the sequence's groups 0 to "
                           << length - 1;
  return verifyPipeLinearity(*this);
}

LogicalResult SeqInitOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult SeqWaitOp::verify() {
  // A state encodes its group with the sequence's length: it is waited on
  // the sequence that started it.
  if (failed(verifySlotOrigin(*this, getSeq(), getState())))
    return failure();
  return verifyPipeLinearity(*this);
}

LogicalResult SeqArriveOp::verify() {
  if (failed(verifySlotOrigin(*this, getSeq(), getTurn())))
    return failure();
  return verifyPipeLinearity(*this);
}
