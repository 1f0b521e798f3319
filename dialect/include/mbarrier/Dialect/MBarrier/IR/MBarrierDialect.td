//===- MBarrierDialect.td - the mbarrier dialect -----------*- tablegen -*-===//
#ifndef MBARRIER_DIALECT_TD
#define MBARRIER_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def MBarrier_Dialect : Dialect {
  let name = "mbarrier";
  let cppNamespace = "::mlir::mbarrier";
  let summary = "NVIDIA PTX mbarrier objects with barrier ownership in the IR";
  let description = [{
    The `mbarrier` dialect models PTX *mbarrier objects* (PTX ISA,
    "Parallel Synchronization and Communication Instructions: mbarrier").
    A `!mbarrier.group<N>` names N consecutive 8-byte barriers in the shared
    memory of the CTA that holds the value (the owner). A
    `!mbarrier.remote<N>` is a view of such a group owned by another CTA of
    the thread-block cluster: it keeps the owner-local pointer and the target
    CTA rank, so that arrivals through it lower to the `shared::cluster`
    instruction forms. Operations that only the owner may perform (init,
    wait, inval) are rejected on a remote view by the verifier.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

// Every mbarrier op executes on a thread: it must sit inside a function.
def MBarrier_InFunction : NativeOpTrait<"InFunction"> {
  let cppNamespace = "::mlir::mbarrier";
}

class MBarrier_Op<string mnemonic, list<Trait> traits = []>
    : Op<MBarrier_Dialect, mnemonic, !listconcat(traits, [MBarrier_InFunction])>;

#endif // MBARRIER_DIALECT_TD
