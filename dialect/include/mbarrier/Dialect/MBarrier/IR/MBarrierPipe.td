//===- MBarrierPipe.td - the multi-stage pipeline ----------*- tablegen -*-===//
//
// A producer/consumer ring of D stages as checked IR: one full and one empty
// mbarrier per stage, a state that the ops advance (nobody writes a parity),
// slots that are committed or released exactly once, and, in a cluster, the
// release target set that TMA multicast implies. `mbarrier-lower-pipes`
// rewrites every op here into the mbarrier ops of MBarrierOps.td, so the
// lowering and the checks below them apply unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_PIPE_TD
#define MBARRIER_PIPE_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def MBarrier_PipeKind : I32EnumAttr<"PipeKind",
    "how a pipeline's producer completes the full barrier of a slot", [
      I32EnumAttrCase<"tma", 0>,      // arrive.expect_tx + complete_tx bytes
      I32EnumAttrCase<"arrive", 1>,   // a plain arrive
      I32EnumAttrCase<"tcgen05", 2>   // tcgen05.commit
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mbarrier";
}

def MBarrier_PipeRole : I32EnumAttr<"PipeRole",
    "the side of a pipeline a state or slot belongs to", [
      I32EnumAttrCase<"producer", 0>,
      I32EnumAttrCase<"consumer", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mbarrier";
}

// The CTAs of a 2-D cluster that share a slot through TMA multicast: those
// of the same row (same %cluster_ctaid.y), of the same column (same .x), or
// both (CUTLASS's McastDirection kRow / kCol / kRowCol).
def MBarrier_Multicast : I32EnumAttr<"Multicast",
    "the CTAs of a cluster that TMA multicast reaches", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"row", 1>,
      I32EnumAttrCase<"col", 2>,
      I32EnumAttrCase<"rowcol", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mbarrier";
}
def MBarrier_MulticastAttr : EnumAttr<MBarrier_Dialect, MBarrier_Multicast, "multicast">;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def MBarrier_PipeType : TypeDef<MBarrier_Dialect, "Pipe"> {
  let mnemonic = "pipe";
  let summary = "a ring of D stages, each with a full and an empty mbarrier";
  let description = [{
    `!mbarrier.pipe<D, kind, producers = P, consumers = C, cluster = [X, Y],
    multicast = M>` is a producer/consumer ring owned by the CTA that holds
    it: stage `s` has a *full* barrier (barrier `s` of the underlying
    `!mbarrier.group<2D>`) that the producer completes and the consumers
    wait on, and an *empty* barrier (barrier `D + s`) that the consumers
    complete and the producer waits on before it refills the stage.

    - `kind`: how the producer completes a full barrier: `tma` (one
      `mbarrier.arrive.expect_tx` per producer, the bytes by the copies'
      complete-tx), `arrive` (a plain arrive per producer) or `tcgen05`
      (`tcgen05.commit`).
    - `producers` (default 1): arrivals on a full barrier per phase, one per
      producer agent. `consumers` (default 1): release arrivals per phase
      that each CTA sending into the stage receives from each consumer CTA.
    - `cluster = [X, Y]` (default `[1, 1]`): the 2-D cluster the pipe lives
      in, rank `x + X * y` (`%cluster_ctarank`). `multicast`: which CTAs'
      TMA copies land in this CTA's stages (`row`: the X CTAs of its row,
      `col`: the Y CTAs of its column, `rowcol`: both, X + Y - 1 CTAs;
      default `none`: its own copies only). A consumer releases a stage to
      every CTA that may write into it, so the empty barrier's count is
      `consumers` times the number of those CTAs, and the producer refills a
      stage only when every CTA its copies reach has released it.

    The full barriers are initialized with `producers`, the empty ones with
    `consumers * |sources|`: `mbarrier.pipe.init` derives both. It lowers
    to the group it was created from (`!llvm.ptr<3>`).

    Example:

    ```mlir
    %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 2], multicast = rowcol>
    ```
  }];
  let parameters = (ins "unsigned":$depth, "PipeKind":$kind,
                        "unsigned":$producers, "unsigned":$consumers,
                        "unsigned":$clusterX, "unsigned":$clusterY,
                        "Multicast":$multicast);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of CTAs a copy multicast along `direction` (row or col)
    /// reaches, this one included.
    unsigned getMulticastWidth(Multicast direction) const;
    /// The number of CTAs whose copies land in this CTA's stages (and to
    /// which its consumers release a stage), this one included.
    unsigned getSourceCount() const;
    /// The init count of the full barriers.
    unsigned getFullCount() const { return getProducers(); }
    /// The init count of the empty barriers.
    unsigned getEmptyCount() const { return getConsumers() * getSourceCount(); }
    /// Whether a copy may multicast along `direction`.
    bool allowsMulticast(Multicast direction) const;
  }];
}

