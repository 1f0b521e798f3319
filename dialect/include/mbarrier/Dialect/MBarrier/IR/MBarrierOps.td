//===- MBarrierOps.td - mbarrier operations ----------------*- tablegen -*-===//
//
// Every op: a one-line summary, a description with its PTX ISA section and an
// example that also appears in test/Dialect/ops.mlir.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_OPS_TD
#define MBARRIER_OPS_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierTypes.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierAttrs.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Pointers into .shared::cta (3) and .shared::cluster (7).
def MBarrier_SharedPtr : LLVM_PointerInAddressSpace<3>;
def MBarrier_SharedClusterPtr : LLVM_PointerInAddressSpace<7>;

// Attribute constraints ODS states itself (declarative first; the C++
// verifiers keep the rules that span operands).
def MBarrier_PhaseOffsetAttr : ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>;
def MBarrier_CtaGroupAttr : ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>;
def MBarrier_CtaRankAttr : ConfinedAttr<I32Attr, [IntNonNegative]>;

// A barrier operand that the op reads and writes (arrive, wait, init, ...):
// the effects keep such ops in order and out of CSE.
defvar BarrierRW = Arg<MBarrier_AnyBarrier, "the barrier group or remote view",
                       [MemRead, MemWrite]>;

//===----------------------------------------------------------------------===//
// Allocation and views
//===----------------------------------------------------------------------===//

def MBarrier_AllocOp : MBarrier_Op<"alloc"> {
  let summary = "allocate a group of mbarrier objects in static shared memory";
  let description = [{
    Reserves N consecutive 8-byte *mbarrier objects* in the `.shared::cta`
    memory of the executing CTA (a static `.shared .align 8` variable, one per
    `alloc`). The barriers must be initialized with `mbarrier.init` before use.
    Static shared memory is limited to 48 KiB per CTA: a larger group is
    rejected (place it in dynamic shared memory with `mbarrier.view`).

    PTX ISA: "Size and alignment of mbarrier object" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-size-alignment).

    Example:

    ```mlir
    %g = mbarrier.alloc : !mbarrier.group<2>
    ```
  }];
  let results = (outs Res<MBarrier_GroupType, "the new barrier group", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def MBarrier_ViewOp : MBarrier_Op<"view", [Pure]> {
  let summary = "view barriers inside a frontend's own shared-memory pool";
  let description = [{
    Interprets an 8-aligned `.shared::cta` pointer as a group of N mbarrier
    objects, so that a frontend can place barriers inside a shared-memory pool
    it manages itself.

    PTX ISA: "Size and alignment of mbarrier object" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-size-alignment).

    Example:

    ```mlir
    %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<2>
    ```
  }];
  let arguments = (ins MBarrier_SharedPtr:$ptr);
  let results = (outs MBarrier_GroupType:$result);
  let assemblyFormat = "$ptr attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))";
}

