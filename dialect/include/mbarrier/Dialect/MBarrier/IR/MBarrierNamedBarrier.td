//===- MBarrierNamedBarrier.td - CTA named barriers --------*- tablegen -*-===//
//
// The sixteen hardware barriers of a CTA (`bar.sync` / `bar.arrive` /
// `bar.red`), named: a declaration gives a barrier a symbol, with an explicit
// hardware id or one that `mbarrier-allocate-named-barriers` assigns; the
// sync, arrive and red ops name the symbol and the number of threads that
// take part. Every op: a summary, its PTX ISA section and an example that
// also appears in test/Dialect/named-barrier-ops.mlir.
//
//===----------------------------------------------------------------------===//
#ifndef MBARRIER_NAMED_BARRIER_TD
#define MBARRIER_NAMED_BARRIER_TD

include "mbarrier/Dialect/MBarrier/IR/MBarrierDialect.td"
include "mlir/IR/EnumAttr.td"
include "mbarrier/Dialect/MBarrier/IR/MBarrierInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def MBarrier_BarRedKind : I32EnumAttr<"BarRedKind",
    "the reduction of a bar.red (PTX .popc, .and, .or)", [
      I32EnumAttrCase<"popc", 0>,
      I32EnumAttrCase<"and_", 1, "and">,
      I32EnumAttrCase<"or_", 2, "or">
    ]> {
  let cppNamespace = "::mlir::mbarrier";
}

// The hardware barrier ids (PTX ISA: "Each CTA instance has sixteen barriers
// numbered 0..15").
def MBarrier_NamedBarrierIdAttr
    : ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<15>]>;

def MBarrier_NamedBarrierOp : Op<MBarrier_Dialect, "named_barrier", [Symbol]> {
  let summary = "declare a named barrier (one of the CTA's 16 hardware barriers)";
  let description = [{
    Declares a CTA barrier of the `bar.sync` / `bar.arrive` family under a
    symbol, in a module (`builtin.module` or `gpu.module`: the symbol table
    the ops of its kernels resolve the name in). With `id N` the hardware
    barrier is N (0 to 15; 0 is the one `__syncthreads` / `gpu.barrier`
    use). Without an id, `mbarrier-allocate-named-barriers` (run by
    `mbarrier-to-ptx`) assigns one that no other declaration of the module,
    no constant-id `nvvm.barrier` / `nvvm.barrier.arrive` of the module and
    no reserved range (`reserved=0` by default; `reserved=0,1-7` keeps out of
    CUTLASS's and FA3's ids) uses. Two declarations of one module with the
    same explicit id are rejected: they would be one barrier.

    PTX ISA: "bar, barrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar-barrier).

    Example:

    ```mlir
    mbarrier.named_barrier @wg1_turn
    mbarrier.named_barrier @epilogue id 1
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<MBarrier_NamedBarrierIdAttr>:$id);
  let assemblyFormat = "$sym_name (`id` $id^)? attr-dict";
  let hasVerifier = 1;
}

class MBarrier_NamedBarrierUseOp<string mnemonic, list<Trait> traits = []>
    : MBarrier_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
         MBarrier_NamedBarrierUseOpInterface])> {
  code namedBarrierUseDeclaration = [{
    /// The declaration the `barrier` symbol names (null where it does not
    /// resolve to an `mbarrier.named_barrier`).
    NamedBarrierOp getDeclaration();
    /// The hardware id of the declaration, once it has one.
    std::optional<uint32_t> getHardwareId();
  }];
  let extraClassDeclaration = namedBarrierUseDeclaration;
  let hasVerifier = 1;
}

def MBarrier_BarSyncOp : MBarrier_NamedBarrierUseOp<"bar_sync"> {
  let summary = "arrive on a named barrier and wait for its threads (bar.sync)";
  let description = [{
    `barrier.sync.aligned id, threads` (`bar.sync`): the executing warp
    arrives on the named barrier and waits until `threads` threads (a
    multiple of 32, at most the block) have arrived, by `bar_sync`,
    `bar_arrive` or `bar_red` on the same hardware id. All threads of a warp
    execute it together (`.aligned`). Prior memory accesses of the
    participating threads are performed relative to all of them when it
    completes.

    PTX ISA: "bar, barrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar-barrier).

    Example:

    ```mlir
    mbarrier.bar_sync @wg1_turn threads 256
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$barrier, I32Attr:$threads);
  let assemblyFormat = "$barrier `threads` $threads attr-dict";
}

def MBarrier_BarArriveOp : MBarrier_NamedBarrierUseOp<"bar_arrive"> {
  let summary = "arrive on a named barrier without waiting (bar.arrive)";
  let description = [{
    `barrier.arrive.aligned id, threads` (`bar.arrive`): the executing warp
    counts towards the `threads` threads (a multiple of 32, at most the
    block) that complete the named barrier, and goes on without waiting. A
    producer/consumer hand-off: one group arrives, the other syncs, both with
    the same count.

    PTX ISA: "bar, barrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar-barrier).

    Example:

    ```mlir
    mbarrier.bar_arrive @wg1_turn threads 256
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$barrier, I32Attr:$threads);
  let assemblyFormat = "$barrier `threads` $threads attr-dict";
}

def MBarrier_BarRedOp : MBarrier_NamedBarrierUseOp<"bar_red"> {
  let summary = "sync on a named barrier and reduce a predicate (bar.red)";
  let description = [{
    `barrier.red.popc.aligned.u32` / `barrier.red.{and,or}.aligned.pred`
    (`bar.red`): like `bar_sync`, and returns to every participating thread
    the reduction of `pred` over the `threads` threads: `popc` the number of
    threads where it holds (`i32`), `and` / `or` whether it holds at all /
    any of them (`i1`). PTX does not allow a `bar.red` and a `bar.sync` or
    `bar.arrive` on the same barrier at once.

    PTX ISA: "bar, barrier" (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-bar-barrier).

    Example:

    ```mlir
    %n = mbarrier.bar_red popc @vote threads 128, %pred : i32
    %all = mbarrier.bar_red and @vote threads 128, %pred : i1
    ```
  }];
  let arguments = (ins MBarrier_BarRedKind:$kind, FlatSymbolRefAttr:$barrier,
                       I32Attr:$threads, I1:$pred);
  let results = (outs AnyTypeOf<[I32, I1]>:$result);
  let assemblyFormat =
      "$kind $barrier `threads` $threads `,` $pred attr-dict `:` type($result)";
}

#endif // MBARRIER_NAMED_BARRIER_TD