class MBarrier_PipeSideType<string name, string typeMnemonic>
    : TypeDef<MBarrier_Dialect, name> {
  let mnemonic = typeMnemonic;
  let parameters = (ins EnumParameter<MBarrier_PipeRole>:$role);
  let assemblyFormat = "`<` $role `>`";
}

def MBarrier_PipeStateType : MBarrier_PipeSideType<"PipeState", "pipe_state"> {
  let summary = "the position of one side of a pipeline (stage and phase)";
  let description = [{
    `!mbarrier.pipe_state<producer>` or `<consumer>`: how many slots this
    side of a pipeline has acquired (or waited on). The stage is that count
    modulo the depth and the phase parity the count divided by the depth,
    both derived by the lowering: the producer starts on phase parity 1 of
    the empty barriers (which a fresh barrier satisfies), the consumer on
    parity 0 of the full ones. `pipe.acquire` and `pipe.wait` return the
    next state. A state is taken (acquire, wait, tail, advance) at most
    once on every path and pipe, never once per trip of a loop it enters
    from outside: loops carry it. It lowers to `i32` (the count; with a
    depth that is not a power of two the count must stay below 2^32).

    Example:

    ```mlir
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    ```
  }];
}

def MBarrier_SlotType : MBarrier_PipeSideType<"Slot", "slot"> {
  let summary = "a stage acquired by the producer or waited on by a consumer";
  let description = [{
    `!mbarrier.slot<producer>` (from `pipe.acquire`) is committed exactly
    once on every path with `pipe.commit`; `!mbarrier.slot<consumer>` (from
    `pipe.wait`) is released exactly once on every path with
    `pipe.release`, and used only before that. scf.for, scf.if and
    scf.while may carry it; every op that takes it is on the pipe whose
    acquire or wait made it. It lowers to `index` (the stage).

    Example:

    ```mlir
    %s = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

defvar PipeRW = Arg<MBarrier_PipeType, "the pipeline", [MemRead, MemWrite]>;
defvar AnyPipeState = MBarrier_PipeStateType;
defvar AnySlot = MBarrier_SlotType;

// A state or slot of one side: the role is part of the type, so a producer
// op given a consumer state (or slot) is a type error at the operand.
class MBarrier_SideOf<string typeName, string role, string summary>
    : Type<And<[CPred<"::llvm::isa<::mlir::mbarrier::" # typeName # ">($_self)">,
                CPred<"::llvm::cast<::mlir::mbarrier::" # typeName #
                      ">($_self).getRole() == ::mlir::mbarrier::PipeRole::" # role>]>,
           summary>,
      BuildableType<"::mlir::mbarrier::" # typeName #
                    "::get($_builder.getContext(), ::mlir::mbarrier::PipeRole::" # role # ")">;
def MBarrier_ProducerState : MBarrier_SideOf<"PipeStateType", "producer",
    "a producer state (!mbarrier.pipe_state<producer>)">;
def MBarrier_ConsumerState : MBarrier_SideOf<"PipeStateType", "consumer",
    "a consumer state (!mbarrier.pipe_state<consumer>)">;
def MBarrier_ProducerSlot : MBarrier_SideOf<"SlotType", "producer",
    "a producer slot (!mbarrier.slot<producer>, from pipe.acquire)">;
def MBarrier_ConsumerSlot : MBarrier_SideOf<"SlotType", "consumer",
    "a consumer slot (!mbarrier.slot<consumer>, from pipe.wait)">;

def MBarrier_PipeCreateOp : MBarrier_Op<"pipe.create",
    [Pure, DeclareOpInterfaceMethods<MBarrier_BarrierOpInterface, ["getBarrierIndex"]>]> {
  let summary = "view a group of 2 x D barriers as a pipeline";
  let description = [{
    Makes a `!mbarrier.pipe` of depth D from a `!mbarrier.group<2D>` of this
    CTA: barriers `0..D-1` are the full barriers, `D..2D-1` the empty ones.
    Nothing is emitted; `mbarrier.pipe.init` initializes the barriers. In a
    kernel that declares its cluster shape, the pipe's `cluster = [X, Y]`
    must be that shape (with a depth of 1 in z).

    PTX ISA: "mbarrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier).

    Example:

    ```mlir
    %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins MBarrier_GroupType:$barriers);
  let results = (outs MBarrier_PipeType:$pipe);
  let assemblyFormat = "$barriers attr-dict `:` qualified(type($barriers)) `->` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeInitOp : MBarrier_Op<"pipe.init"> {
  let summary = "initialize every barrier of a pipeline with its derived count";
  let description = [{
    `mbarrier.init` of the D full barriers with `producers` and of the D
    empty barriers with `consumers` times the number of CTAs whose copies
    land in this CTA (`!mbarrier.pipe`). Executed by one thread of the
    owner CTA; in a cluster, follow it with `mbarrier.fence_init` and a
    cluster barrier before any other CTA may reach the pipe.

    PTX ISA: "mbarrier.init" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-init).

    Example:

    ```mlir
    mbarrier.pipe.init %p : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins PipeRW:$pipe);
  let assemblyFormat = "$pipe attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeStartOp : MBarrier_Op<"pipe.start", [Pure]> {
  let summary = "the first state of one side of a pipeline";
  let description = [{
    The state before the first `pipe.acquire` (producer) or `pipe.wait`
    (consumer): stage 0, where the producer waits for parity 1 of the
    empty barrier (complete on a fresh barrier) and the consumer for
    parity 0 of the full barrier.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    ```
  }];
  let results = (outs AnyPipeState:$state);
  let assemblyFormat = "attr-dict `:` qualified(type($state))";
  let hasVerifier = 1;
}

