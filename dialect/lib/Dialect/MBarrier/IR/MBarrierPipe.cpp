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
#include "mbarrier/Dialect/MBarrier/IR/PipeLinearity.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::mbarrier;

//===----------------------------------------------------------------------===//
// !mbarrier.pipe
//===----------------------------------------------------------------------===//

/// The rules of the pipe type on its parameters as the user wrote them
/// (signed, 64-bit), so that the parser can report a negative or huge number
/// as written before it narrows it; `PipeType::verify` applies the same.
static LogicalResult
verifyPipeParameters(function_ref<InFlightDiagnostic()> emitError,
                     int64_t depth, int64_t producers, int64_t consumers,
                     int64_t clusterX, int64_t clusterY, Multicast multicast) {
  if (depth < 1)
    return withNegative(emitError() << "a pipe needs at least one stage",
                        depth);
  if (depth > int64_t(kMaxDepth / 2)) {
    SmallString<24> bytes;
    (APInt(128, depth) * 16).toStringUnsigned(bytes);
    return emitError() << "a pipe of " << depth << " stages needs " << bytes
                       << " bytes of barriers, more than the "
                       << kMaxSharedBytes / 1024
                       << " KiB of shared memory a CTA can have";
  }
  if (producers < 1 || producers > kMaxArriveCount)
    return emitError() << "producers must be 1 to " << kMaxArriveCount
                       << " (arrivals on a full barrier per phase), got "
                       << producers;
  if (consumers < 1 || consumers > kMaxArriveCount)
    return emitError() << "consumers must be 1 to " << kMaxArriveCount
                       << " (release arrivals per phase from each CTA), got "
                       << consumers;
  if (clusterX < 1 || clusterY < 1 || clusterX > kMaxClusterSize ||
      clusterY > kMaxClusterSize || clusterX * clusterY > kMaxClusterSize)
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
  int64_t sources = multicast == Multicast::none  ? 1
                    : multicast == Multicast::row ? clusterX
                    : multicast == Multicast::col ? clusterY
                                                  : clusterX + clusterY - 1;
  if (consumers * sources > kMaxArriveCount)
    return emitError() << "the empty barriers would count " << consumers
                       << " consumers x " << sources
                       << " CTAs = " << consumers * sources
                       << " arrivals, more than " << kMaxArriveCount;
  return success();
}

Type PipeType::parse(AsmParser &parser) {
  SMLoc typeLoc = parser.getCurrentLocation();
  int64_t depth = 0, producers = 1, consumers = 1, clusterX = 1, clusterY = 1;
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
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key != "producers" && key != "consumers" && key != "cluster" &&
        key != "multicast") {
      parser.emitError(keyLoc)
          << "unknown pipe parameter '" << key
          << "' (expected producers, consumers, cluster or multicast)";
      return {};
    }
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "pipe parameter '" << key
                               << "' is given twice";
      return {};
    }
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
    } else {
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
    }
  }
  if (parser.parseGreater())
    return {};
  // Every number is checked as written, then narrowed.
  if (failed(verifyPipeParameters(
          [&] { return parser.emitError(typeLoc); }, depth, producers,
          consumers, clusterX, clusterY, multicast)))
    return {};
  return parser.getChecked<PipeType>(parser.getContext(), unsigned(depth),
                                     *kind, unsigned(producers),
                                     unsigned(consumers), unsigned(clusterX),
                                     unsigned(clusterY), multicast);
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
  return verifyPipeParameters(emitError, depth, producers, consumers, clusterX,
                              clusterY, multicast);
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifyCreate(PipeCreateOp op) {
  PipeType pipe = op.getPipe().getType();
  unsigned have = op.getBarriers().getType().getDepth();
  if (have != 2 * pipe.getDepth())
    return op.emitOpError() << "a pipe of depth " << pipe.getDepth()
                         << " needs a group of " << 2 * pipe.getDepth()
                         << " barriers (a full and an empty barrier per "
                            "stage), got "
                         << op.getBarriers().getType();
  if (pipe.getMulticast() == Multicast::none)
    return success();
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    for (StringRef name : kClusterShapeAttrNames) {
      auto dims = parent->getAttrOfType<DenseI32ArrayAttr>(name);
      if (!dims || dims.size() != 3)
        continue;
      if (dims[0] != int32_t(pipe.getClusterX()) ||
          dims[1] != int32_t(pipe.getClusterY()) || dims[2] != 1)
        return op.emitOpError()
               << "makes a pipe for cluster = [" << pipe.getClusterX() << ", "
               << pipe.getClusterY() << "] in a kernel whose '" << name
               << "' is (" << dims[0] << ", " << dims[1] << ", " << dims[2]
               << "): the multicast masks and release targets follow the "
                  "kernel's cluster shape";
      return success();
    }
  return success();
}

LogicalResult PipeCreateOp::verify() {
  if (failed(verifyCreate(*this)))
    return failure();
  return verifyPipeLinearity(*this);
}

