//===- MBarrierAttrs.td - memory-order attributes ----------*- tablegen -*-===//
#ifndef MBARRIER_ATTRS_TD
#define MBARRIER_ATTRS_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"
include "mlir/IR/EnumAttr.td"

// The `.sem` qualifier of the PTX mbarrier instructions.
def MBarrier_SemRelease : I32EnumAttrCase<"release", 0>;
def MBarrier_SemAcquire : I32EnumAttrCase<"acquire", 1>;
def MBarrier_SemRelaxed : I32EnumAttrCase<"relaxed", 2>;
def MBarrier_Semantics : I32EnumAttr<"Semantics",
    "memory semantics of an mbarrier operation (PTX .sem)",
    [MBarrier_SemRelease, MBarrier_SemAcquire, MBarrier_SemRelaxed]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mbarrier";
}
def MBarrier_SemanticsAttr : EnumAttr<MBarrier_Dialect, MBarrier_Semantics, "sem"> {
  let assemblyFormat = "`<` $value `>`";
}

// The `.scope` qualifier of the PTX mbarrier instructions.
def MBarrier_ScopeCTA : I32EnumAttrCase<"cta", 0>;
def MBarrier_ScopeCluster : I32EnumAttrCase<"cluster", 1>;
def MBarrier_Scope : I32EnumAttr<"Scope",
    "the set of threads that observe the synchronizing effect (PTX .scope)",
    [MBarrier_ScopeCTA, MBarrier_ScopeCluster]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mbarrier";
}
def MBarrier_ScopeAttr : EnumAttr<MBarrier_Dialect, MBarrier_Scope, "scope"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // MBARRIER_ATTRS_TD
