//===- PipeLinearity.cpp - states and slots used once per path ------------===//
//
// A state names one stage and phase: taking it twice (or once per trip of a
// loop it enters from outside) reuses them, which is the ring's own bug. A
// slot is one filled (or full) stage: it is committed (released) exactly
// once. The states and turns of ordered sequences (MBarrierOrderedSeq.td)
// follow the same rules: a turn is arrived (handed to the next group)
// exactly once. Both are linear values; scf ops carry them. The rules are checked
// on each value of state or slot type separately, by a walk of the program
// from its definition that follows structured control flow: the branches of
// scf.if / scf.index_switch are alternatives, a loop's regions (and those of
// any other op) may run any number of times.
//
//===----------------------------------------------------------------------===//
#include "mbarrier/Dialect/MBarrier/IR/PipeLinearity.h"
#include "mbarrier/Dialect/MBarrier/IR/MBarrier.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Iterators.h"

using namespace mlir;
using namespace mlir::mbarrier;

//===----------------------------------------------------------------------===//
// Values that scf ops carry
//===----------------------------------------------------------------------===//
// The IR may not be verified yet past the op being verified: every access
// below checks the operand and block argument counts it relies on.

/// Operand `i` of the terminator (scf.yield, or the values of scf.condition)
/// of the block of region `r` of `op`, if it has one.
static Value yielded(Operation *op, unsigned r, unsigned i) {
  if (r >= op->getNumRegions())
    return {};
  Region &region = op->getRegion(r);
  if (!region.hasOneBlock() || region.front().empty())
    return {};
  Operation *term = &region.front().back();
  if (isa<scf::ConditionOp>(term))
    ++i;
  else if (!isa<scf::YieldOp>(term))
    return {};
  return i < term->getNumOperands() ? term->getOperand(i) : Value();
}

/// The values that flow into `v` when an scf op carries it (the init operand
/// and the yielded value of a loop, the values an scf.if yields); false when
/// `v` is not a value an scf op carries.
static bool carriedFrom(Value v, SmallVectorImpl<Value> &from) {
  auto push = [&](Value x) {
    if (x)
      from.push_back(x);
  };
  auto operand = [](Operation *op, unsigned i) {
    return i < op->getNumOperands() ? op->getOperand(i) : Value();
  };
  if (auto result = dyn_cast<OpResult>(v)) {
    Operation *op = result.getOwner();
    unsigned i = result.getResultNumber();
    if (isa<scf::ForOp>(op)) {
      push(operand(op, 3 + i));
      push(yielded(op, 0, i));
    } else if (isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(op)) {
      for (unsigned r = 0; r < op->getNumRegions(); ++r)
        push(yielded(op, r, i));
    } else if (isa<scf::WhileOp>(op)) {
      push(yielded(op, 0, i));
    } else {
      return false;
    }
    return true;
  }
  auto arg = cast<BlockArgument>(v);
  Operation *op = arg.getOwner()->getParentOp();
  unsigned i = arg.getArgNumber();
  if (!op || !arg.getOwner()->isEntryBlock())
    return false;
  if (isa<scf::ForOp>(op)) {
    if (i == 0) // the induction variable
      return false;
    push(operand(op, 2 + i));
    push(yielded(op, 0, i - 1));
  } else if (isa<scf::WhileOp>(op)) {
    if (arg.getParentRegion()->getRegionNumber() == 0) {
      push(operand(op, i));
      push(yielded(op, 1, i));
    } else {
      push(yielded(op, 0, i));
    }
  } else {
    return false;
  }
  return true;
}

/// Whether `use` hands its value on to a value an scf op carries (a loop's
/// init operand, an scf.yield or scf.condition operand).
static bool isCarry(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<scf::ForOp>(user))
    return use.getOperandNumber() >= 3;
  if (isa<scf::WhileOp>(user))
    return true;
  if (isa<scf::ConditionOp>(user))
    return use.getOperandNumber() >= 1;
  return isa<scf::YieldOp>(user) &&
         isa_and_nonnull<scf::ForOp, scf::IfOp, scf::IndexSwitchOp,
                         scf::ExecuteRegionOp, scf::WhileOp>(
             user->getParentOp());
}