/// acquire and wait: a ready flag from the matching try op on the same
/// state (the linearity of the state and the slot is verifyPipeLinearity's).
template <typename TryOp, typename EnterOp>
static LogicalResult verifyEnter(EnterOp op) {
  if (Value ready = op.getReady())
    if (auto test = ready.template getDefiningOp<TryOp>())
      if (test.getState() != op.getState())
        return op.emitOpError()
               << "takes a ready flag that tested another state";
  return verifyPipeLinearity(op);
}

LogicalResult PipeAcquireOp::verify() {
  return verifyEnter<PipeTryAcquireOp>(*this);
}

LogicalResult PipeWaitOp::verify() { return verifyEnter<PipeTryWaitOp>(*this); }

LogicalResult PipeInitOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult PipeStartOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult PipeAdvanceOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult PipeTryAcquireOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult PipeTryWaitOp::verify() { return verifyPipeLinearity(*this); }
LogicalResult PipeTailOp::verify() { return verifyPipeLinearity(*this); }

LogicalResult PipeStageOp::verify() {
  if (failed(verifySlotOrigin(*this, /*pipe=*/{}, getSlot())))
    return failure();
  return verifyPipeLinearity(*this);
}

LogicalResult PipeFullPtrOp::verify() {
  if (failed(verifySlotOrigin(*this, getPipe(), getSlot())))
    return failure();
  return verifyPipeLinearity(*this);
}

static LogicalResult checkCopy(Operation *op, Value pipe, Value slot) {
  if (failed(verifySlotOrigin(op, pipe, slot)))
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
  return verifyPipeLinearity(*this);
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
  if (direction && *direction == Multicast::rowcol)
    return emitOpError() << "multicasts along one direction, row or col; "
                            "load each operand along its own";
  PipeType pipe = getPipe().getType();
  if (direction && *direction != Multicast::none &&
      !pipe.allowsMulticast(*direction))
    return emitOpError() << "multicasts along the "
                         << (*direction == Multicast::row ? "row" : "column")
                         << ", which the pipe does not (its multicast = "
                         << stringifyMulticast(pipe.getMulticast())
                         << "): the consumers of the CTAs it reaches would "
                            "not release the stage to this one";
  return verifyPipeLinearity(*this);
}

//===----------------------------------------------------------------------===//
// The bytes a TMA commit expects
//===----------------------------------------------------------------------===//

namespace {
/// The copies into a slot on one path from its acquire to its commit: the
/// bytes they land in each receiving CTA, how they add up (for messages),
/// and the branch conditions the path has taken.
struct PathBytes {
  int64_t total = 0;
  std::string parts;
  SmallVector<std::pair<Value, bool>, 2> conditions;

  void add(int64_t bytes, StringRef part) {
    total += bytes;
    parts += (parts.empty() ? "" : " + ") + part.str();
  }
  std::optional<bool> condition(Value c) const {
    for (auto [value, taken] : conditions)
      if (sameCondition(value, c))
        return taken;
    return std::nullopt;
  }

  /// One value, or the same side-effect free op of the same operands (lang
  /// builds `tid == 0` anew each time it is written).
  static bool sameCondition(Value a, Value b) {
    if (a == b)
      return true;
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    return x && y && x->getNumRegions() == 0 && isMemoryEffectFree(x) &&
           cast<OpResult>(a).getResultNumber() ==
               cast<OpResult>(b).getResultNumber() &&
           OperationEquivalence::isEquivalentTo(
               x, y, OperationEquivalence::IgnoreLocations);
  }
};
using Paths = SmallVector<PathBytes, 2>;

/// The paths between a slot's acquire and its commit, counted where that is
/// certain: a copy with a constant size counts its bytes (times the CTAs a
/// multicast reaches), a loop with constant bounds its trips times its body
/// (when every path of the body lands the same bytes), an scf.if per branch
/// (following a branch condition the path already decided, or the commit's
/// own predicate). Anything else holding a copy (a while loop, other bounds,
/// a non-constant size, pipe.full_ptr) makes the delivery unknown.
class Delivery {
public:
  Delivery(Value slot, PipeType pipe) : slot(slot), pipe(pipe) {}
  std::optional<Paths> run(PipeCommitOp commit);

private:
  bool walk(Block *block, Paths &paths);
  bool visit(Operation *op, Paths &paths);
  static constexpr unsigned kMaxPaths = 16;

  Value slot;
  PipeType pipe;
  UseSteps steps;
};
} // namespace

std::optional<Paths> Delivery::run(PipeCommitOp commit) {
  auto acquire = slot.getDefiningOp<PipeAcquireOp>();
  Block *home = commit->getBlock();
  if (!acquire || acquire->getBlock() != home)
    return std::nullopt;
  SmallVector<Operation *> copies;
  for (Operation *user : slot.getUsers()) {
    if (user == commit.getOperation() || isa<PipeStageOp>(user))
      continue;
    if (!isa<PipeCpAsyncBulkOp, PipeCpAsyncBulkTensorOp>(user))
      return std::nullopt; // pipe.full_ptr, a carry
    Operation *anchor = home->findAncestorOpInBlock(*user);
    if (anchor && anchor->isBeforeInBlock(commit))
      copies.push_back(user); // (one after the commit is a use after it)
  }
  if (copies.empty())
    return std::nullopt;
  steps = indexUses(home, copies);
  Paths paths(1);
  if (Value pred = commit.getPred())
    paths.front().conditions.push_back({pred, true});
  if (!walk(home, paths))
    return std::nullopt;
  return paths;
}