def MBarrier_PipeAdvanceOp : MBarrier_Op<"pipe.advance",
    [MBarrier_LinearUseOpInterface, Pure, AllTypesMatch<["state", "result"]>]> {
  let summary = "skip slots of one side of a pipeline";
  let description = [{
    The state `count` slots after `state`, for a side that skips stages (a
    consumer that starts late, a producer that resumes after another).
    `count` is unsigned.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %st2 = mbarrier.pipe.advance %st, %n : !mbarrier.pipe_state<consumer>
    ```
  }];
  let arguments = (ins AnyPipeState:$state, I32:$count);
  let extraClassDeclaration = MBarrier_TakesState;
  let results = (outs AnyPipeState:$result);
  let assemblyFormat = "$state `,` $count attr-dict `:` qualified(type($state))";
  let hasVerifier = 1;
}

class MBarrier_PipeEnterOp<string mnemonic, Type state, Type slot>
    : MBarrier_Op<mnemonic, [MBarrier_LinearUseOpInterface]> {
  let arguments = (ins PipeRW:$pipe, state:$state, Optional<I1>:$ready);
  let extraClassDeclaration = MBarrier_TakesState;
  let results = (outs slot:$slot, state:$next);
  let assemblyFormat = "$pipe `,` $state (`ready` $ready^)? attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeAcquireOp : MBarrier_PipeEnterOp<"pipe.acquire", MBarrier_ProducerState, MBarrier_ProducerSlot> {
  let summary = "producer: wait until a stage is empty and take it";
  let description = [{
    Waits on the empty barrier of the state's stage for the phase the
    state implies (`mbarrier.try_wait.parity` loop), and returns the slot
    and the next state. With `ready %r` (from `pipe.try_acquire` on the
    same state), the wait is skipped where `%r` is true. The slot must be
    committed exactly once on every path, with `pipe.commit`. Takes a
    producer state, which it uses up: take the next one.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<4, tma>
    ```
  }];
}

def MBarrier_PipeWaitOp : MBarrier_PipeEnterOp<"pipe.wait", MBarrier_ConsumerState, MBarrier_ConsumerSlot> {
  let summary = "consumer: wait until a stage is full and take it";
  let description = [{
    Waits on the full barrier of the state's stage for the phase the state
    implies, and returns the slot and the next state. With `ready %r` (from
    `pipe.try_wait`), the wait is skipped where `%r` is true. The slot must
    be released exactly once on every path, with `pipe.release`. Takes a
    consumer state, which it uses up: take the next one.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<4, tma>
    ```
  }];
}

class MBarrier_PipeTryOp<string mnemonic, Type state> : MBarrier_Op<mnemonic, [MBarrier_LinearUseOpInterface]> {
  let arguments = (ins PipeRW:$pipe, state:$state);
  let extraClassDeclaration = MBarrier_ReadsState;
  let results = (outs I1:$ready);
  let assemblyFormat = "$pipe `,` $state attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeTryAcquireOp : MBarrier_PipeTryOp<"pipe.try_acquire", MBarrier_ProducerState> {
  let summary = "producer: test once whether the state's stage is empty";
  let description = [{
    One `mbarrier.try_wait.parity` on the empty barrier of the state's
    stage; true when the stage is free. Pass the result to `pipe.acquire
    ... ready` to take the stage without a second wait (CUTLASS's
    `producer_try_acquire`). Does not advance the state.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %ok = mbarrier.pipe.try_acquire %p, %st : !mbarrier.pipe<4, tma>
    ```
  }];
}

