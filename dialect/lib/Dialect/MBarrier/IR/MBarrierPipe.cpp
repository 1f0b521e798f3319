//===- MBarrierPipe.cpp - the pipeline type and its op verifiers ----------===//
//
// The protocol rules of docs/pipelines.md: counts and release targets derived
// from the pipe type; producer ops take producer states and slots, consumer
// ops consumer ones (the types say so); every slot is committed (or released) exactly once, in
// the block that took it, and used only before that; a state is taken once
// per block; the bytes a TMA commit expects equal the bytes its copies land.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::mbarrier;

//===----------------------------------------------------------------------===//
// !mbarrier.pipe
//===----------------------------------------------------------------------===//

Type PipeType::parse(AsmParser &parser) {
  unsigned depth = 0, producers = 1, consumers = 1, clusterX = 1, clusterY = 1;
  Multicast multicast = Multicast::none;
  StringRef kindName;
  SMLoc kindLoc;
  if (parser.parseLess() || parser.parseInteger(depth) || parser.parseComma())
    return {};
  kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return {};
  std::optional<PipeKind> kind = symbolizePipeKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc) << "expected a pipe kind (tma, arrive or "
                                 "tcgen05), got '"
                              << kindName << "'";
    return {};
  }
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "producers") {
      if (parser.parseInteger(producers))
        return {};
    } else if (key == "consumers") {
      if (parser.parseInteger(consumers))
        return {};
    } else if (key == "cluster") {
      if (parser.parseLSquare() || parser.parseInteger(clusterX) ||
          parser.parseComma() || parser.parseInteger(clusterY) ||
          parser.parseRSquare())
        return {};
    } else if (key == "multicast") {
      StringRef name;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseKeyword(&name))
        return {};
      std::optional<Multicast> parsed = symbolizeMulticast(name);
      if (!parsed) {
        parser.emitError(loc) << "expected multicast = none, row, col or "
                                 "rowcol, got '"
                              << name << "'";
        return {};
      }
      multicast = *parsed;
    } else {
      parser.emitError(keyLoc)
          << "unknown pipe parameter '" << key
          << "' (expected producers, consumers, cluster or multicast)";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PipeType>(parser.getContext(), depth, *kind,
                                     producers, consumers, clusterX, clusterY,
                                     multicast);
}

void PipeType::print(AsmPrinter &printer) const {
  printer << "<" << getDepth() << ", " << stringifyPipeKind(getKind());
  if (getProducers() != 1)
    printer << ", producers = " << getProducers();
  if (getConsumers() != 1)
    printer << ", consumers = " << getConsumers();
  if (getClusterX() != 1 || getClusterY() != 1)
    printer << ", cluster = [" << getClusterX() << ", " << getClusterY() << "]";
  if (getMulticast() != Multicast::none)
    printer << ", multicast = " << stringifyMulticast(getMulticast());
  printer << ">";
}

unsigned PipeType::getMulticastWidth(Multicast direction) const {
  switch (direction) {
  case Multicast::row:
    return getClusterX();
  case Multicast::col:
    return getClusterY();
  default:
    return 1;
  }
}

unsigned PipeType::getSourceCount() const {
  switch (getMulticast()) {
  case Multicast::none:
    return 1;
  case Multicast::row:
    return getClusterX();
  case Multicast::col:
    return getClusterY();
  case Multicast::rowcol:
    return getClusterX() + getClusterY() - 1;
  }
  return 1;
}

bool PipeType::allowsMulticast(Multicast direction) const {
  Multicast m = getMulticast();
  return m == Multicast::rowcol || (direction != Multicast::none && m == direction);
}