/// How `v` is carried, for messages ("carried by the scf.for as iter_arg #0
/// into its body").
static std::string describeCarried(Value v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto result = dyn_cast<OpResult>(v)) {
    os << "carried out of the " << result.getOwner()->getName()
       << " as result #" << result.getResultNumber();
    return text;
  }
  auto arg = cast<BlockArgument>(v);
  Operation *op = arg.getOwner()->getParentOp();
  if (isa_and_nonnull<scf::ForOp>(op))
    os << "carried by the scf.for as iter_arg #" << arg.getArgNumber() - 1
       << " into its body";
  else if (isa_and_nonnull<scf::WhileOp>(op))
    os << "carried by the scf.while into its "
       << (arg.getParentRegion()->getRegionNumber() == 0 ? "before" : "after")
       << " region as argument #" << arg.getArgNumber();
  else
    os << "a block argument";
  return text;
}

/// The pipe operand of a pipe op, if it has one.
static Value pipeOf(Operation *op) {
  return op->getNumOperands() ? op->getOperand(0) : Value();
}

/// Whether `v` is made by an op that starts a linear value of its type: a
/// slot by pipe.acquire or pipe.wait, a turn by seq.wait, a sequence state
/// by seq.start or (its next state) seq.wait.
static bool isOrigin(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !pipeOf(def))
    return false;
  unsigned n = cast<OpResult>(v).getResultNumber();
  if (isa<SlotType>(v.getType()))
    return isa<PipeAcquireOp, PipeWaitOp>(def) && n == 0;
  if (isa<SeqTurnType>(v.getType()))
    return isa<SeqWaitOp>(def) && n == 0;
  return isa<SeqStartOp>(def) || (isa<SeqWaitOp>(def) && n == 1);
}

/// The ops (pipe.acquire or pipe.wait; for ordered sequences, seq.wait or
/// seq.start) whose value may reach `slot` through the values scf ops carry,
/// nearest first (a loop's init before its yield); `unknown` when some
/// origin is anything else (an argument, another op).
static SmallVector<Operation *> slotSources(Value slot, bool &unknown) {
  SmallVector<Operation *> sources;
  SmallVector<Value> queue{slot};
  DenseSet<Value> seen{slot};
  unknown = false;
  for (unsigned next = 0; next < queue.size(); ++next) {
    Value v = queue[next];
    if (isOrigin(v)) {
      sources.push_back(v.getDefiningOp());
      continue;
    }
    SmallVector<Value> from;
    if (!carriedFrom(v, from) || from.empty()) {
      unknown = true;
      continue;
    }
    for (Value f : from)
      if (seen.insert(f).second)
        queue.push_back(f);
  }
  return sources;
}

/// What owns a state, slot or turn of type `owner`, in messages.
static StringRef ownerKind(Type owner) {
  return isa<OrderedSeqType>(owner) ? "ordered sequence" : "pipe";
}

/// What a linear value is called in messages, and the op(s) that make it.
static StringRef nounOf(Type type) {
  if (isa<SeqTurnType>(type))
    return "turn";
  return isa<SeqStateType>(type) ? "state" : "slot";
}
static StringRef makerOf(Type type) {
  if (isa<SeqTurnType>(type))
    return "seq.wait";
  if (isa<SeqStateType>(type))
    return "seq.start or seq.wait";
  return cast<SlotType>(type).getRole() == PipeRole::producer ? "pipe.acquire"
                                                              : "pipe.wait";
}