def MBarrier_PipeTryWaitOp : MBarrier_PipeTryOp<"pipe.try_wait", MBarrier_ConsumerState> {
  let summary = "consumer: test once whether the state's stage is full";
  let description = [{
    One `mbarrier.try_wait.parity` on the full barrier of the state's
    stage; true when the stage is full. Pass the result to `pipe.wait ...
    ready` (CUTLASS's `consumer_try_wait`). Does not advance the state.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %ok = mbarrier.pipe.try_wait %p, %st : !mbarrier.pipe<4, tma>
    ```
  }];
}

def MBarrier_PipeCommitOp : MBarrier_Op<"pipe.commit", [MBarrier_LinearUseOpInterface, AttrSizedOperandSegments]> {
  let summary = "producer: hand a filled slot to the consumers";
  let description = [{
    Completes the producer's part of the slot's full barrier:
    - `tma`: `mbarrier.arrive.expect_tx` with `bytes`, the bytes that land
      in this CTA's stage in this phase (its own copies and those other CTAs
      multicast into it); the copies' complete-tx does the rest. Where the
      byte count and every copy into the slot are static, the verifier
      checks that they agree.
    - `arrive`: `mbarrier.arrive` (release, CTA scope); `bytes` is rejected.
    - `tcgen05`: `tcgen05.commit` of the thread's prior tcgen05 operations.
    `if %pred`: only where `%pred` is true. Consumes the slot.

    PTX ISA: "mbarrier.arrive" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins PipeRW:$pipe, MBarrier_ProducerSlot:$slot, Optional<I32>:$bytes,
                       Optional<I1>:$pred);
  let extraClassDeclaration = MBarrier_TakesSlot;
  let assemblyFormat = "$pipe `[` $slot `]` (`,` `bytes` $bytes^)? (`if` $pred^)? attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeReleaseOp : MBarrier_Op<"pipe.release", [MBarrier_LinearUseOpInterface]> {
  let summary = "consumer: give a slot back to every producer that fills it";
  let description = [{
    Arrives on the slot's empty barrier of every CTA whose copies land in
    this CTA's stage: the CTA itself for a pipe without multicast
    (`mbarrier.arrive`, release at CTA scope), else each CTA of the row,
    the column or both, through `mapa.shared::cluster` and the
    `shared::cluster` arrive.

    What a release publishes is the consumer's reads of its own stage (its
    CTA's `.shared::cta` memory), which the producers that refill the stage
    must not overtake. With multicast the lowering therefore emits one
    `fence.release.sync_restrict::shared::cta.cluster`, which orders exactly
    those accesses, then `.relaxed.cluster` arrivals (PTX 8.6); below PTX
    8.6, `.release.cluster` arrivals. A consumer that must also publish
    other writes to the producers fences them itself
    (`mbarrier.fence_release`).

    Each consumer agent releases once per slot: `if %pred` selects the
    thread that does (the fence and the arrivals are under it). Where the
    agent is a warp, order its other lanes' reads before that thread's
    release with `nvvm.bar.warp.sync`. Consumes the slot.

    PTX ISA: "mbarrier.arrive" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins PipeRW:$pipe, MBarrier_ConsumerSlot:$slot, Optional<I1>:$pred);
  let extraClassDeclaration = MBarrier_TakesSlot;
  let assemblyFormat = "$pipe `[` $slot `]` (`if` $pred^)? attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeTailOp : MBarrier_Op<"pipe.tail", [MBarrier_LinearUseOpInterface]> {
  let summary = "producer: wait until every stage has been released";
  let description = [{
    Acquires (waits on the empty barrier of) the next D stages after
    `state` without filling them: when it returns, every consumer of every
    CTA this one multicasts into has released every stage, so none of them
    will arrive on this CTA's barriers again. Call it before a producer CTA
    exits (CUTLASS's `producer_tail`).

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    mbarrier.pipe.tail %p, %st : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins PipeRW:$pipe, MBarrier_ProducerState:$state);
  let extraClassDeclaration = MBarrier_TakesState;
  let assemblyFormat = "$pipe `,` $state attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeStageOp : MBarrier_Op<"pipe.stage", [MBarrier_LinearUseOpInterface, Pure]> {
  let summary = "the stage index of a slot";
  let description = [{
    The index (0 to D-1) of the stage a slot holds, to address the stage's
    data buffer.

    PTX ISA: "mbarrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier).

    Example:

    ```mlir
    %s = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
    ```
  }];
  let arguments = (ins AnySlot:$slot);
  let extraClassDeclaration = MBarrier_ReadsSlot;
  let results = (outs Index:$stage);
  let assemblyFormat = "$slot attr-dict `:` qualified(type($slot))";
  let hasVerifier = 1;
}

def MBarrier_PipeFullPtrOp : MBarrier_Op<"pipe.full_ptr", [MBarrier_LinearUseOpInterface, Pure]> {
  let summary = "the address of a producer slot's full barrier";
  let description = [{
    The `.shared::cta` address of the full barrier of a producer slot, for
    upstream asynchronous copies that complete on it. Prefer
    `pipe.cp_async_bulk` and `pipe.cp_async_bulk_tensor`, whose bytes the
    verifier checks against `pipe.commit`.

    PTX ISA: "cp.async.bulk" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk).

    Example:

    ```mlir
    %bar = mbarrier.pipe.full_ptr %p[%slot] : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins MBarrier_PipeType:$pipe, MBarrier_ProducerSlot:$slot);
  let extraClassDeclaration = MBarrier_ReadsSlot;
  let results = (outs MBarrier_SharedPtr:$ptr);
  let assemblyFormat = "$pipe `[` $slot `]` attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeCpAsyncBulkOp : MBarrier_Op<"pipe.cp_async_bulk", [MBarrier_LinearUseOpInterface]> {
  let summary = "producer: a bulk copy from global memory into a slot";
  let description = [{
    `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`:
    copies `size` bytes (a multiple of 16) from `src` into this CTA's
    shared memory at `dst`, completing on the slot's full barrier.

    PTX ISA: "cp.async.bulk" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk).

    Example:

    ```mlir
    mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<4, tma>
    ```
  }];
  let arguments = (ins Arg<MBarrier_PipeType, "the pipeline", [MemRead, MemWrite]>:$pipe,
                       MBarrier_ProducerSlot:$slot,
                       Arg<MBarrier_SharedPtr, "destination", [MemWrite]>:$dst,
                       Arg<LLVM_PointerInAddressSpace<1>, "source", [MemRead]>:$src,
                       I32:$size);
  let extraClassDeclaration = MBarrier_ReadsSlot;
  let assemblyFormat = "$pipe `[` $slot `]` `,` $dst `,` $src `,` $size attr-dict `:` qualified(type($pipe))";
  let hasVerifier = 1;
}

def MBarrier_PipeCpAsyncBulkTensorOp : MBarrier_Op<"pipe.cp_async_bulk_tensor", [MBarrier_LinearUseOpInterface]> {
  let summary = "producer: a TMA tensor copy into a slot, optionally multicast";
  let description = [{
    `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`:
    loads the box at `coordinates` (PTX order: innermost dimension first) of
    the tensor that the descriptor at `tensor_map` describes into shared
    memory at `dst`, completing on the slot's full barrier. `bytes` states
    the box's size in bytes (what the tensor map's box holds; out-of-bounds
    elements count too).

    `multicast row` or `col` (one the pipe's `multicast` allows) adds
    `.multicast::cluster` with the CTA mask of this CTA's row or column:
    the box lands at `dst` and completes on the full barrier of every CTA
    of the mask. CTAs of a row (or column) then each load a different part
    of the tile, as CUTLASS does, so each receives `bytes` times the width
    of the row (or column).

    PTX ISA: "cp.async.bulk.tensor" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk-tensor).

    Example:

    ```mlir
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x, %y], bytes 4096 multicast row : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>, !llvm.ptr
    ```
  }];
  let arguments = (ins Arg<MBarrier_PipeType, "the pipeline", [MemRead, MemWrite]>:$pipe,
                       MBarrier_ProducerSlot:$slot,
                       Arg<MBarrier_SharedPtr, "destination", [MemWrite]>:$dst,
                       Arg<LLVM_AnyPointer, "the tensor map", [MemRead]>:$tensor_map,
                       Variadic<I32>:$coordinates,
                       ConfinedAttr<I32Attr, [IntMinValue<16>]>:$bytes,
                       OptionalAttr<MBarrier_MulticastAttr>:$multicast);
  let extraClassDeclaration = MBarrier_ReadsSlot;
  let assemblyFormat = [{
    $pipe `[` $slot `]` `,` $dst `,` $tensor_map `[` $coordinates `]` `,` `bytes` $bytes
    (`multicast` `` $multicast^)? attr-dict `:` qualified(type($pipe)) `,` type($tensor_map)
  }];
  let hasVerifier = 1;
}

#endif // MBARRIER_PIPE_TD