bool Delivery::walk(Block *block, Paths &paths) {
  auto it = steps.find(block);
  if (it == steps.end())
    return true;
  for (Operation *op : it->second)
    if (!visit(op, paths))
      return false;
  return true;
}

bool Delivery::visit(Operation *op, Paths &paths) {
  if (auto copy = dyn_cast<PipeCpAsyncBulkOp>(op)) {
    std::optional<int64_t> size = getConstantInt(copy.getSize());
    if (!size)
      return false;
    for (PathBytes &path : paths)
      path.add(*size, std::to_string(*size));
    return true;
  }
  if (auto copy = dyn_cast<PipeCpAsyncBulkTensorOp>(op)) {
    unsigned width = 1;
    if (std::optional<Multicast> direction = copy.getMulticast())
      width = pipe.getMulticastWidth(*direction);
    std::string part = std::to_string(copy.getBytes());
    if (width > 1)
      part += " x " + std::to_string(width) + " CTAs";
    for (PathBytes &path : paths)
      path.add(int64_t(copy.getBytes()) * width, part);
    return true;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    Value cond = branch.getCondition();
    std::optional<int64_t> known = getConstantInt(cond);
    Paths out;
    for (PathBytes &path : paths) {
      std::optional<bool> taken = path.condition(cond);
      if (!taken && known)
        taken = *known != 0;
      for (bool then : {true, false}) {
        if (taken && *taken != then)
          continue;
        Paths sub{path};
        if (!taken)
          sub.front().conditions.push_back({cond, then});
        Region &region = then ? branch.getThenRegion() : branch.getElseRegion();
        if (!region.empty() && !walk(&region.front(), sub))
          return false;
        out.append(sub.begin(), sub.end());
      }
    }
    if (out.size() > kMaxPaths)
      return false;
    paths = std::move(out);
    return true;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lb = getConstantInt(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantInt(loop.getUpperBound());
    std::optional<int64_t> step = getConstantInt(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || *lb < 0 || *ub < 0)
      return false;
    int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    Paths body(1);
    if (!walk(loop.getBody(), body))
      return false;
    // Every trip may take another branch: only a body that lands the same
    // bytes on every path is counted.
    if (llvm::any_of(body, [&](const PathBytes &p) {
          return p.total != body.front().total;
        }))
      return false;
    int64_t bytes;
    if (llvm::MulOverflow(body.front().total, trips, bytes) ||
        bytes > kMaxTxCount * 16)
      return false;
    std::string each = body.front().parts;
    if (each.find(" + ") != std::string::npos)
      each = "(" + each + ")";
    for (PathBytes &path : paths)
      path.add(bytes, each + " x " + std::to_string(trips) + " trips");
    return true;
  }
  return false; // scf.while, any other region: unknown
}

LogicalResult PipeCommitOp::verify() {
  if (failed(verifySlotOrigin(*this, getPipe(), getSlot())))
    return failure();
  PipeType pipe = getPipe().getType();
  if (pipe.getKind() != PipeKind::tma) {
    if (getBytes())
      return emitOpError() << "takes bytes only on a tma pipe; the pipe is "
                           << pipe;
    return verifyPipeLinearity(*this);
  }
  if (!getBytes())
    return emitOpError() << "on a tma pipe states the bytes that land in "
                            "this CTA's stage (`bytes %n`)";
  std::optional<int64_t> bytes = getConstantInt(getBytes());
  if (bytes && (*bytes < 0 || *bytes > kMaxTxCount))
    return emitOpError() << "expects " << *bytes
                         << " bytes: the tx-count of a phase is 0 to "
                         << kMaxTxCount;
  std::optional<Paths> paths;
  if (bytes)
    paths = Delivery(getSlot(), pipe).run(*this);
  for (const PathBytes &path : paths ? *paths : Paths()) {
    if (path.total == *bytes)
      continue;
    InFlightDiagnostic diag = emitOpError()
                              << "expects " << *bytes
                              << " bytes on the full barrier, but ";
    if (paths->size() > 1)
      diag << "on one of its " << paths->size() << " paths ";
    StringRef outcome =
        path.total < *bytes ? "never complete" : "complete early";
    StringRef parts =
        path.parts.empty() ? StringRef("no copy") : StringRef(path.parts);
    diag << "the copies into this slot land " << path.total
         << " bytes in each receiving CTA (" << parts
         << "): the phase would " << outcome;
    return diag;
  }
  return verifyPipeLinearity(*this);
}

LogicalResult PipeReleaseOp::verify() {
  if (failed(verifySlotOrigin(*this, getPipe(), getSlot())))
    return failure();
  return verifyPipeLinearity(*this);
}
