//===- PipeLinearity.h - states and slots used once per path ----*- C++ -*-===//
//
// The linearity rules of docs/pipelines.md ("Rules the verifier enforces"):
// a pipe state is taken at most once on every path and never once per trip
// of a loop it enters from outside; a slot is committed (or released) exactly
// once on every path and used only before that; both follow the values that
// scf.for, scf.if and scf.while carry. And a slot's pipe: every op that takes
// a slot is on the pipe whose acquire or wait made it. The states and turns
// of ordered sequences (!mbarrier.seq_state, !mbarrier.seq_turn) follow the
// same rules: a turn is arrived exactly once (seq.wait takes a state,
// seq.arrive a turn), each on the sequence that made it.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_DIALECT_PIPELINEARITY_H
#define MBARRIER_DIALECT_PIPELINEARITY_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::mbarrier {
/// Called by the verifier of every `mbarrier.pipe.*` op; checks the
/// linearity of every state and slot value of the op's isolated scope
/// (function) once, from the scope's first pipe op, and succeeds at once
/// for every other op.
LogicalResult verifyPipeLinearity(Operation *op);

/// `slot` (an operand of `op`) comes from pipe.acquire or pipe.wait (a turn
/// from seq.wait, a sequence state from seq.start or seq.wait), through
/// the values scf ops carry, and every op that may have made it is on
/// `pipe` (when `op` names one) or, without a pipe operand, on one pipe.
LogicalResult verifySlotOrigin(Operation *op, Value pipe, Value slot);

/// The ops of each block, between `home` and `users` (each nested in an op
/// of `home`), that are users or hold one, in program order: the steps a
/// walk from `home` over structured control flow visits.
using UseSteps = llvm::DenseMap<Block *, SmallVector<Operation *>>;
UseSteps indexUses(Block *home, ArrayRef<Operation *> users);
} // namespace mlir::mbarrier

#endif // MBARRIER_DIALECT_PIPELINEARITY_H
