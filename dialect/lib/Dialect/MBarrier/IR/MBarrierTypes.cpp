//===- MBarrierTypes.cpp - group and remote types ------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mbarrier;

static LogicalResult verifyDepth(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t depth) {
  if (depth < 1)
    return withNegative(
        emitError() << "an mbarrier group needs at least one barrier", depth);
  if (depth > kMaxDepth) {
    SmallString<24> bytes;
    (APInt(128, depth) * 8).toStringUnsigned(bytes);
    return emitError() << "an mbarrier group of " << depth << " barriers ("
                       << bytes << " bytes) does not fit the "
                       << kMaxSharedBytes / 1024
                       << " KiB of shared memory a CTA can have";
  }
  return success();
}

#define GET_TYPEDEF_CLASSES
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsTypes.cpp.inc"

void MBarrierDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "mbarrier/Dialect/MBarrier/IR/MBarrierOpsTypes.cpp.inc"
      >();
}

/// `<` N `>` of a group or remote type.
static FailureOr<unsigned> parseBarrierCount(AsmParser &parser) {
  int64_t depth = 0;
  if (parser.parseLess())
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseInteger(depth) ||
      failed(verifyDepth([&] { return parser.emitError(loc); }, depth)) ||
      parser.parseGreater())
    return failure();
  return unsigned(depth);
}

Type GroupType::parse(AsmParser &parser) {
  FailureOr<unsigned> depth = parseBarrierCount(parser);
  return failed(depth) ? Type() : get(parser.getContext(), *depth);
}

Type RemoteType::parse(AsmParser &parser) {
  FailureOr<unsigned> depth = parseBarrierCount(parser);
  return failed(depth) ? Type() : get(parser.getContext(), *depth);
}

void GroupType::print(AsmPrinter &printer) const {
  printer << "<" << getDepth() << ">";
}

void RemoteType::print(AsmPrinter &printer) const {
  printer << "<" << getDepth() << ">";
}

LogicalResult GroupType::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned depth) {
  return verifyDepth(emitError, depth);
}

LogicalResult RemoteType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned depth) {
  return verifyDepth(emitError, depth);
}

unsigned mlir::mbarrier::getDepth(Type type) {
  if (auto group = dyn_cast<GroupType>(type))
    return group.getDepth();
  return cast<RemoteType>(type).getDepth();
}
