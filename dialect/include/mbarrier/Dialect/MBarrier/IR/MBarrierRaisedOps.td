//===- MBarrierRaisedOps.td - arrive.noComplete, tensor copies -*- tablegen -*-===//
//
// PTX forms that upstream's nvgpu dialect has and the rest of this dialect
// did not: the no-complete arrive and a TMA tensor load that completes on a
// barrier of a group (with the bytes it delivers, so that the checker can
// count them). `mbarrier-raise-nvgpu` raises nvgpu code into them; they are
// ordinary ops of the dialect, written by hand as well.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_RAISED_OPS_TD
#define MBARRIER_RAISED_OPS_TD

def MBarrier_ArriveNoCompleteOp : MBarrier_Op<"arrive_nocomplete",
    [MBarrier_BarrierOpInterface]> {
  let summary = "an arrive-on operation that must not complete the phase";
  let description = [{
    `mbarrier.arrive.noComplete.release.cta.shared::cta.b64`: decrements the
    pending arrival count of barrier `index` by `count` (1 to 2^20-1), on
    the condition that this does not complete the current phase: an
    arrival that brings the pending count to zero is undefined behaviour
    (PTX ISA). Use it for the arrivals of a phase that are known not to be
    the last (the last arrival is then an `mbarrier.arrive`).

    PTX defines only the local, `.release.cta` form: no `sem`, `scope`,
    `on %cta` or remote view (rejected: `cannot arrive without completing
    through a remote view`). The checker counts its arrivals like those of
    `mbarrier.arrive`.

    PTX ISA: "mbarrier.arrive" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier-arrive).

    Example:

    ```mlir
    mbarrier.arrive_nocomplete %g[%i], %count : !mbarrier.group<2>
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index, I32:$count);
  let assemblyFormat = "$barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def MBarrier_CpAsyncBulkTensorOp : MBarrier_Op<"cp_async_bulk_tensor",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<MBarrier_BarrierOpInterface,
                               ["getBarrierTarget", "getBarrierPredicate"]>]> {
  let summary = "a TMA tensor load that completes on a barrier, with its bytes";
  let description = [{
    `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`:
    loads the box at `coordinates` (PTX order: innermost dimension first, 1
    to 5 of them) of the tensor that the tensor map at `tensor_map`
    describes into this CTA's shared memory at `dst`, and performs a
    complete-tx of the box's size on barrier `index` of the group.

    `bytes` is that size: the bytes the box holds (out-of-bounds elements
    count too), a multiple of 16, at most 2^20-1. It is stated in the IR so
    that `mbarrier-check-sync` can compare it with the bytes an
    `arrive_expect_tx` expects (class 6); `mbarrier-raise-nvgpu` takes it
    from the box of the `!nvgpu.tensormap.descriptor` type. A wrong `bytes`
    does not change the copy (the hardware uses the tensor map), only what
    the checker counts.

    `multicast %mask` (`i16`) adds `.multicast::cluster`: the box lands at
    `dst` and completes on the barrier at the same offset in every CTA whose
    bit is set in the mask. `if %pred`: the copy is issued only where
    `%pred` holds.

    PTX ISA: "cp.async.bulk.tensor" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk-tensor).

    Example:

    ```mlir
    mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x, %y], bytes 2048 : !mbarrier.group<2>, !llvm.ptr
    mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x, %y], bytes 2048 multicast %mask if %pred : !mbarrier.group<2>, !llvm.ptr
    ```
  }];
  let arguments = (ins BarrierRW:$barriers, Index:$index,
                       Arg<MBarrier_SharedPtr, "destination", [MemWrite]>:$dst,
                       Arg<LLVM_AnyPointer, "the tensor map", [MemRead]>:$tensor_map,
                       Variadic<I32>:$coordinates,
                       Optional<I16>:$mask, Optional<I1>:$pred,
                       ConfinedAttr<I32Attr, [IntMinValue<16>]>:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $dst `,` $tensor_map `[` $coordinates `]` `,` `bytes` $bytes
    (`multicast` $mask^)? (`if` $pred^)? attr-dict `:` type($barriers) `,` type($tensor_map)
  }];
  let hasVerifier = 1;
}

#endif // MBARRIER_RAISED_OPS_TD