LogicalResult PipeType::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned depth, PipeKind kind,
                               unsigned producers, unsigned consumers,
                               unsigned clusterX, unsigned clusterY,
                               Multicast multicast) {
  if (depth == 0)
    return emitError() << "a pipe needs at least one stage";
  if (2ull * depth > kMaxDepth)
    return emitError() << "a pipe of " << depth << " stages needs "
                       << 16ull * depth << " bytes of barriers, more than the "
                       << kMaxSharedBytes / 1024
                       << " KiB of shared memory a CTA can have";
  if (producers == 0 || producers > kMaxArriveCount)
    return emitError() << "producers must be 1 to " << kMaxArriveCount
                       << " (arrivals on a full barrier per phase), got "
                       << producers;
  if (consumers == 0 || consumers > kMaxArriveCount)
    return emitError() << "consumers must be 1 to " << kMaxArriveCount
                       << " (release arrivals per phase from each CTA), got "
                       << consumers;
  if (clusterX == 0 || clusterY == 0 ||
      int64_t(clusterX) * clusterY > kMaxClusterSize)
    return emitError() << "cluster = [" << clusterX << ", " << clusterY
                       << "] is not a cluster shape: each dimension at least "
                          "1, at most "
                       << kMaxClusterSize << " CTAs";
  bool needsRow = multicast == Multicast::row || multicast == Multicast::rowcol;
  bool needsCol = multicast == Multicast::col || multicast == Multicast::rowcol;
  if ((needsRow && clusterX < 2) || (needsCol && clusterY < 2))
    return emitError() << "multicast = " << stringifyMulticast(multicast)
                       << " needs more than one CTA per "
                       << (needsRow && clusterX < 2 ? "row" : "column")
                       << ", the cluster is [" << clusterX << ", " << clusterY
                       << "]";
  unsigned sources = multicast == Multicast::none  ? 1
                     : multicast == Multicast::row ? clusterX
                     : multicast == Multicast::col ? clusterY
                                                   : clusterX + clusterY - 1;
  if (int64_t(consumers) * sources > kMaxArriveCount)
    return emitError() << "the empty barriers would count " << consumers
                       << " consumers x " << sources << " CTAs = "
                       << int64_t(consumers) * sources
                       << " arrivals, more than " << kMaxArriveCount;
  return success();
}

//===----------------------------------------------------------------------===//
// Shared slot and state checks
//===----------------------------------------------------------------------===//

/// The value an `scf.for` carries into `v` when `v` is one of its
/// iter_args or results (its init operand), else null.
static Value carriedFrom(Value v) {
  if (auto result = dyn_cast<OpResult>(v)) {
    if (auto loop = dyn_cast<scf::ForOp>(result.getOwner()))
      return loop.getInits()[result.getResultNumber()];
    return {};
  }
  auto arg = cast<BlockArgument>(v);
  auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() < loop.getNumInductionVars())
    return {};
  return loop.getInits()[arg.getArgNumber() - loop.getNumInductionVars()];
}

/// The op that made `slot` (pipe.acquire or pipe.wait), following the
/// scf.for loops that carry it; null for any other origin.
static Operation *slotSource(Value slot) {
  while (slot) {
    Operation *def = slot.getDefiningOp();
    if (isa_and_nonnull<PipeAcquireOp, PipeWaitOp>(def))
      return def;
    slot = carriedFrom(slot);
  }
  return nullptr;
}

/// A use of a slot (whose role its type fixes): a slot from pipe.acquire or
/// pipe.wait of the same pipe.
static LogicalResult checkSlotUse(Operation *op, Value pipe, Value slot) {
  Operation *source = slotSource(slot);
  if (!source)
    return op->emitOpError()
           << "takes a slot made by pipe."
           << (cast<SlotType>(slot.getType()).getRole() == PipeRole::producer
                   ? "acquire"
                   : "wait")
           << " in the same function (or carried from one by scf.for); a slot "
              "cannot be passed in a function or block argument";
  if (source->getOperand(0) != pipe)
    return op->emitOpError() << "uses a slot of another pipe";
  return success();
}

/// Ops that may use a slot without consuming it.
static bool isSlotReader(Operation *op) {
  return isa<PipeStageOp, PipeFullPtrOp, PipeCpAsyncBulkOp,
             PipeCpAsyncBulkTensorOp>(op);
}

