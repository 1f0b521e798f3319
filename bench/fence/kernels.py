"""Kernels of BENCHMARKS.md's "Fence merging" section, as MLIR text.

Written as IR (generated op syntax, no frontend), so that what the pipeline
does to them (mbarrier-merge-release-fences, the count-less cluster arrive,
the hoisted mapa) is all that differs between the variants. One thread per
CTA; every kernel takes (out: i64*, iters: i32) and stores the clock64 cycles
of its timed loop to out[rank] and (bcast, gather) its payload mismatches to
out[8 + rank].

- ``bcast{k}_{variant}``: a cluster of k+1 CTAs. Each round CTA 0 writes a
  4-word payload into the shared memory of each receiver (``st.shared::cluster``
  through mapa), arrives on each receiver's barrier, and waits for k replies
  on its own (init count k). Each receiver waits, checks the 4 words against
  the round's values, counts mismatches, and replies with one arrive.
  Variants of the sender's k arrivals:
    * ``release``: k ``.release.cluster`` arrives (the default through a
      view), compiled with merge-release-fences=false: the per-arrive form
      (CCCL's and TVM's);
    * ``merged``: the same IR compiled by the default pipeline: the pass
      makes it one ``fence.release.cluster`` + k ``.relaxed.cluster`` arrives;
    * ``acqrel``: written by hand as ``fence.acq_rel.cluster`` (inline PTX)
      + k ``.relaxed.cluster`` arrives (the issue's form, one fence kind up);
    * ``merged_restrict``: ``merged``, and each receiver's reply (it only
      read its own shared memory) written as
      ``mbarrier.fence_release shared_cta`` + a ``.relaxed.cluster`` arrive.
  The replies are ``.release.cluster`` in the other three.
- ``gather{k}_{variant}``: the consumer release of a multicast pipeline. k
  producers (CTAs 1..k) each wait for their own "empty" barrier, write 4
  words into their slot in CTA 0's shared memory and arrive on CTA 0's "full"
  barrier (init count k). CTA 0 waits for "full", checks the k slots (reads
  of its own shared memory) and releases them: k arrives, one on each
  producer's "empty" barrier. Variants of those k arrivals: ``release``,
  ``merged`` (as above) and ``restrict`` (``mbarrier.fence_release
  shared_cta`` + k ``.relaxed.cluster``: only this CTA's shared memory is
  published).
- ``pp_stage4``: the 2-CTA ping-pong through a group of 4 barriers with the
  stage a run-time value (``iv mod 4`` carried by the loop): arrive on the
  peer's barrier[stage] (``.relaxed.cluster``), wait on the own barrier[stage]
  (``.acquire.cluster``). mapa(base + 8*stage) = mapa(base) + 8*stage: the
  lowering maps the group's base, which LLVM hoists out of the loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field

BCAST_VARIANTS = ("release", "merged", "acqrel", "merged_restrict")
GATHER_VARIANTS = ("release", "merged", "restrict")
WORDS = 4  # payload words per receiver


@dataclass
class FenceKernel:
    name: str
    text: str  # the whole module
    cluster: int
    merge: bool = True  # compile with mbarrier-merge-release-fences
    kind: str = ""  # bcast / gather / stage
    k: int = 0  # receivers (bcast) or producers (gather)
    variant: str = ""
    reference: str | None = None  # hand-written kernel (stage rows)
    extra: dict = field(default_factory=dict)


def _module(name: str, cluster: int, globals_: str, body: str) -> str:
    return f"""module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
{globals_}
    gpu.func @{name}(%out: !llvm.ptr<1>, %iters: i32) kernel attributes {{known_block_size = array<i32: 1, 1, 1>, known_cluster_size = array<i32: {cluster}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
{body}
      gpu.return
    }}
  }}
}}
"""


def _epilogue(cycles: str, bad: str | None) -> str:
    """Store the cycles to out[rank] and, with `bad`, the mismatches to
    out[8 + rank], then a cluster barrier (no CTA leaves while a peer may
    still arrive on it)."""
    text = f"""      %t1 = nvvm.read.ptx.sreg.clock64 : i64
      %dt = arith.subi %t1, {cycles} : i64
      %slot = llvm.getelementptr %out[%rank] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
      llvm.store %dt, %slot : i64, !llvm.ptr<1>
