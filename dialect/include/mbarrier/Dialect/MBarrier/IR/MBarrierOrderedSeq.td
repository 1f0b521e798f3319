//===- MBarrierOrderedSeq.td - ordered sequences -----------*- tablegen -*-===//
//
// CUTLASS's OrderedSequenceBarrier<Depth, Length> as checked IR: L groups of
// threads take turns, in order, at each of D stages; a group waits for its
// turn on its own barrier of the stage and hands the turn to the next group
// ((g + 1) mod L) by arriving on that group's barrier. The counts and the
// starting phases are derived from the type; the state a group carries and
// the turn it holds are linear values, checked by the pipe verifier's
// linearity walk (PipeLinearity.cpp). `mbarrier-lower-pipes` rewrites every
// op here into mbarrier.init / wait / arrive.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_ORDERED_SEQ_TD
#define MBARRIER_ORDERED_SEQ_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def MBarrier_OrderedSeqType : TypeDef<MBarrier_Dialect, "OrderedSeq"> {
  let mnemonic = "ordered_seq";
  let summary = "L groups that take turns, in order, at each of D stages";
  let description = [{
    `!mbarrier.ordered_seq<D, L, arrivals = C>` is CUTLASS's
    `OrderedSequenceBarrier<SequenceDepth = D, SequenceLength = L>`
    (`include/cutlass/pipeline/sm90_pipeline.hpp`), owned by the CTA that
    holds it: barrier `d * L + g` of the underlying `!mbarrier.group<D*L>`
    (CUTLASS's `barrier_[d][g]`) is the one group `g` waits on for its turn
    at stage `d`. At each stage the turn goes around the groups in order:
    group `g` waits on its barrier, does its part, and arrives on the
    barrier of group `(g + 1) mod L`; group 0 starts on the opposite phase,
    so its first turn at every stage passes at once and the others follow
    it. Stages are independent rings (CUTLASS's ping-pong GEMM uses stage 0
    for the mainloop and stage 1 for the epilogue of its two math warp
    groups).

    - `arrivals` (default 1): the arrivals that hand a turn on, one per
      arriving agent of a group: 128 where every thread of a warp group
      arrives (CUTLASS's `group_size`), 4 where one elected lane per warp
      does (`if %pred`). Every barrier is initialized with it.

    It lowers to the group it was created from (`!llvm.ptr<3>`).

    Example:

    ```mlir
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    ```
  }];
  let parameters = (ins "unsigned":$depth, "unsigned":$length,
                        "unsigned":$arrivals);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def MBarrier_SeqStateType : TypeDef<MBarrier_Dialect, "SeqState"> {
  let mnemonic = "seq_state";
  let summary = "one group's position in an ordered sequence";
  let description = [{
    `!mbarrier.seq_state`: the group a state belongs to and how many turns
    it has taken. The stage is that count modulo the depth, the phase parity
    the count divided by the depth (flipped for group 0, which goes first),
    both derived by the lowering. `mbarrier.seq.wait` takes it (at most once
    on every path, never once per trip of a loop it enters from outside:
    loops carry it) and returns the next one. It lowers to `i32` (`turns *
    L + group`; the count must stay below 2^32 / L).

    Example:

    ```mlir
    %st = mbarrier.seq.start %o, %group : !mbarrier.ordered_seq<2, 2>
    ```
  }];
}

def MBarrier_SeqTurnType : TypeDef<MBarrier_Dialect, "SeqTurn"> {
  let mnemonic = "seq_turn";
  let summary = "a turn a group holds in an ordered sequence";
  let description = [{
    `!mbarrier.seq_turn` (from `mbarrier.seq.wait`) is handed to the next
    group exactly once on every path with `mbarrier.seq.arrive`: a turn that
    is never handed on stops every group after it. scf.for, scf.if and
    scf.while may carry it. It lowers to `i32` (the state it was taken at).

    Example:

    ```mlir
    mbarrier.seq.arrive %o[%turn] : !mbarrier.ordered_seq<2, 2>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

defvar SeqRW = Arg<MBarrier_OrderedSeqType, "the ordered sequence",
                   [MemRead, MemWrite]>;

def MBarrier_SeqCreateOp : MBarrier_Op<"seq.create", [Pure]> {
  let summary = "view a group of D x L barriers as an ordered sequence";
  let description = [{
    Makes a `!mbarrier.ordered_seq<D, L>` from a `!mbarrier.group<D*L>` of
    this CTA: barrier `d * L + g` is group `g`'s at stage `d` (CUTLASS's
    `barrier_[d][g]`). Nothing is emitted; `mbarrier.seq.init` initializes
    the barriers.

    CUTLASS: `OrderedSequenceBarrier::SharedStorage`
    (`include/cutlass/pipeline/sm90_pipeline.hpp`). PTX ISA: "mbarrier"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier).

    Example:

    ```mlir
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    ```
  }];
  let arguments = (ins MBarrier_GroupType:$barriers);
  let results = (outs MBarrier_OrderedSeqType:$seq);
  let assemblyFormat = "$barriers attr-dict `:` qualified(type($barriers)) `->` qualified(type($seq))";
  let hasVerifier = 1;
}

def MBarrier_SeqInitOp : MBarrier_Op<"seq.init"> {
  let summary = "initialize every barrier of an ordered sequence";
  let description = [{
    `mbarrier.init` of the D x L barriers with the sequence's `arrivals`.
    Executed by one thread of the owner CTA; follow it with
    `mbarrier.fence_init` and a CTA barrier before any group waits.

    CUTLASS: the `OrderedSequenceBarrier` constructor (warp 0's elected
    lane initializes `barrier_[d][g]` with `group_size`). PTX ISA:
    "mbarrier.init"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-init).

    Example:

    ```mlir
    mbarrier.seq.init %o : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    ```
  }];
  let arguments = (ins SeqRW:$seq);
  let assemblyFormat = "$seq attr-dict `:` qualified(type($seq))";
  let hasVerifier = 1;
}

def MBarrier_SeqStartOp : MBarrier_Op<"seq.start", [Pure]> {
  let summary = "the first state of one group of an ordered sequence";
  let description = [{
    The state of group `group` (an `i32` in [0, L)) before its first turn:
    stage 0, on the phase where group 0's first wait passes at once and
    every other group's waits for the group before it (CUTLASS:
    `stage_({0, group_id == 0, 0})`). A constant group outside [0, L) is
    an error; a computed one must be in range at run time.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %st = mbarrier.seq.start %o, %group : !mbarrier.ordered_seq<2, 2>
    ```
  }];
  let arguments = (ins MBarrier_OrderedSeqType:$seq, I32:$group);
  let results = (outs MBarrier_SeqStateType:$state);
  let assemblyFormat = "$seq `,` $group attr-dict `:` qualified(type($seq))";
  let hasVerifier = 1;
}

def MBarrier_SeqWaitOp : MBarrier_Op<"seq.wait", [MBarrier_LinearUseOpInterface]> {
  let summary = "wait until it is this group's turn at the state's stage";
  let description = [{
    Waits on the group's barrier of the state's stage for the phase the
    state implies (a `try_wait.parity` loop), and returns the turn and the
    next state. The turn must be handed on exactly once on every path, with
    `mbarrier.seq.arrive`. Takes the state, which it uses up: take the next
    one.

    CUTLASS: `OrderedSequenceBarrier::wait()`. PTX ISA:
    "mbarrier.test_wait/mbarrier.try_wait"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %turn, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    ```
  }];
  let arguments = (ins SeqRW:$seq, MBarrier_SeqStateType:$state);
  let extraClassDeclaration = MBarrier_TakesState;
  let results = (outs MBarrier_SeqTurnType:$turn, MBarrier_SeqStateType:$next);
  let assemblyFormat = "$seq `,` $state attr-dict `:` qualified(type($seq))";
  let hasVerifier = 1;
}

def MBarrier_SeqArriveOp : MBarrier_Op<"seq.arrive", [MBarrier_LinearUseOpInterface]> {
  let summary = "hand the turn to the next group of an ordered sequence";
  let description = [{
    Arrives (`mbarrier.arrive`, release at CTA scope) on the barrier of
    group `(g + 1) mod L` at the turn's stage, so that group's wait of this
    stage passes once every arriving agent of this group has arrived. `if
    %pred`: only where `%pred` holds (one elected thread per warp, with
    `arrivals` counting warps). Consumes the turn.

    CUTLASS: `OrderedSequenceBarrier::arrive()`. PTX ISA: "mbarrier.arrive"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.seq.arrive %o[%turn] if %lane0 : !mbarrier.ordered_seq<2, 2, arrivals = 4>
    ```
  }];
  let arguments = (ins SeqRW:$seq, MBarrier_SeqTurnType:$turn, Optional<I1>:$pred);
  let extraClassDeclaration = MBarrier_TakesTurn;
  let assemblyFormat = "$seq `[` $turn `]` (`if` $pred^)? attr-dict `:` qualified(type($seq))";
  let hasVerifier = 1;
}

#endif // MBARRIER_ORDERED_SEQ_TD
