//===- Passes.td - mbarrier conversion passes --------------*- tablegen -*-===//
#ifndef MBARRIER_CONVERSION_PASSES_TD
#define MBARRIER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMBarrierToNVVM : Pass<"convert-mbarrier-to-nvvm"> {
  let summary = "Lower the mbarrier dialect to the NVVM and LLVM dialects";
  let description = [{
    One conversion pattern per op. `!mbarrier.group<N>` becomes
    `!llvm.ptr<3>`; `!mbarrier.remote<N>` becomes
    `!llvm.struct<(ptr<3>, i32)>` (owner-local pointer, target CTA rank), so
    remote views keep their meaning through block arguments, `scf.for`
    iter_args and function boundaries. Arrivals through a remote view or with
    `on %cta` become `nvvm.mapa` + the `shared::cluster` arrive; a predicate
    becomes an `scf.if` (run this pass before `convert-scf-to-cf`).

    Before rewriting, every op is checked against the NVVM target attached to
    its `gpu.module` (or the `chip`/`features` options when none is): cluster
    forms, waits and counted arrivals need sm_90; the cluster forms PTX 8.0;
    `relaxed` PTX 8.6; tcgen05 sm_100a. A chip the NVPTX backend does not
    know is an error. Below any of these the NVPTX backend would abort.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Check ops against this chip (e.g. sm_90) when no NVVM target is attached">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features (e.g. +ptx86) that go with `chip`">,
  ];
}

