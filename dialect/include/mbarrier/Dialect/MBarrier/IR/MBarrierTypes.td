//===- MBarrierTypes.td - mbarrier types -------------------*- tablegen -*-===//
#ifndef MBARRIER_TYPES_TD
#define MBARRIER_TYPES_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"

class MBarrier_Type<string name, string typeMnemonic>
    : TypeDef<MBarrier_Dialect, name> {
  let mnemonic = typeMnemonic;
  let parameters = (ins "unsigned":$depth);
  // `<` N `>`, N parsed as written (signed, 64-bit) and checked before it is
  // narrowed, so that a negative or huge count is reported as written.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def MBarrier_GroupType : MBarrier_Type<"Group", "group"> {
  let summary = "N consecutive mbarrier objects in the owner CTA's shared memory";
  let description = [{
    `!mbarrier.group<N>` is N consecutive 8-byte, 8-aligned *mbarrier
    objects* in the `.shared::cta` memory of the CTA that holds the value.
    It lowers to `!llvm.ptr<3>` (a pointer to the first barrier).

    Example:

    ```mlir
    %g = mbarrier.alloc : !mbarrier.group<2>
    ```
  }];
}

def MBarrier_RemoteType : MBarrier_Type<"Remote", "remote"> {
  let summary = "a view of a barrier group owned by another CTA of the cluster";
  let description = [{
    `!mbarrier.remote<N>` is a view of a `!mbarrier.group<N>` owned by
    another CTA of the thread-block cluster. It carries the owner-local
    (`.shared::cta`) pointer and the target CTA rank; arrivals through it
    become `mapa.shared::cluster` + `mbarrier.arrive*.shared::cluster.b64`.
    It lowers to the pair (`!llvm.ptr<3>`, `i32`).

    Example:

    ```mlir
    %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<2>
    ```
  }];
}

def MBarrier_AnyBarrier : AnyTypeOf<[MBarrier_GroupType, MBarrier_RemoteType],
                                    "mbarrier group or remote view">;

#endif // MBARRIER_TYPES_TD
