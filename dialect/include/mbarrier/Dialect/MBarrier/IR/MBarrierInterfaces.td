//===- MBarrierInterfaces.td - the barrier op interfaces ---*- tablegen -*-===//
#ifndef MBARRIER_INTERFACES_TD
#define MBARRIER_INTERFACES_TD

include "mlir/IR/OpBase.td"

def MBarrier_BarrierOpInterface : OpInterface<"MBarrierOpInterface"> {
  let cppNamespace = "::mlir::mbarrier";
  let description = [{
    An op that touches one barrier object: `barriers[index]` of a group or a
    remote view, or (with no index) that names a whole group
    (`mbarrier.pipe.create`, whose barriers the pipe ops touch once
    `mbarrier-lower-pipes` has made barrier ops of them). The analyses, the
    fence pass and the lowering ask this interface which barrier an op
    touches, in which CTA, and under which predicate, instead of listing
    ops.

    The CTA it touches (`getBarrierTarget`) is the executing CTA for a
    local group, the view's rank through a `remote_view`, the `on %cta`
    rank, or each CTA of a multicast mask; `reachesAnotherCTA` is the one
    definition of an access that may reach another CTA's barrier: an op
    with memory effects whose target is not the executing CTA. An op
    without memory effects only computes an address (`mbarrier.ptr` of a
    remote view): it reaches nothing itself, and the op that uses the
    address (a multicast or cluster bulk copy) is the access.
  }];
  let methods = [
    InterfaceMethod<"The barrier group or remote view operand.",
      "::mlir::Value", "getBarrierGroup", (ins), [{}],
      [{ return $_op.getBarriers(); }]>,
    InterfaceMethod<[{The index of the barrier within the group (null: the
      op names the whole group, not one barrier).}],
      "::mlir::Value", "getBarrierIndex", (ins), [{}],
      [{ return $_op.getIndex(); }]>,
    InterfaceMethod<[{The CTA (or CTAs) whose barrier the op touches.}],
      "::mlir::mbarrier::BarrierTarget", "getBarrierTarget", (ins), [{}],
      [{ return ::mlir::mbarrier::BarrierTarget::of($_op.getBarriers()); }]>,
    InterfaceMethod<[{The `if %pred` operand: the op acts only where it holds
      (null: unconditionally).}],
      "::mlir::Value", "getBarrierPredicate", (ins), [{}],
      [{ return {}; }]>,
  ];
  let extraSharedClassDeclaration = [{
    /// Whether the op may touch a barrier of another CTA than the executing
    /// one (a remote view, `on %cta`, a multicast mask). An op without
    /// memory effects (mbarrier.ptr) only forms an address: the op that
    /// uses it is the access.
    bool reachesAnotherCTA() {
      return !::mlir::isMemoryEffectFree($_op.getOperation()) &&
             $_op.getBarrierTarget().kind !=
                 ::mlir::mbarrier::BarrierTarget::Kind::Local;
    }
  }];
}

def MBarrier_ArrivalOpInterface : OpInterface<"MBarrierArrivalOpInterface",
    [MBarrier_BarrierOpInterface]> {
  let cppNamespace = "::mlir::mbarrier";
  let description = [{
    An arrive-on operation (`arrive`, `arrive_expect_tx`): its count and the
    memory order it is emitted with.
  }];
  let methods = [
    InterfaceMethod<"The `count` operand (null: 1).",
      "::mlir::Value", "getArrivalCount", (ins), [{}],
      [{ return $_op.getCount(); }]>,
    InterfaceMethod<"The `.sem` it is emitted with.",
      "::mlir::mbarrier::Semantics", "getEffectiveSem", (ins)>,
    InterfaceMethod<"The `.scope` it is emitted with.",
      "::mlir::mbarrier::Scope", "getEffectiveScope", (ins)>,
    InterfaceMethod<"Sets `sem` and `scope`.",
      "void", "setOrder",
      (ins "::mlir::mbarrier::Semantics":$sem, "::mlir::mbarrier::Scope":$scope),
      [{}], [{
        $_op.setSemAttr(::mlir::mbarrier::SemanticsAttr::get($_op.getContext(), sem));
        $_op.setScopeAttr(::mlir::mbarrier::ScopeAttr::get($_op.getContext(), scope));
      }]>,
  ];
}