LogicalResult mlir::mbarrier::verifySlotOrigin(Operation *op, Value pipe,
                                               Value slot) {
  StringRef noun = nounOf(slot.getType());
  bool unknown = false;
  SmallVector<Operation *> sources = slotSources(slot, unknown);
  if (unknown || sources.empty())
    return op->emitOpError()
           << "takes a " << noun << " made by " << makerOf(slot.getType())
           << " in the same function (or carried from one by scf.for, scf.if "
              "or scf.while); a "
           << noun << " cannot be passed in a function or block argument";
  Value expected = pipe ? pipe : pipeOf(sources.front());
  for (Operation *source : sources) {
    Value taken = pipeOf(source);
    if (taken == expected)
      continue;
    InFlightDiagnostic diag = op->emitOpError();
    if (pipe) {
      diag << "uses a " << noun << " of another "
           << ownerKind(pipe.getType()) << ": the " << noun
           << " was taken on ";
      if (taken.getType() == pipe.getType())
        diag << "another " << pipe.getType();
      else
        diag << "a " << taken.getType() << ", this op is on a "
             << pipe.getType();
    } else {
      diag << "takes a " << noun << " that may come from two pipes ("
           << expected.getType() << " and " << taken.getType() << ")";
      diag.attachNote(sources.front()->getLoc()) << "taken here";
    }
    diag.attachNote(source->getLoc())
        << "taken here, on the other " << ownerKind(taken.getType());
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

namespace {
/// What one use does to a state or slot: takes it (acquire, wait, tail,
/// advance of a state; commit, release of a slot), reads it (try_acquire,
/// try_wait; stage, full_ptr, copies), hands it on (to a value an scf op
/// carries, a call, a return: that value or callee takes it), or, for a slot
/// only, lets it escape (anything but an scf carry).
enum class Kind { Take, Read, HandOn, Escape };

struct Use {
  Operation *op;
  Kind kind;
  /// The pipe a state is taken (or tested) on; null for a taking that ends
  /// the state on every pipe (advance, a hand-on) and for slots.
  Value pipe;
};

/// Two uses exclude each other unless both name a pipe, and different ones
/// (two pipes may advance in lockstep on one state).
static bool conflict(const Use &a, const Use &b) {
  return !a.pipe || !b.pipe || a.pipe == b.pipe;
}

static bool isPipeOp(Operation *op) {
  return isa<PipeCreateOp, PipeInitOp, PipeStartOp, PipeAdvanceOp,
             PipeAcquireOp, PipeWaitOp, PipeTryAcquireOp, PipeTryWaitOp,
             PipeCommitOp, PipeReleaseOp, PipeTailOp, PipeStageOp,
             PipeFullPtrOp, PipeCpAsyncBulkOp, PipeCpAsyncBulkTensorOp,
             SeqCreateOp, SeqInitOp, SeqStartOp, SeqWaitOp, SeqArriveOp>(op);
}

/// The uses of one value on the paths of one walk: those that may have
/// taken it (on some path) and whether every path has.
struct Path {
  SmallVector<Use, 2> taken;
  bool every = false;

  void join(const Path &other) {
    for (const Use &use : other.taken)
      if (llvm::none_of(taken, [&](const Use &u) { return u.op == use.op; }))
        taken.push_back(use);
    every = every && other.every;
  }
};

class Linearity {
public:
  explicit Linearity(Value value)
      : value(value), slot(isa<SlotType, SeqTurnType>(value.getType())) {}

  LogicalResult run();

private:
  Use classify(OpOperand &operand) const;
  LogicalResult walkBlock(Block *block, Path &path, Operation *loop);
  LogicalResult walkRegion(Region &region, Path &path, Operation *loop);
  LogicalResult visit(Operation *op, Path &path, Operation *loop);
  LogicalResult onUse(OpOperand &operand, Path &path, Operation *loop);

  // Diagnostics.
  InFlightDiagnostic slotError();
  LogicalResult twice(const Use &first, const Use &second);
  LogicalResult everyTrip(const Use &use, Operation *loop);
  LogicalResult afterTaking(const Use &first, const Use &read);
  LogicalResult elsewhere(Operation *user);

  /// What taking a slot is called ("committed") and the op that does it.
  StringRef verb() const {
    if (isa<SeqTurnType>(value.getType()))
      return "arrived";
    return cast<SlotType>(value.getType()).getRole() == PipeRole::producer
               ? "committed"
               : "released";
  }
  StringRef taker() const {
    if (isa<SeqTurnType>(value.getType()))
      return "seq.arrive";
    return verb() == "committed" ? "pipe.commit" : "pipe.release";
  }
  /// "slot" or "turn".
  StringRef noun() const { return nounOf(value.getType()); }

  Value value;
  bool slot;
  /// The acquire or wait that made a slot (the nearest, if carried).
  Operation *origin = nullptr;
  Block *home = nullptr;
  /// The ops of each block that use the value or hold a use, in order.
  UseSteps steps;
};
} // namespace

UseSteps mlir::mbarrier::indexUses(Block *home, ArrayRef<Operation *> users) {
  UseSteps steps;
  DenseSet<Operation *> indexed;
  for (Operation *user : users)
    for (Operation *op = user; indexed.insert(op).second;
         op = op->getParentOp()) {
      steps[op->getBlock()].push_back(op);
      if (op->getBlock() == home)
        break;
    }
  for (auto &[block, ops] : steps)
    llvm::sort(ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
  return steps;
}

Use Linearity::classify(OpOperand &operand) const {
  Operation *user = operand.getOwner();
  // Which operand an op takes or reads is the op's answer
  // (LinearUseOpInterface), not an operand number.
  auto use = dyn_cast<LinearUseOpInterface>(user);
  bool takes = use && use.getTakenOperand() == &operand;
  bool reads = use && use.getReadOperand() == &operand;
  if (slot) {
    if (takes)
      return {user, Kind::Take, {}};
    if (reads)
      return {user, Kind::Read, {}};
    return {user, isCarry(operand) ? Kind::HandOn : Kind::Escape, {}};
  }
  // A state is taken for its pipe or sequence (pipe.advance names none).
  if (takes)
    return {user, Kind::Take, isa<PipeAdvanceOp>(user) ? Value() : pipeOf(user)};
  if (reads)
    return {user, Kind::Read, pipeOf(user)};
  return {user, Kind::HandOn, {}};
}

LogicalResult Linearity::run() {
  if (slot) {
    // A slot of no known origin is reported where it is used.
    bool unknown = false;
    SmallVector<Operation *> sources = slotSources(value, unknown);
    if (sources.empty())
      return success();
    origin = sources.front();
  } else if (value.use_empty()) {
    return success();
  }
  if (auto arg = dyn_cast<BlockArgument>(value))
    home = arg.getOwner();
  else
    home = value.getDefiningOp()->getBlock();
  SmallVector<Operation *> users(value.getUsers());
  for (Operation *user : users)
    if (!home->findAncestorOpInBlock(*user))
      return elsewhere(user);
  steps = indexUses(home, users);
  Path path;
  if (failed(walkBlock(home, path, /*loop=*/nullptr)))
    return failure();
  if (!slot || path.every)
    return success();
  if (path.taken.empty())
    return slotError() << "is never " << verb() << ": " << taker()
                       << " it exactly once on every path";
  InFlightDiagnostic diag = slotError()
                            << "is " << verb() << " on some paths only: "
                            << taker() << " it exactly once on every path";
  const Use &some = path.taken.front();
  diag.attachNote(some.op->getLoc())
      << (some.kind == Kind::Take ? taker() : StringRef("handed on"))
      << " here";
  return diag;
}

LogicalResult Linearity::walkBlock(Block *block, Path &path,
                                   Operation *loop) {
  auto it = steps.find(block);
  if (it == steps.end())
    return success();
  for (Operation *op : it->second)
    if (failed(visit(op, path, loop)))
      return failure();
  return success();
}

LogicalResult Linearity::walkRegion(Region &region, Path &path,
                                    Operation *loop) {
  // A region of several blocks (cf branches): its blocks may run in any
  // order and number, like a loop's.
  if (!region.hasOneBlock() && !loop)
    loop = region.getParentOp();
  for (Block &block : region)
    if (failed(walkBlock(&block, path, loop)))
      return failure();
  return success();
}

LogicalResult Linearity::visit(Operation *op, Path &path, Operation *loop) {
  for (OpOperand &operand : op->getOpOperands())
    if (operand.get() == value && failed(onUse(operand, path, loop)))
      return failure();
  if (op->getNumRegions() == 0)
    return success();
  if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
    // Alternatives: one region runs (an scf.if without else: maybe none).
    std::optional<Path> joined;
    for (Region &region : op->getRegions()) {
      Path branch = path;
      if (failed(walkRegion(region, branch, loop)))
        return failure();
      if (joined)
        joined->join(branch);
      else
        joined = branch;
    }
    path = *joined;
    return success();
  }
  if (isa<scf::ExecuteRegionOp>(op) && op->getNumRegions() == 1)
    return walkRegion(op->getRegion(0), path, loop);
  // A loop, or an op whose regions may run any number of times.
  Path inside = path;
  for (Region &region : op->getRegions())
    if (failed(walkRegion(region, inside, loop ? loop : op)))
      return failure();
  inside.every = path.every;
  path = inside;
  return success();
}

LogicalResult Linearity::onUse(OpOperand &operand, Path &path,
                               Operation *loop) {
  Use use = classify(operand);
  if (use.kind == Kind::Escape) {
    InFlightDiagnostic diag =
        slotError() << "is passed to '" << use.op->getName()
                    << "': a " << noun()
                    << " stays in the function that took it "
                       "(carried only by scf.for, scf.if and scf.while) and "
                       "is "
                    << verb() << " there";
    diag.attachNote(use.op->getLoc()) << "used here";
    return diag;
  }
  for (const Use &earlier : path.taken)
    if (conflict(earlier, use))
      return use.kind == Kind::Read ? afterTaking(earlier, use)
                                    : twice(earlier, use);
  if (use.kind == Kind::Read)
    return success();
  if (loop)
    return everyTrip(use, loop);
  path.taken.push_back(use);
  path.every = true;
  return success();
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// The present tense of what `use` does to a state, and the past.
static StringRef present(const Use &use) {
  if (use.kind == Kind::Read)
    return "tests";
  if (use.kind == Kind::HandOn)
    return "hands on";
  return isa<PipeAdvanceOp>(use.op) ? "advances" : "takes";
}
static StringRef past(const Use &use) {
  if (use.kind == Kind::HandOn)
    return "handed on";
  return isa<PipeAdvanceOp>(use.op) ? "advanced" : "took";
}

/// The slot diagnostics are located at the acquire or wait that made the
/// slot (the nearest one, for a carried slot).
InFlightDiagnostic Linearity::slotError() {
  InFlightDiagnostic diag = origin->emitOpError()
                            << "makes a " << noun() << " that ";
  if (value.getDefiningOp() != origin)
    diag << "(" << describeCarried(value) << ") ";
  return diag;
}

LogicalResult Linearity::twice(const Use &first, const Use &second) {
  if (slot) {
    StringRef verb = this->verb();
    InFlightDiagnostic diag = slotError();
    if (first.kind == Kind::Take && second.kind == Kind::Take) {
      diag << "is " << verb << " twice: each " << noun() << " is " << verb
           << " exactly once";
      diag.attachNote(second.op->getLoc())
          << "second " << second.op->getName().stripDialect();
    } else {
      diag << "is " << (first.kind == Kind::Take ? verb : "handed on")
           << " and then "
           << (second.kind == Kind::Take ? verb : "handed on")
           << " again: each " << noun() << " is " << verb
           << " (or carried on to a value that is) exactly once";
      diag.attachNote(first.op->getLoc()) << "first here";
      diag.attachNote(second.op->getLoc()) << "again here";
    }
    return diag;
  }
  if (isPipeOp(second.op)) {
    InFlightDiagnostic diag = second.op->emitOpError()
                              << present(second) << " a state that '"
                              << first.op->getName() << "' already "
                              << past(first);
    if (first.pipe && second.pipe)
      diag << " on this " << ownerKind(first.pipe.getType());
    if (first.kind == Kind::HandOn)
      diag << ": use the value it hands the state on to";
    else if (isa<PipeTailOp>(first.op))
      diag << ": a tail takes the last stages of a side";
    else
      diag << ": use the state it returned";
    diag << " (each state names one stage and phase)";
    diag.attachNote(first.op->getLoc())
        << (first.kind == Kind::HandOn ? "handed on here" : "taken here");
    return diag;
  }
  if (isPipeOp(first.op)) {
    InFlightDiagnostic diag = first.op->emitOpError()
                              << present(first) << " a state that '"
                              << second.op->getName()
                              << "' hands on as well: hand on the state it "
                                 "returned (each state names one stage and "
                                 "phase)";
    diag.attachNote(second.op->getLoc()) << "handed on here";
    return diag;
  }
  InFlightDiagnostic diag = second.op->emitOpError();
  if (isa<scf::YieldOp, scf::ConditionOp>(second.op) &&
      first.op->isProperAncestor(second.op))
    diag << "hands on the state that the enclosing '" << first.op->getName()
         << "' started from: hand on the state the trip produced";
  else
    diag << "hands on a pipe state that '" << first.op->getName()
         << "' already handed on";
  diag << " (each state names one stage and phase)";
  diag.attachNote(first.op->getLoc()) << "handed on here";
  return diag;
}

LogicalResult Linearity::everyTrip(const Use &use, Operation *loop) {
  InFlightDiagnostic diag = [&]() {
    if (slot) {
      InFlightDiagnostic diag = slotError();
      diag << "is "
           << (use.kind == Kind::HandOn ? StringRef("handed on") : verb())
           << " in every trip of the enclosing '" << loop->getName()
           << "', which it enters from outside: carry it into the loop (an "
              "iter_arg) and hand on the "
           << noun() << " each trip makes";
      diag.attachNote(use.op->getLoc()) << "here";
      return diag;
    }
    InFlightDiagnostic diag = use.op->emitOpError();
    diag << present(use) << " a " << (isPipeOp(use.op) ? "" : "pipe ")
         << "state defined outside the enclosing '" << loop->getName()
         << "' in every trip: each trip would take the same stage and phase; "
            "carry the state through the loop (an iter_arg) and use the one "
            "each trip returns";
    return diag;
  }();
  diag.attachNote(loop->getLoc()) << "the loop";
  return diag;
}

LogicalResult Linearity::afterTaking(const Use &first, const Use &read) {
  InFlightDiagnostic diag = read.op->emitOpError();
  if (slot) {
    StringRef verb = this->verb();
    diag << "uses a " << noun() << " after it was "
         << (first.kind == Kind::Take ? verb : "handed on");
    diag.attachNote(first.op->getLoc())
        << (first.kind == Kind::Take ? verb : "handed on") << " here";
    return diag;
  }
  diag << "tests a state that '" << first.op->getName() << "' already "
       << past(first) << (first.pipe ? " on this pipe" : "")
       << ": test the state it returned";
  diag.attachNote(first.op->getLoc()) << "taken here";
  return diag;
}

LogicalResult Linearity::elsewhere(Operation *user) {
  InFlightDiagnostic diag = slot ? slotError()
                            : isPipeOp(user) ? user->emitOpError()
                                             : emitError(user->getLoc());
  if (slot)
    diag << "is used";
  else
    diag << "uses a pipe state defined";
  diag << " in another block of the region: pipe states and slots follow "
          "structured control flow (scf.for, scf.if, scf.while)";
  diag.attachNote(user->getLoc()) << "used here";
  return diag;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

static bool isLinear(Value value) {
  return isa<PipeStateType, SlotType, SeqStateType, SeqTurnType>(
      value.getType());
}

/// Every state and slot defined in `region`, outside isolated ops.
static LogicalResult verifyValuesIn(Region &region) {
  for (Block &block : region) {
    for (BlockArgument arg : block.getArguments())
      if (isLinear(arg) && failed(Linearity(arg).run()))
        return failure();
    for (Operation &op : block) {
      for (Value result : op.getResults())
        if (isLinear(result) && failed(Linearity(result).run()))
          return failure();
      if (op.hasTrait<OpTrait::IsIsolatedFromAbove>())
        continue;
      for (Region &nested : op.getRegions())
        if (failed(verifyValuesIn(nested)))
          return failure();
    }
  }
  return success();
}

/// Whether `op` (not isolated) is or holds a pipe op; searched from the end,
/// so that a search backwards from a pipe op stops at the nearest one.
static bool holdsPipeOp(Operation *op) {
  if (op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return false;
  return op
      ->walk<WalkOrder::PreOrder, ReverseIterator>([](Operation *nested) {
        if (isPipeOp(nested))
          return WalkResult::interrupt();
        if (nested->hasTrait<OpTrait::IsIsolatedFromAbove>())
          return WalkResult::skip();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a pipe op comes before `op` in `scope` in the order the verifier
/// visits ops (pre-order). It looks back only as far as the nearest one, so
/// that asking it for every pipe op of a scope costs one pass over it.
static bool followsPipeOp(Operation *op, Operation *scope) {
  for (Operation *cur = op; cur != scope; cur = cur->getParentOp()) {
    for (Operation *prev = cur->getPrevNode(); prev; prev = prev->getPrevNode())
      if (holdsPipeOp(prev))
        return true;
    Region *region = cur->getBlock()->getParent();
    auto earlier = [&](Block *block) {
      return llvm::any_of(llvm::reverse(*block),
                          [](Operation &o) { return holdsPipeOp(&o); });
    };
    for (Block *block = cur->getBlock()->getPrevNode(); block;
         block = block->getPrevNode())
      if (earlier(block))
        return true;
    for (Region &other : region->getParentOp()->getRegions()) {
      if (&other == region)
        break;
      for (Block &block : llvm::reverse(other))
        if (earlier(&block))
          return true;
    }
  }
  return false;
}

LogicalResult mlir::mbarrier::verifyPipeLinearity(Operation *op) {
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!scope || followsPipeOp(op, scope))
    return success();
  for (Region &region : scope->getRegions())
    if (failed(verifyValuesIn(region)))
      return failure();
  return success();
}