def MBarrier_RemoteViewOp : MBarrier_Op<"remote_view",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "view a barrier group as owned by another CTA of the cluster";
  let description = [{
    Makes a `!mbarrier.remote<N>` view of a group: the same owner-local
    barriers, as they sit in the shared memory of the CTA with the given rank
    in the cluster (`%cluster_ctarank`). The rank is either an `i32` SSA value
    or a static `cta_rank` attribute. Arrivals through the view use the
    `mapa.shared::cluster` + `shared::cluster` instruction forms; init, wait
    and inval through it are rejected, and so is a view of a view.

    PTX ISA: "mapa" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-mapa).

    Example:

    ```mlir
    %r = mbarrier.remote_view %g, %rank : !mbarrier.group<2>
    %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<2>
    ```
  }];
  let arguments = (ins MBarrier_AnyBarrier:$barriers, Optional<I32>:$rank,
                       OptionalAttr<MBarrier_CtaRankAttr>:$cta_rank);
  let results = (outs MBarrier_RemoteType:$result);
  let assemblyFormat = [{
    $barriers `,` ($rank^) : (`cta_rank` $cta_rank)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def MBarrier_PtrOp : MBarrier_Op<"ptr", [Pure, MBarrier_BarrierOpInterface]> {
  let summary = "the address of one barrier, for ops that consume a pointer";
  let description = [{
    Returns the address of barrier `index` of a group as a `.shared::cta`
    pointer (`!llvm.ptr<3>`), or, for a remote view, its address in the
    target CTA's shared memory as a `.shared::cluster` pointer
    (`!llvm.ptr<7>`, through `mapa.shared::cluster`). Use it to hand a
    barrier to operations such as `cp.async.bulk` that complete on it.

    PTX ISA: "mapa" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-mapa).

    Example:

    ```mlir
    %p = mbarrier.ptr %g[%i] : !mbarrier.group<2> -> !llvm.ptr<3>
    %q = mbarrier.ptr %r[%i] : !mbarrier.remote<2> -> !llvm.ptr<7>
    ```
  }];
  let arguments = (ins MBarrier_AnyBarrier:$barriers, Index:$index);
  let results = (outs AnyTypeOf<[MBarrier_SharedPtr, MBarrier_SharedClusterPtr]>:$result);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Owner-only operations: init, fence_init, inval
//===----------------------------------------------------------------------===//

def MBarrier_InitOp : MBarrier_Op<"init", [MBarrier_BarrierOpInterface]> {
  let summary = "initialize one mbarrier object with an expected arrival count";
  let description = [{
    Initializes barrier `index` of the group: phase 0, expected and pending
    arrival count `count` (1 to 2^20-1), tx-count 0. Only the owning CTA may
    initialize a barrier: init through a remote view is rejected.

    PTX ISA: "mbarrier.init" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-init).

    Example:

    ```mlir
    mbarrier.init %g[%i], %count : !mbarrier.group<2>
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index, I32:$count);
  let assemblyFormat = "$barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def MBarrier_FenceInitOp : MBarrier_Op<"fence_init"> {
  let summary = "make prior mbarrier.init visible to the cluster";
  let description = [{
    `fence.mbarrier_init.release.cluster`: orders the preceding
    `mbarrier.init` operations of this thread before later arrivals by other
    CTAs of the cluster (pair it with a cluster barrier).

    PTX ISA: "membar/fence" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-membar).

    Example:

    ```mlir
    mbarrier.fence_init
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def MBarrier_FenceReleaseOp : MBarrier_Op<"fence_release"> {
  let summary = "a release fence at cluster scope, for relaxed arrivals that follow";
  let description = [{
    `fence.release.cluster` (PTX 8.6, sm_90): a release fence of the
    executing thread at cluster scope. By the PTX memory consistency model a
    release fence followed in program order by a strong write (here an
    arrive with `sem = relaxed`, `scope = cluster`) is a *release pattern*,
    which orders every access of the thread before the fence before the
    wait that observes the arrival. One fence therefore serves any number of
    `.relaxed.cluster` arrivals that follow it with no memory access in
    between: that is the rewrite of `mbarrier-merge-release-fences`
    (docs/fence-merging.md), which inserts this op.

    `shared_cta`: `fence.release.sync_restrict::shared::cta.cluster` (PTX
    8.6): the fence orders only the thread's prior accesses to its own CTA's
    shared memory (`.shared::cta`). It suffices where nothing else needs to
    be published, as in a consumer that read a stage of its own shared
    memory and releases it to producers in other CTAs; it does not publish
    global memory, nor writes into another CTA's shared memory. It is never
    inferred: write it where that is known.

    PTX ISA: "membar/fence" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-membar).

    Example:

    ```mlir
    mbarrier.fence_release
    mbarrier.fence_release shared_cta
    ```
  }];
  let arguments = (ins UnitAttr:$shared_cta);
  let assemblyFormat = "(`shared_cta` $shared_cta^)? attr-dict";
}

def MBarrier_InvalOp : MBarrier_Op<"inval", [MBarrier_BarrierOpInterface]> {
  let summary = "invalidate one mbarrier object";
  let description = [{
    Invalidates barrier `index` so that its memory can be reused or the
    barrier re-initialized. Only the owning CTA may invalidate a barrier.

    PTX ISA: "mbarrier.inval" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-inval).

    Example:

    ```mlir
    mbarrier.inval %g[%i] : !mbarrier.group<2>
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Arrivals
//===----------------------------------------------------------------------===//

class MBarrier_ArriveBase<string mnemonic, dag extraArgs, string extraFormat>
    : MBarrier_Op<mnemonic, [AttrSizedOperandSegments,
        DeclareOpInterfaceMethods<MBarrier_BarrierOpInterface,
                                  ["getBarrierTarget", "getBarrierPredicate"]>,
        MBarrier_ArrivalOpInterface]> {
  let arguments = !con((ins BarrierRW:$barriers, Index:$index), extraArgs,
      (ins Optional<I32>:$count, Optional<I32>:$cta_id, Optional<I1>:$pred,
           OptionalAttr<MBarrier_SemanticsAttr>:$sem,
           OptionalAttr<MBarrier_ScopeAttr>:$scope));
  let assemblyFormat = "$barriers `[` $index `]` " # extraFormat #
      "(`,` `count` $count^)? (`on` $cta_id^)? (`if` $pred^)? attr-dict `:` type($barriers)";
  let hasVerifier = 1;
  code extraBaseClassDeclaration = [{
    /// True when the arrival targets another CTA's barrier: through a remote
    /// view, or with `on %cta`. Such arrivals use the shared::cluster form.
    bool isClusterForm() {
      return getCtaId() || ::llvm::isa<RemoteType>(getBarriers().getType());
    }
    /// The `.sem` to emit: the attribute, else release.
    Semantics getEffectiveSem() {
      return getSem().value_or(Semantics::release);
    }
    /// The `.scope` to emit: the attribute, else cluster for cluster-form
    /// arrivals and cta for local ones.
    Scope getEffectiveScope() {
      return getScope().value_or(isClusterForm() ? Scope::cluster : Scope::cta);
    }
  }];
  let extraClassDeclaration = extraBaseClassDeclaration;
}

def MBarrier_ArriveOp : MBarrier_ArriveBase<"arrive", (ins), ""> {
  let summary = "arrive on one mbarrier object (local or cluster form)";
  let description = [{
    Performs an arrive-on operation on barrier `index`, decrementing the
    pending arrival count by `count` (default 1).

    - On a `!mbarrier.group` with no `on`: the local form
      `mbarrier.arrive{.sem}{.scope}.shared::cta.b64`.
    - Through a `!mbarrier.remote` view, or with `on %cta`: the cluster form,
      `mapa.shared::cluster` then
      `mbarrier.arrive{.sem}{.scope}.shared::cluster.b64 _, [addr]{, count}`.
      A view already fixes its target, so `on` is rejected on a view.
    - `if %pred`: the arrival happens only where `%pred` is true.

    `sem` is `release` (default) or `relaxed` (PTX 8.6); `scope` defaults to
    `cta` for local arrivals and `cluster` for cluster-form ones, which is
    the form the PTX memory model makes correct for cross-CTA
    synchronization (the waits of a cluster kernel default to the matching
    `.acquire.cluster`). On an H200 a `.release.cluster` remote arrival
    costs about 2.9x the round trip of the `relaxed` form (414 vs 143
    cycles, BENCHMARKS.md): choose the weaker form explicitly, and only where
    nothing needs publishing or a fence does it.

    PTX ISA: "mbarrier.arrive" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.arrive %g[%i] : !mbarrier.group<2>
    mbarrier.arrive %g[%i], count %c : !mbarrier.group<2>
    mbarrier.arrive %g[%i] on %cta : !mbarrier.group<2>
    mbarrier.arrive %g[%i] on %cta if %pred : !mbarrier.group<2>
    mbarrier.arrive %r[%i] : !mbarrier.remote<2>
    mbarrier.arrive %r[%i] {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.remote<2>
    ```
  }];
}

def MBarrier_ArriveExpectTxOp
    : MBarrier_ArriveBase<"arrive_expect_tx", (ins I32:$bytes), "`,` $bytes "> {
  let summary = "expect-tx then arrive on one mbarrier object";
  let description = [{
    Performs an expect-tx operation (adds `bytes`, 0 to 2^20-1, to the
    tx-count of the current phase) followed by an arrive-on operation on
    barrier `index`. Takes the same `count`, `on` and `if` options and
    `sem`/`scope` attributes as `mbarrier.arrive`, with the same local and
    cluster forms (`mbarrier.arrive.expect_tx{.sem}{.scope}.shared::cluster.b64`
    through a remote view). PTX's `arrive.expect_tx` has no count operand:
    with `count`, the lowering emits `mbarrier.expect_tx` then
    `mbarrier.arrive` with that count.

    PTX ISA: "mbarrier.arrive" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.arrive_expect_tx %g[%i], %bytes : !mbarrier.group<2>
    mbarrier.arrive_expect_tx %r[%i], %bytes : !mbarrier.remote<2>
    ```
  }];
}

def MBarrier_ExpectTxOp : MBarrier_Op<"expect_tx", [MBarrier_BarrierOpInterface]> {
  let summary = "add expected transaction bytes to the current phase";
  let description = [{
    Increases the tx-count of barrier `index` by `bytes` (0 to 2^20-1)
    without arriving. Through a remote view it uses the `.shared::cluster`
    form. PTX defines it as `.relaxed` only; `scope` defaults to `cta`
    locally and `cluster` through a view.

    PTX ISA: "mbarrier.expect_tx" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-expect-tx).

    Example:

    ```mlir
    mbarrier.expect_tx %g[%i], %bytes : !mbarrier.group<2>
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index, I32:$bytes,
                       OptionalAttr<MBarrier_SemanticsAttr>:$sem,
                       OptionalAttr<MBarrier_ScopeAttr>:$scope);
  let assemblyFormat = "$barriers `[` $index `]` `,` $bytes attr-dict `:` type($barriers)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The `.scope` to emit: the attribute, else cluster through a remote
    /// view and cta locally.
    Scope getEffectiveScope() {
      return getScope().value_or(::llvm::isa<RemoteType>(getBarriers().getType())
                                     ? Scope::cluster : Scope::cta);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Waits
//===----------------------------------------------------------------------===//

// `extraArgs`/`extraFormat`: the suspend-time hint of the try_wait forms
// (MBarrier_SuspendTimeArgs).
class MBarrier_WaitBase<string mnemonic, dag resultDag, string resultFormat,
                        dag extraArgs = (ins), string extraFormat = "">
    : MBarrier_Op<mnemonic, [MBarrier_BarrierOpInterface, MBarrier_WaitOpInterface]> {
  let arguments = !con((ins BarrierRW:$barriers, Index:$index, I32:$phase),
                       extraArgs,
                       (ins DefaultValuedAttr<MBarrier_PhaseOffsetAttr, "0">:$phase_offset,
                            OptionalAttr<MBarrier_SemanticsAttr>:$sem,
                            OptionalAttr<MBarrier_ScopeAttr>:$scope));
  let results = resultDag;
  let assemblyFormat = "$barriers `[` $index `]` `,` $phase " # extraFormat #
      "attr-dict `:` type($barriers)" # resultFormat;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The `.scope` to emit: the attribute, else the default of
    /// `getDefaultWaitScope` (cluster in a cluster kernel, else cta).
    Scope getEffectiveScope() {
      // Not value_or: the default walks the function, only when needed.
      if (std::optional<Scope> scope = getScope())
        return *scope;
      return getDefaultWaitScope(getOperation());
    }
  }];
}

// `suspend_time %t` (i32, ns): the suspendTimeHint operand of
// `mbarrier.try_wait` (PTX ISA 7.8, sm_90), the most time the thread may be
// suspended waiting in one try before the try returns false.
defvar MBarrier_SuspendTimeArgs = (ins Optional<I32>:$suspend_time);
defvar MBarrier_SuspendTimeFormat = "(`suspend_time` $suspend_time^)? ";

def MBarrier_WaitOp : MBarrier_WaitBase<"wait", (outs), "",
    MBarrier_SuspendTimeArgs, MBarrier_SuspendTimeFormat> {
  let summary = "block until the phase with the given parity has completed";
  let description = [{
    Waits on barrier `index` for the completion of the phase whose parity is
    `phase ^ phase_offset` (0 or 1): a loop around
    `mbarrier.try_wait.parity{.sem}{.scope}.shared::cta.b64`. `sem` is
    `acquire` (default) or `relaxed`. Only the owning CTA may wait: a wait
    through a remote view is rejected.

    Default `scope`: `cluster` in a function that declares a cluster of more
    than one CTA (`known_cluster_size`, `nvvm.cluster_dim`) or that makes a
    remote arrival (`remote_view`, `on %cta`, a multicast or 2-CTA
    `tcgen05_commit`), and in a non-kernel function of a module where some
    function does; `cta` otherwise. By the PTX memory consistency model a
    `.cta` acquire is not morally strong with a `.release.cluster` arrival
    from another CTA, so only the cluster-scope acquire makes the data that
    CTA wrote before arriving visible after the wait. `try_wait` and
    `test_wait` take the same default.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    mbarrier.wait %g[%i], %phase : !mbarrier.group<2>
    mbarrier.wait %g[%i], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
    mbarrier.wait %g[%i], %phase suspend_time %t : !mbarrier.group<2>
    ```
  }];
}

def MBarrier_TryWaitOp : MBarrier_WaitBase<"try_wait", (outs I1:$ready), "",
    MBarrier_SuspendTimeArgs, MBarrier_SuspendTimeFormat> {
  let summary = "one potentially blocking test for phase completion";
  let description = [{
    One `mbarrier.try_wait.parity` on barrier `index` for the phase with
    parity `phase ^ phase_offset`: returns true once that phase completed,
    false when the hardware time limit passed first, or, with
    `suspend_time %t` (`i32`, nanoseconds), once the thread was suspended
    for about `%t` (the instruction's `suspendTimeHint`). Same `sem`/`scope`
    as `mbarrier.wait`; rejected through a remote view.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %ok = mbarrier.try_wait %g[%i], %phase : !mbarrier.group<2>
    %ok2 = mbarrier.try_wait %g[%i], %phase suspend_time %t : !mbarrier.group<2>
    ```
  }];
}

def MBarrier_TestWaitOp : MBarrier_WaitBase<"test_wait", (outs I1:$ready), ""> {
  let summary = "a non-blocking test for phase completion";
  let description = [{
    `mbarrier.test_wait.parity` on barrier `index` for the phase with parity
    `phase ^ phase_offset`: returns at once whether that phase has
    completed. Same `sem`/`scope` as `mbarrier.wait`; rejected through a
    remote view.

    PTX ISA: "mbarrier.test_wait/mbarrier.try_wait" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait).

    Example:

    ```mlir
    %ok = mbarrier.test_wait %g[%i], %phase : !mbarrier.group<2>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// tcgen05
//===----------------------------------------------------------------------===//

def MBarrier_Tcgen05CommitOp : MBarrier_Op<"tcgen05_commit",
    [DeclareOpInterfaceMethods<MBarrier_BarrierOpInterface, ["getBarrierTarget"]>]> {
  let summary = "arrive on a barrier when prior tcgen05 operations complete (sm_100a)";
  let description = [{
    `tcgen05.commit.cta_group::{1,2}.mbarrier::arrive::one.shared::cluster.b64`:
    makes barrier `index` track the completion of the executing thread's
    prior asynchronous tcgen05 operations. With `multicast %mask` (`i16`), the
    arrival is signalled on the barrier at the same offset in every CTA
    whose bit is set in the mask. `cta_group` is 1 (default) or 2.

    With `cta_group = 2` the barrier may be a remote view: the pair's MMA
    signals the leader CTA's barrier (CUTLASS's `umma_arrive_2x1SM`); the
    address is mapped with `mapa.shared::cluster` and passed as a generic
    address. With `cta_group = 1` a remote view is rejected: signal other
    CTAs with the multicast mask.

    Chips: NVVM accepts `tcgen05.commit` on sm_100a and sm_101a only (its
    `NVVMRequiresSMa<[100, 101]>`); any other target is a located error.

    PTX ISA: "tcgen05.commit" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#tcgen05-instructions-tcgen05-commit).

    Example:

    ```mlir
    mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<2>
    mbarrier.tcgen05_commit %g[%i] multicast %mask {cta_group = 2 : i32} : !mbarrier.group<2>
    mbarrier.tcgen05_commit %r[%i] {cta_group = 2 : i32} : !mbarrier.remote<2>
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index, Optional<I16>:$mask,
                       DefaultValuedAttr<MBarrier_CtaGroupAttr, "1">:$cta_group);
  let assemblyFormat = "$barriers `[` $index `]` (`multicast` $mask^)? attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

include "mbarrier/Dialect/MBarrier/IR/MBarrierPipe.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierOrderedSeq.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierRaisedOps.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierNamedBarrier.td"

#endif // MBARRIER_OPS_TD