def MBarrier_WaitOpInterface : OpInterface<"MBarrierWaitOpInterface",
    [MBarrier_BarrierOpInterface]> {
  let cppNamespace = "::mlir::mbarrier";
  let description = [{
    A wait on the completion of a phase (`wait`, `try_wait`, `test_wait`):
    the parity it waits for and the memory order of its acquire. The
    target checks, the default-scope pass and the analyses ask this
    interface instead of listing the three ops.
  }];
  let methods = [
    InterfaceMethod<"The `phase` operand (its parity is waited for, xor `phase_offset`).",
      "::mlir::Value", "getPhase">,
    InterfaceMethod<"The `sem` attribute (none: acquire).",
      "std::optional<::mlir::mbarrier::Semantics>", "getSem">,
    InterfaceMethod<"The `scope` attribute (none: the default of getDefaultWaitScope).",
      "std::optional<::mlir::mbarrier::Scope>", "getScope">,
    InterfaceMethod<"Sets the `scope` attribute.",
      "void", "setScope", (ins "std::optional<::mlir::mbarrier::Scope>":$scope)>,
    InterfaceMethod<"The `.scope` it is emitted with: the attribute, else the default.",
      "::mlir::mbarrier::Scope", "getEffectiveScope">,
  ];
  let extraSharedClassDeclaration = [{
    /// The `.sem` it is emitted with: the attribute, else acquire.
    ::mlir::mbarrier::Semantics getEffectiveSem() {
      return $_op.getSem().value_or(::mlir::mbarrier::Semantics::acquire);
    }
  }];
}

def MBarrier_NamedBarrierUseOpInterface : OpInterface<"NamedBarrierUseOpInterface"> {
  let cppNamespace = "::mlir::mbarrier";
  let description = [{
    A use of a named barrier (`bar_sync`, `bar_arrive`, `bar_red`): the
    declaration its symbol names, the hardware id that declaration has
    (explicit, or what `mbarrier-allocate-named-barriers` assigned) and the
    threads it counts. The lowering asks this interface instead of listing
    the three ops.
  }];
  let methods = [
    InterfaceMethod<"The `barrier` symbol.",
      "::mlir::FlatSymbolRefAttr", "getBarrierAttr">,
    InterfaceMethod<"The threads the barrier counts (`threads N`).",
      "uint32_t", "getThreads">,
    InterfaceMethod<[{The `mbarrier.named_barrier` the symbol names (null
      where it resolves to none; the op's own getDeclaration() is typed).}],
      "::mlir::Operation *", "getDeclarationOp", (ins), [{
        return $_op.getDeclaration();
      }]>,
    InterfaceMethod<"The hardware id of the declaration, once it has one.",
      "std::optional<uint32_t>", "getHardwareId">,
  ];
}

def MBarrier_LinearUseOpInterface : OpInterface<"LinearUseOpInterface"> {
  let cppNamespace = "::mlir::mbarrier";
  let description = [{
    An op that uses a linear value of a pipe or an ordered sequence (a
    state, a slot, a turn): the operand whose value it takes (the value is
    spent: the pipe verifier's linearity walk, PipeLinearity.cpp, checks it
    is taken exactly once on every path) and the one it only reads (a
    try, a copy into the slot's stage, the stage's address). The walk asks
    this interface instead of listing ops and operand numbers.
  }];
  let methods = [
    InterfaceMethod<"The operand whose linear value the op takes (null: none).",
      "::mlir::OpOperand *", "getTakenOperand">,
    InterfaceMethod<"The operand whose linear value the op reads, not taking it (null: none).",
      "::mlir::OpOperand *", "getReadOperand">,
  ];
}

// How an op uses a linear value (LinearUseOpInterface): the operand it takes
// and the one it only reads.
class MBarrier_LinearUse<string taken, string read> {
  code linearUse = "::mlir::OpOperand *getTakenOperand() { return " # taken #
      "; }\n::mlir::OpOperand *getReadOperand() { return " # read # "; }";
}
defvar MBarrier_TakesState = MBarrier_LinearUse<"&getStateMutable()", "nullptr">.linearUse;
defvar MBarrier_ReadsState = MBarrier_LinearUse<"nullptr", "&getStateMutable()">.linearUse;
defvar MBarrier_TakesSlot = MBarrier_LinearUse<"&getSlotMutable()", "nullptr">.linearUse;
defvar MBarrier_ReadsSlot = MBarrier_LinearUse<"nullptr", "&getSlotMutable()">.linearUse;
defvar MBarrier_TakesTurn = MBarrier_LinearUse<"&getTurnMutable()", "nullptr">.linearUse;

#endif // MBARRIER_INTERFACES_TD