def MBarrierLowerPipes : Pass<"mbarrier-lower-pipes"> {
  let summary = "Lower mbarrier.pipe.* ops to mbarrier ops";
  let description = [{
    Rewrites every pipeline op into the mbarrier ops it stands for (and the
    NVVM TMA ops for the pipe's copies), so that `mbarrier-check-sync`,
    `mbarrier-merge-release-fences` and `convert-mbarrier-to-nvvm` see the
    barriers. `!mbarrier.pipe<D, ...>` becomes the `!mbarrier.group<2D>` it
    was created from (barriers 0..D-1 full, D..2D-1 empty), a state the `i32`
    count of slots taken (stage = count mod D, phase parity = count div D
    mod 2), a slot its stage (`index`); `scf` ops that carry them are
    converted too.

    - `pipe.init`: `mbarrier.init` of the full barriers with `producers` and
      of the empty barriers with `consumers` x the CTAs that write into the
      stage.
    - `pipe.acquire` / `pipe.try_acquire` / `pipe.tail`: `mbarrier.wait` /
      `try_wait` on the empty barrier with `phase_offset = 1`;
      `pipe.wait` / `pipe.try_wait` on the full barrier.
    - `pipe.commit`: `arrive_expect_tx` (tma), `arrive` (arrive) or
      `tcgen05_commit` (tcgen05) on the full barrier.
    - `pipe.release`: `arrive` on the empty barrier; with multicast, one
      `mbarrier.fence_release shared_cta` then one `{sem = relaxed, scope =
      cluster}` `arrive ... on %rank` per CTA of the row and/or column (from
      `%cluster_ctarank`), under `if %pred` as a whole: the consumer
      publishes its reads of its own stage, which is what the producers that
      refill it need. Where a target lacks PTX 8.6 (the options' `chip` and
      `features` for modules without a target), `.release.cluster` arrivals.
    - `pipe.cp_async_bulk(_tensor)`: the NVVM bulk copies on the full
      barrier; `multicast row|col` computes the CTA mask of the row or
      column.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "For modules without an NVVM target: the chip whose PTX decides the release form">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features (e.g. +ptx86) that go with `chip`">,
  ];
}

def MBarrierMergeReleaseFences : Pass<"mbarrier-merge-release-fences"> {
  let summary = "Merge release.cluster arrivals into one release fence and relaxed arrivals";
  let description = [{
    Rewrites k >= 2 arrivals with `.release.cluster` semantics (`arrive` and
    `arrive_expect_tx`, through a remote view, `on %cta`, or local with
    `scope = cluster`) that one thread issues one after another into one
    `mbarrier.fence_release` (`fence.release.cluster`) before the first and
    `{sem = relaxed, scope = cluster}` on each. A `.release.cluster` arrive
    compiles to `MEMBAR.ALL.CTA; MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR` before
    the arrive; the merged group pays that sequence once.

    Legality (docs/fence-merging.md has the argument from the PTX memory
    consistency model): a release fence followed in program order by a
    strong write is a release pattern covering every access before the
    fence, so the fence + relaxed arrive synchronizes with the waiter's
    acquire exactly as the release arrive did, provided nothing the arrive
    must publish lies between the fence and it. Hence a group is a maximal
    run of such arrivals in one block (straight-line code, so the thread
    that executes any of them executed the fence, which dominates them all)
    with nothing between the first and the last but other members and ops
    without memory effects (pure arithmetic, `mbarrier.ptr`,
    `remote_view`, ...). Any op that may access memory (a load, a store, a
    wait, a call, a barrier, an op with unknown effects, a region op with
    any of those inside) ends the group; the arrivals after it form a new
    one, whose fence then publishes it. Predicated arrivals (`if %pred`) are
    members: the fence runs unconditionally. A single arrival is left as it
    is (no gain). "Same thread" in SPMD code: every thread that executes the
    block executes its ops in this order, so the rewrite is per thread.

    Only where every NVVM target of the enclosing `gpu.module` has sm_90 and
    PTX ISA 8.6 (`.relaxed` and `fence.release`); a module without a
    target uses the `chip`/`features` options, where empty features (the
    PTX version derived by `mbarrier-attach-target`, which then raises it to
    8.6) count as 8.6 if the NVPTX backend knows it. Below that (or with no
    target and no chip), nothing is rewritten and nothing is reported.

    In `mbarrier-to-ptx` it runs first, at `O` >= 1 (off at `O=0` or with
    `merge-release-fences=false`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The target chip of gpu.modules without an NVVM target (e.g. sm_90); none: no rewrite there">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features (+ptxNN) that go with `chip`; empty: derived">,
  ];
}

def MBarrierAttachTarget : Pass<"mbarrier-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach an NVVM target to each gpu.module that has none";
  let description = [{
    Gives every `gpu.module` without a target an `#nvvm.target` with the
    given chip and optimization level. A module that already carries targets
    keeps them (they are validated, not replaced, and no second target is
    appended).

    The PTX ISA version: with `features` empty (the default), the lowest
    version that both the chip (as the NVPTX backend says) and the
    instructions of the module's mbarrier ops need, written as `+ptxNN` only
    when it is above the chip's minimum. An explicit `+ptxNN` is kept if the
    backend knows it and it is not below the chip's minimum. Anything else
    (an unknown chip, a malformed feature string, an unknown or too-low PTX
    version) is a located error instead of an LLVM abort.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::gpu::GPUDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"::mlir::mbarrier::kDefaultChip",
           "Target chip, e.g. sm_90 (one the NVPTX backend knows)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features: +ptxNN, or empty to derive the PTX ISA version">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level, 0 to 3">,
  ];
}

def MBarrierCheckSync : Pass<"mbarrier-check-sync", "::mlir::ModuleOp"> {
  let summary = "Check the synchronization protocol of mbarrier kernels";
  let description = [{
    A static analysis of every function that uses mbarrier ops, as SPMD
    code: which threads and CTAs execute an op (from `known_block_size`,
    `known_cluster_size` and the scf.if conditions on thread ids, lane and
    warp ids, CTA ranks and elect.sync around it), how many arrivals each
    phase of a barrier receives and from which CTAs, and what happens on
    every path to the exit. It reports errors for what is certainly wrong
    and warnings for what is probably wrong, and says nothing where it
    cannot decide:

    1. init not made visible (fence_init + cluster barrier) before a remote
       arrival or multicast copy, or (a CTA barrier) before other threads
       of the CTA use the barrier;
    2. a CTA that may exit while peers still arrive on its barriers or
       access its shared memory;
    3. more arrivals per phase than the init count;
    4. fewer arrivals than the init count (the phase never completes);
    5. a loop that waits on the same parity in every trip;
    6. expected transaction bytes different from the bytes of the bulk
       copies that complete on the barrier;
    7. memory order too weak for a cross-CTA hand-off (cta-scope waits or
       arrivals on a barrier that other CTAs arrive on; a relaxed remote
       arrival after stores with no fence);
    8. a barrier used after `inval` or never initialized, initialized
       again while live, or initialized by several threads;
    9. a cluster-form arrival whose computed target rank leaves the
       cluster.

    The assumptions and what the analysis cannot see: docs/checker.md.
    It changes nothing; errors fail the pass (with `strict`, warnings too).
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report warnings as errors: any report fails the pass">,
  ];
}

#endif // MBARRIER_CONVERSION_PASSES_TD
