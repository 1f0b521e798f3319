//===- Passes.td - mbarrier dialect transforms -------------*- tablegen -*-===//
#ifndef MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_TD
#define MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
      refill it need. Where a target lacks PTX 8.6 (and outside a targeted
      `gpu.module`), `.release.cluster` arrivals.
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
    PTX ISA 8.6 (`.relaxed` and `fence.release`), or a PTX version that
    `mbarrier-attach-target` derived (this pass then raises it to 8.6).
    Below that, or outside a targeted `gpu.module`, nothing is rewritten and
    nothing is reported.

    In `mbarrier-to-ptx` it runs after the checker, on the barriers as the
    user wrote them, and right before the conversion to NVVM that reads the
    merged arrivals, at `O` >= 1 (off at `O=0` or with
    `merge-release-fences=false`).
  }];
}

def MBarrierAllocateNamedBarriers : Pass<"mbarrier-allocate-named-barriers"> {
  let summary = "Assign hardware ids to the named barriers declared without one";
  let description = [{
    For every module (a symbol table) that declares `mbarrier.named_barrier`s,
    gives each declaration without an `id` the lowest hardware barrier id
    (0 to 15) that is free: not `reserved`, not the explicit id of another
    declaration of the module, and not the constant id of an upstream
    `nvvm.barrier` / `nvvm.barrier.arrive` in the module. Ids are per module
    (all its kernels share the assignment). Where no id is left, a located
    error at the first declaration without one names the ids in use.

    `reserved`: a comma-separated list of ids and ranges (`0,1-7`); the
    default `0` keeps the id of `__syncthreads` / `gpu.barrier` out; an
    empty value reserves nothing. A malformed list is an error of the pass.

    `mbarrier-to-ptx` runs it after `mbarrier-lower-pipes`, before the
    checker and the lowering (its `named-barrier-reserved` option).
  }];
  let options = [
    Option<"reserved", "reserved", "std::string", /*default=*/"\"0\"",
           "Hardware ids not to assign: ids and ranges, e.g. 0,1-7 (default 0)">,
  ];
}

#endif // MBARRIER_DIALECT_MBARRIER_TRANSFORMS_PASSES_TD