/// The linearity of a slot made by `enter` (acquire or wait): exactly one
/// consuming op (`Consumer`), in the same block; every other use is a reader
/// placed before it.
/// The users of `value`, in program order where they share a block (use
/// lists are in no particular order; diagnostics name the first and second).
static SmallVector<Operation *> usersInOrder(Value value) {
  SmallVector<Operation *> users(value.getUsers().begin(),
                                 value.getUsers().end());
  llvm::stable_sort(users, [](Operation *a, Operation *b) {
    return a->getBlock() == b->getBlock() && a != b && a->isBeforeInBlock(b);
  });
  return users;
}

/// A use that hands a slot on to an scf.for: as an init operand (the loop
/// then carries it: its iter_arg and its result are slots to consume once
/// each) or as an operand of the body's scf.yield (the next iteration's
/// iter_arg, or the result, consumes it).
static bool isCarry(Operation *user) {
  return isa<scf::ForOp>(user) ||
         (isa<scf::YieldOp>(user) && isa<scf::ForOp>(user->getParentOp()));
}

/// The linearity of the slot `slot`, made by `enter` (acquire or wait) or
/// carried from it by an scf.for: exactly one consuming op (`Consumer`, or a
/// carry into or around a loop) in the block that holds the value, every
/// other use a reader placed before it; carried values, recursively, the
/// same. `carried` names the loop value in the messages.
template <typename Consumer>
static LogicalResult checkSlotLinear(Operation *enter, Value slot,
                                     StringRef consumerName, StringRef verb,
                                     StringRef carried = "") {
  auto error = [&]() {
    InFlightDiagnostic diag = enter->emitOpError() << "makes a slot that ";
    if (!carried.empty())
      diag << "(" << carried << ") ";
    return diag;
  };
  Block *block = isa<BlockArgument>(slot)
                     ? cast<BlockArgument>(slot).getOwner()
                     : slot.getDefiningOp()->getBlock();
  Operation *consumer = nullptr;
  for (Operation *user : usersInOrder(slot)) {
    if (isa<Consumer>(user) || isCarry(user)) {
      if (consumer) {
        InFlightDiagnostic diag = error() << "is " << verb
                                          << " twice: each slot is " << verb
                                          << " exactly once";
        diag.attachNote(user->getLoc()) << "second " << consumerName;
        return diag;
      }
      consumer = user;
      continue;
    }
    if (isSlotReader(user))
      continue;
    InFlightDiagnostic diag =
        error() << "leaves its block through '" << user->getName()
                << "': a slot stays in the block that took it (or is carried "
                   "by an scf.for) and is "
                << verb << " there";
    diag.attachNote(user->getLoc()) << "used here";
    return diag;
  }
  if (!consumer)
    return error() << "is never " << verb << ": " << consumerName
                   << " it exactly once, in the same block";
  if (consumer->getBlock() != block) {
    InFlightDiagnostic diag =
        error() << "is " << verb << " inside a nested region: "
                << consumerName
                << " it in the block that took it, so that every path does "
                   "it once";
    diag.attachNote(consumer->getLoc()) << consumerName << " here";
    return diag;
  }
  for (Operation *user : slot.getUsers()) {
    if (user == consumer)
      continue;
    Operation *anchor = block->findAncestorOpInBlock(*user);
    if (anchor && consumer->isBeforeInBlock(anchor)) {
      InFlightDiagnostic diag = user->emitOpError()
                                << "uses a slot after it was " << verb;
      diag.attachNote(consumer->getLoc()) << verb << " here";
      return diag;
    }
  }
  // Carried into a loop: the body's iter_arg and the loop's result are each
  // consumed once (a yield hands the next one on).
  if (auto loop = dyn_cast<scf::ForOp>(consumer)) {
    for (auto [i, init] : llvm::enumerate(loop.getInits())) {
      if (init != slot)
        continue;
      std::string arg = "carried by the scf.for as iter_arg #" +
                        std::to_string(i) + " into its body";
      std::string result = "carried out of the scf.for as result #" +
                           std::to_string(i);
      if (failed(checkSlotLinear<Consumer>(enter, loop.getRegionIterArg(i),
                                           consumerName, verb, arg)) ||
          failed(checkSlotLinear<Consumer>(enter, loop.getResult(i),
                                           consumerName, verb, result)))
        return failure();
    }
  }
  return success();
}