"""
    if bad is not None:
        text += f"""      %eight = arith.constant 8 : i32
      %bslot_i = arith.addi %rank, %eight : i32
      %bslot = llvm.getelementptr %out[%bslot_i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
      %bad64 = arith.extui {bad} : i32 to i64
      llvm.store %bad64, %bslot : i64, !llvm.ptr<1>
"""
    return text + """      nvvm.cluster.arrive
      nvvm.cluster.wait"""


def _expected(iv: str, who: str, j: int, tag: str) -> tuple[str, str]:
    """The payload word j of round iv for CTA `who`: iv*32 + who*4 + j."""
    lines = f"""        %{tag}_a = arith.muli {iv}, %c32 : i32
        %{tag}_b = arith.muli {who}, %c4 : i32
        %{tag}_c = arith.addi %{tag}_a, %{tag}_b : i32
        %{tag}_j = arith.constant {j} : i32
        %{tag} = arith.addi %{tag}_c, %{tag}_j : i32
"""
    return lines, f"%{tag}"


def _check_words(iv: str, who: str, base: str, acc: str, tag: str) -> tuple[str, str]:
    """Load WORDS words at `base` (ptr<3>), compare with the round's values;
    returns (IR, the new mismatch count)."""
    out = ""
    for j in range(WORDS):
        lines, want = _expected(iv, who, j, f"{tag}w{j}")
        out += lines
        out += f"""        %{tag}p{j} = llvm.getelementptr {base}[{j}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i32
        %{tag}v{j} = llvm.load %{tag}p{j} : !llvm.ptr<3> -> i32
        %{tag}ne{j} = arith.cmpi ne, %{tag}v{j}, {want} : i32
        %{tag}n{j} = arith.extui %{tag}ne{j} : i1 to i32
        %{tag}acc{j} = arith.addi {acc if j == 0 else f'%{tag}acc{j - 1}'}, %{tag}n{j} : i32
"""
    return out, f"%{tag}acc{WORDS - 1}"


def _store_words(iv: str, who: str, dst7: str, tag: str) -> str:
    """Store the round's WORDS words for CTA `who` at `dst7` (ptr<7>)."""
    out = ""
    for j in range(WORDS):
        lines, want = _expected(iv, who, j, f"{tag}w{j}")
        out += lines
        out += f"""        %{tag}p{j} = llvm.getelementptr {dst7}[{j}] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i32
        llvm.store {want}, %{tag}p{j} : i32, !llvm.ptr<7>
"""
    return out


_CONSTS = """      %c4 = arith.constant 4 : i32
      %c32 = arith.constant 32 : i32"""

_FENCE_ACQ_REL = '        llvm.inline_asm has_side_effects "fence.acq_rel.cluster;", "~{memory}" : () -> ()\n'


def bcast(k: int, variant: str) -> FenceKernel:
    assert variant in BCAST_VARIANTS
    n = k + 1
    name = f"bcast{k}_{variant}"
    relaxed = ' {sem = #mbarrier.sem<relaxed>}' if variant == "acqrel" else ""
    globals_ = f"    llvm.mlir.global internal @payload() {{addr_space = 3 : i32, alignment = 16 : i64}} : !llvm.array<{WORDS} x i32>"
    views = "".join(
        f"      %leaf{r} = mbarrier.remote_view %bar, cta_rank {r} : !mbarrier.group<1>\n"
        f"      %r{r} = arith.constant {r} : i32\n" for r in range(1, n))
    sends = ""
    for r in range(1, n):
        sends += f"        %dst{r} = nvvm.mapa %pay, %r{r} : !llvm.ptr<3> -> !llvm.ptr<7>\n"
        sends += _store_words("%iv", f"%r{r}", f"%dst{r}", f"s{r}")
    if variant == "acqrel":
        sends += _FENCE_ACQ_REL
    for r in range(1, n):
        sends += f"        mbarrier.arrive %leaf{r}[%c0]{relaxed} : !mbarrier.remote<1>\n"
    check, bad = _check_words("%iv", "%rank", "%pay", "%bad", "k")
    if variant == "merged_restrict":
        reply = ("        mbarrier.fence_release shared_cta\n"
                 "        mbarrier.arrive %root[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>\n")
    else:
        reply = "        mbarrier.arrive %root[%c0] : !mbarrier.remote<1>\n"
    body = f"""{_CONSTS}
      %kk = arith.constant {k} : i32
      %bar = mbarrier.alloc : !mbarrier.group<1>
      %is_root = arith.cmpi eq, %rank, %z : i32
      %count = arith.select %is_root, %kk, %one : i32
      mbarrier.init %bar[%c0], %count : !mbarrier.group<1>
      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %pay = llvm.mlir.addressof @payload : !llvm.ptr<3>
{views}      %root = mbarrier.remote_view %bar, cta_rank 0 : !mbarrier.group<1>
      %t0 = nvvm.read.ptx.sreg.clock64 : i64
      %res:2 = scf.for %iv = %z to %iters step %one iter_args(%phase = %z, %bad = %z) -> (i32, i32) : i32 {{
        %nb = scf.if %is_root -> (i32) {{
{sends}        mbarrier.wait %bar[%c0], %phase : !mbarrier.group<1>
        scf.yield %bad : i32
        }} else {{
        mbarrier.wait %bar[%c0], %phase : !mbarrier.group<1>
{check}{reply}        scf.yield {bad} : i32
        }}
        %np = arith.xori %phase, %one : i32
        scf.yield %np, %nb : i32, i32
      }}
{_epilogue('%t0', '%res#1')}"""
    return FenceKernel(name, _module(name, n, globals_, body), n,
                       merge=variant in ("merged", "merged_restrict"),
                       kind="bcast", k=k, variant=variant)


def gather(k: int, variant: str) -> FenceKernel:
    assert variant in GATHER_VARIANTS
    n = k + 1
    name = f"gather{k}_{variant}"
    globals_ = f"    llvm.mlir.global internal @slots() {{addr_space = 3 : i32, alignment = 16 : i64}} : !llvm.array<{WORDS * 8} x i32>"
    views = "".join(
        f"      %prod{r} = mbarrier.remote_view %empty, cta_rank {r} : !mbarrier.group<1>\n"
        f"      %r{r} = arith.constant {r} : i32\n" for r in range(1, n))
    checks = ""
    acc = "%bad"
    for r in range(1, n):
        checks += f"        %slot{r} = llvm.getelementptr %slots[{r * WORDS}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i32\n"
        lines, acc = _check_words("%iv", f"%r{r}", f"%slot{r}", acc, f"c{r}")
        checks += lines
    releases = ""
    relaxed = ""
    if variant == "restrict":
        releases += "        mbarrier.fence_release shared_cta\n"
        relaxed = " {sem = #mbarrier.sem<relaxed>}"
    for r in range(1, n):
        releases += f"        mbarrier.arrive %prod{r}[%c0]{relaxed} : !mbarrier.remote<1>\n"
    produce = _store_words("%iv", "%rank", "%mine", "p")
    body = f"""{_CONSTS}
      %kk = arith.constant {k} : i32
      %full = mbarrier.alloc : !mbarrier.group<1>
      %empty = mbarrier.alloc : !mbarrier.group<1>
      %is_root = arith.cmpi eq, %rank, %z : i32
      %count = arith.select %is_root, %kk, %one : i32
      mbarrier.init %full[%c0], %count : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %one : !mbarrier.group<1>
      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %slots = llvm.mlir.addressof @slots : !llvm.ptr<3>
{views}      %root_full = mbarrier.remote_view %full, cta_rank 0 : !mbarrier.group<1>
      %mine_w = arith.muli %rank, %c4 : i32
      %mine3 = llvm.getelementptr %slots[%mine_w] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      %mine = nvvm.mapa %mine3, %z : !llvm.ptr<3> -> !llvm.ptr<7>
      %t0 = nvvm.read.ptx.sreg.clock64 : i64
      %res:2 = scf.for %iv = %z to %iters step %one iter_args(%phase = %z, %bad = %z) -> (i32, i32) : i32 {{
        %nb = scf.if %is_root -> (i32) {{
        mbarrier.wait %full[%c0], %phase : !mbarrier.group<1>
{checks}{releases}        scf.yield {acc} : i32
        }} else {{
        mbarrier.wait %empty[%c0], %phase {{phase_offset = 1 : i32}} : !mbarrier.group<1>
{produce}        mbarrier.arrive %root_full[%c0] : !mbarrier.remote<1>
        scf.yield %bad : i32
        }}
        %np = arith.xori %phase, %one : i32
        scf.yield %np, %nb : i32, i32
      }}
{_epilogue('%t0', '%res#1')}"""
    return FenceKernel(name, _module(name, n, globals_, body), n,
                       merge=variant == "merged", kind="gather", k=k, variant=variant)


def pp_stage(depth: int = 4) -> FenceKernel:
    name = f"pp_stage{depth}"
    inits = "".join(
        f"      %s{s} = arith.constant {s} : index\n"
        f"      mbarrier.init %g[%s{s}], %one : !mbarrier.group<{depth}>\n" for s in range(depth))
    body = f"""      %depth = arith.constant {depth} : i32
      %g = mbarrier.alloc : !mbarrier.group<{depth}>
{inits}      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %peer = arith.xori %rank, %one : i32
      %r = mbarrier.remote_view %g, %peer : !mbarrier.group<{depth}>
      %t0 = nvvm.read.ptx.sreg.clock64 : i64
      %res:2 = scf.for %iv = %z to %iters step %one iter_args(%stage = %z, %phase = %z) -> (i32, i32) : i32 {{
        %si = arith.index_cast %stage : i32 to index
        mbarrier.arrive %r[%si] {{sem = #mbarrier.sem<relaxed>}} : !mbarrier.remote<{depth}>
        mbarrier.wait %g[%si], %phase : !mbarrier.group<{depth}>
        %n = arith.addi %stage, %one : i32
        %wrap = arith.cmpi eq, %n, %depth : i32
        %ns = arith.select %wrap, %z, %n : i32
        %pf = arith.xori %phase, %one : i32
        %np = arith.select %wrap, %pf, %phase : i32
        scf.yield %ns, %np : i32, i32
      }}
{_epilogue('%t0', None)}"""
    return FenceKernel(name, _module(name, 2, "", body), 2, kind="stage",
                       reference=f"ref_{name}")


def all_kernels() -> list[FenceKernel]:
    return ([bcast(k, v) for k in (1, 3, 7) for v in BCAST_VARIANTS]
            + [gather(k, v) for k in (3, 7) for v in GATHER_VARIANTS]
            + [pp_stage(4)])