/// A state is taken (by acquire, wait or tail) at most once per block and
/// pipe: a second taking would reuse the stage and phase of the first. (Two
/// pipes may advance in lockstep on one state; `pipe.advance` is arithmetic.)
static LogicalResult checkStateTakenOnce(Operation *op, Value pipe,
                                         Value state) {
  for (Operation *user : state.getUsers()) {
    if (user == op || user->getBlock() != op->getBlock() ||
        !isa<PipeAcquireOp, PipeWaitOp, PipeTailOp>(user) ||
        user->getOperand(0) != pipe)
      continue;
    if (user->isBeforeInBlock(op)) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "takes a state that '" << user->getName()
          << "' already took on this pipe: use the state it returned (each "
             "state names one stage and phase)";
      diag.attachNote(user->getLoc()) << "taken here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult PipeCreateOp::verify() {
  PipeType pipe = getPipe().getType();
  unsigned have = getBarriers().getType().getDepth();
  if (have != 2 * pipe.getDepth())
    return emitOpError() << "a pipe of depth " << pipe.getDepth()
                         << " needs a group of " << 2 * pipe.getDepth()
                         << " barriers (a full and an empty barrier per "
                            "stage), got "
                         << getBarriers().getType();
  if (pipe.getMulticast() == Multicast::none)
    return success();
  for (Operation *parent = (*this)->getParentOp(); parent;
       parent = parent->getParentOp())
    for (StringRef name : kClusterShapeAttrNames) {
      auto dims = parent->getAttrOfType<DenseI32ArrayAttr>(name);
      if (!dims || dims.size() != 3)
        continue;
      if (dims[0] != int32_t(pipe.getClusterX()) ||
          dims[1] != int32_t(pipe.getClusterY()) || dims[2] != 1)
        return emitOpError()
               << "makes a pipe for cluster = [" << pipe.getClusterX() << ", "
               << pipe.getClusterY() << "] in a kernel whose '" << name
               << "' is (" << dims[0] << ", " << dims[1] << ", " << dims[2]
               << "): the multicast masks and release targets follow the "
                  "kernel's cluster shape";
      return success();
    }
  return success();
}

/// `ready` comes from the matching try op on the same state, when it comes
/// from a try op at all.
/// acquire and wait: the state taken once, a ready flag from the matching
/// try op on the same state, the slot consumed exactly once (`Consumer`).
template <typename TryOp, typename Consumer, typename EnterOp>
static LogicalResult verifyEnter(EnterOp op, StringRef consumerName,
                                 StringRef verb) {
  if (failed(checkStateTakenOnce(op, op.getPipe(), op.getState())))
    return failure();
  if (Value ready = op.getReady())
    if (auto test = ready.template getDefiningOp<TryOp>())
      if (test.getState() != op.getState())
        return op.emitOpError()
               << "takes a ready flag that tested another state";
  return checkSlotLinear<Consumer>(op, op.getSlot(), consumerName, verb);
}

LogicalResult PipeAcquireOp::verify() {
  return verifyEnter<PipeTryAcquireOp, PipeCommitOp>(*this, "pipe.commit",
                                                     "committed");
}

LogicalResult PipeWaitOp::verify() {
  return verifyEnter<PipeTryWaitOp, PipeReleaseOp>(*this, "pipe.release",
                                                   "released");
}

LogicalResult PipeTailOp::verify() {
  return checkStateTakenOnce(*this, getPipe(), getState());
}

LogicalResult PipeFullPtrOp::verify() {
  return checkSlotUse(*this, getPipe(), getSlot());
}

static LogicalResult checkCopy(Operation *op, Value pipe, Value slot) {
  if (failed(checkSlotUse(op, pipe, slot)))
    return failure();
  PipeType type = cast<PipeType>(pipe.getType());
  if (type.getKind() != PipeKind::tma)
    return op->emitOpError()
           << "completes on the full barrier with complete-tx, which only a "
              "tma pipe expects; the pipe is "
           << type;
  return success();
}

LogicalResult PipeCpAsyncBulkOp::verify() {
  if (failed(checkCopy(*this, getPipe(), getSlot())))
    return failure();
  std::optional<int64_t> size = getConstantInt(getSize());
  if (size && (*size <= 0 || *size % 16 || *size > kMaxTxCount))
    return emitOpError() << "copies a positive multiple of 16 bytes, at most "
                         << kMaxTxCount << ", got " << *size;
  return success();
}

LogicalResult PipeCpAsyncBulkTensorOp::verify() {
  if (failed(checkCopy(*this, getPipe(), getSlot())))
    return failure();
  size_t rank = getCoordinates().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "takes 1 to 5 coordinates, got " << rank;
  if (getBytes() % 16 || getBytes() > kMaxTxCount)
    return emitOpError() << "states a box of " << getBytes()
                         << " bytes: a box is a multiple of 16 bytes, at most "
                         << kMaxTxCount;
  std::optional<Multicast> direction = getMulticast();
  if (!direction || *direction == Multicast::none)
    return success();
  PipeType pipe = getPipe().getType();
  if (*direction == Multicast::rowcol)
    return emitOpError() << "multicasts along one direction, row or col; "
                            "load each operand along its own";
  if (!pipe.allowsMulticast(*direction))
    return emitOpError() << "multicasts along the "
                         << (*direction == Multicast::row ? "row" : "column")
                         << ", which the pipe does not (its multicast = "
                         << stringifyMulticast(pipe.getMulticast())
                         << "): the consumers of the CTAs it reaches would "
                            "not release the stage to this one";
  return success();
}

/// The bytes the copies into `slot` land in each receiving CTA, when every
/// copy is static and nothing else (`pipe.full_ptr`) completes on the slot.
static std::optional<int64_t> staticDelivery(Value slot, PipeType pipe,
                                             std::string &parts) {
  int64_t total = 0;
  unsigned copies = 0;
  llvm::raw_string_ostream os(parts);
  for (Operation *user : usersInOrder(slot)) {
    if (isa<PipeFullPtrOp>(user))
      return std::nullopt;
    int64_t bytes = 0;
    unsigned width = 1;
    if (auto copy = dyn_cast<PipeCpAsyncBulkOp>(user)) {
      std::optional<int64_t> size = getConstantInt(copy.getSize());
      if (!size)
        return std::nullopt;
      bytes = *size;
    } else if (auto copy = dyn_cast<PipeCpAsyncBulkTensorOp>(user)) {
      bytes = copy.getBytes();
      if (std::optional<Multicast> direction = copy.getMulticast())
        width = pipe.getMulticastWidth(*direction);
    } else {
      continue;
    }
    os << (copies++ ? " + " : "") << bytes;
    if (width > 1)
      os << " x " << width << " CTAs";
    total += bytes * width;
  }
  if (!copies)
    return std::nullopt;
  return total;
}

LogicalResult PipeCommitOp::verify() {
  if (failed(checkSlotUse(*this, getPipe(), getSlot())))
    return failure();
  PipeType pipe = getPipe().getType();
  if (pipe.getKind() != PipeKind::tma) {
    if (getBytes())
      return emitOpError() << "takes bytes only on a tma pipe; the pipe is "
                           << pipe;
    return success();
  }
  if (!getBytes())
    return emitOpError() << "on a tma pipe states the bytes that land in "
                            "this CTA's stage (`bytes %n`)";
  std::optional<int64_t> bytes = getConstantInt(getBytes());
  if (!bytes)
    return success();
  if (*bytes < 0 || *bytes > kMaxTxCount)
    return emitOpError() << "expects " << *bytes
                         << " bytes: the tx-count of a phase is 0 to "
                         << kMaxTxCount;
  std::string parts;
  std::optional<int64_t> delivered = staticDelivery(getSlot(), pipe, parts);
  if (delivered && *delivered != *bytes) {
    StringRef outcome =
        *delivered < *bytes ? "never complete" : "complete early";
    return emitOpError() << "expects " << *bytes
                         << " bytes on the full barrier, but the copies into "
                            "this slot land "
                         << *delivered << " bytes in each receiving CTA ("
                         << parts
                         << "): the phase would " << outcome;
  }
  return success();
}

LogicalResult PipeReleaseOp::verify() {
  return checkSlotUse(*this, getPipe(), getSlot());
}
