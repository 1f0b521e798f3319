"""The latency protocols of BENCHMARKS.md, built through mbarrier_dialect.lang.

Each kernel runs one thread per participating CTA (or warp), `iters` rounds,
and CTA 0 thread 0 (and every participant) stores the clock64 cycles of its
loop to out[rank]. bench/reference/mbarrier_latency.cu holds the same
protocols written by hand; the two are compared row by row.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm, nvvm

from mbarrier_dialect.dialects.mbarrier import Scope, Semantics
from mbarrier_dialect.lang import (Kernel, MBarrier, for_range, if_else, if_then,
                                   initialized_barrier, unrolled_range)
from mbarrier_dialect.lang import values as V

# arrive form -> (sem, scope) through a remote view
ARRIVE = {
    "release.cluster": (None, None),  # the default through a view
    "unqualified": (None, Scope.cta),  # = release.cta, no qualifier in PTX
    "relaxed.cluster": (Semantics.relaxed, Scope.cluster),
}
# wait form -> (sem, scope)
WAIT = {
    "acquire.cluster": (None, Scope.cluster),
    "default": (None, None),
    "relaxed.cluster": (Semantics.relaxed, Scope.cluster),
}
# The remote ping-pong rows of BENCHMARKS.md's latency table: (arrive, wait, anchor cycles).
PINGPONG_ROWS = [
    ("release.cluster", "acquire.cluster", 958),
    ("release.cluster", "default", 958),
    ("unqualified", "default", 416),
    ("unqualified", "acquire.cluster", 409),
    ("relaxed.cluster", "relaxed.cluster", 416),
    ("relaxed.cluster", "acquire.cluster", 409),
]


@dataclass
class Bench:
    name: str  # our kernel = cubin stem
    reference: str  # the hand-written kernel: "ref_" + the protocol's name
    kernel: Kernel
    unroll: int  # copies of the protocol per loop trip (the reference: nvcc's choice)
    anchor: int | None  # the anchor measurement's cycles (BENCHMARKS.md), where it has the row
    label: str


def _i32(x):
    return V.as_i32(x)


def _clock():
    return nvvm.read_ptx_sreg_clock64(ir.IntegerType.get_signless(64))


def _timed_rounds(k, body, unroll: int, slot) -> None:
    """`iters` rounds of body(iv, phase) -> [next phase], timed with clock64,
    the cycles stored to out[slot]. unroll > 1 copies the round in the loop
    (as nvcc does with the reference's inline-asm loops)."""
    t0 = _clock()
    if unroll == 1:
        with for_range(0, k.param("iters"), carry=[_i32(0)]) as loop:
            loop.next(*body(loop.iv, *loop.carry))
    else:
        unrolled_range(0, k.param("iters"), body, unroll=unroll, carry=[_i32(0)])
    k.store(arith.SubIOp(_clock(), t0).result, k.param("out"), slot)


def _flip(phase):
    return [arith.XOrIOp(phase, _i32(1)).result]


def _variant(name: str, unroll: int) -> str:
    return name if unroll == 1 else f"{name}_u{unroll}"


def tag(form: str) -> str:
    return form.replace(".", "_")


def pingpong(arrive: str, wait: str, anchor: int, unroll: int = 1) -> Bench:
    """2-CTA cluster, one thread each: arrive on the peer's barrier through a
    remote view, wait on the own barrier; a round trip is two of each."""
    name = f"pp_{tag(arrive)}__{tag(wait)}"
    a_sem, a_scope = ARRIVE[arrive]
    w_sem, w_scope = WAIT[wait]
    with Kernel(_variant(name, unroll), block=1, cluster=2,
                params=[("out", "ptr"), ("iters", "i32")]) as k:
        bar = initialized_barrier(k, count=1)
        rank = k.cluster_rank()
        remote = bar.remote_view(arith.XOrIOp(rank, _i32(1)).result)

        def round_trip(iv, phase):
            remote.arrive(0, sem=a_sem, scope=a_scope)
            bar.wait(0, phase, sem=w_sem, scope=w_scope)
            return _flip(phase)

        _timed_rounds(k, round_trip, unroll, rank)
        k.cluster_sync()
    return Bench(k.name, f"ref_{name}", k, unroll, anchor, f"remote {arrive} / {wait}")


def local_two_warps(unroll: int = 1) -> Bench:
    """Lane 0 of two warps of one CTA, two local barriers."""
    with Kernel(_variant("local_two_warps", unroll), block=64,
                params=[("out", "ptr"), ("iters", "i32")]) as k:
        bars = initialized_barrier(k, count=1, depth=2)
        tid = k.thread_rank()
        warp = arith.ShRUIOp(tid, _i32(5)).result
        lane0 = arith.CmpIOp(arith.CmpIPredicate.eq, arith.AndIOp(tid, _i32(31)).result, _i32(0)).result
        with if_then(lane0):
            mine = V.as_index(warp)
            other = V.as_index(arith.XOrIOp(warp, _i32(1)).result)

            def round_trip(iv, phase):
                bars.arrive(other)
                bars.wait(mine, phase)
                return _flip(phase)

            _timed_rounds(k, round_trip, unroll, warp)
    return Bench(k.name, "ref_local_two_warps", k, unroll, 136, "local two warps")


def _fence_acq_rel_cluster():
    llvm.InlineAsmOp(None, [], "fence.acq_rel.cluster;", "", has_side_effects=True)


def broadcast4(fenced: bool, unroll: int = 1) -> Bench:
    """CTA 0 arrives on CTAs 1..3 and waits for their three replies."""
    name = "bcast4_fence_relaxed" if fenced else "bcast4_release"
    sem = Semantics.relaxed if fenced else None
    with Kernel(_variant(name, unroll), block=1, cluster=4,
                params=[("out", "ptr"), ("iters", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        rank = k.cluster_rank()
        is_root = arith.CmpIOp(arith.CmpIPredicate.eq, rank, _i32(0)).result
        bar.init(count=arith.SelectOp(is_root, _i32(3), _i32(1)).result)
        k.fence_barrier_init()
        k.cluster_sync()
        leaves = [bar.remote_view(r) for r in (1, 2, 3)]
        root = bar.remote_view(0)

        def round_trip(iv, phase):
            branch = if_else(is_root)
            with branch.then():
                if fenced:
                    _fence_acq_rel_cluster()
                for leaf in leaves:
                    leaf.arrive(0, sem=sem, scope=Scope.cluster)
                bar.wait(0, phase, scope=Scope.cluster)
            with branch.otherwise():
                bar.wait(0, phase, scope=Scope.cluster)
                if fenced:
                    _fence_acq_rel_cluster()
                root.arrive(0, sem=sem, scope=Scope.cluster)
            return _flip(phase)

        _timed_rounds(k, round_trip, unroll, rank)
        k.cluster_sync()
    anchor = 1001 if fenced else 1649
    label = ("cluster-4 fence.acq_rel + 3x relaxed.cluster" if fenced
             else "cluster-4 3x release.cluster")
    return Bench(k.name, f"ref_{name}", k, unroll, anchor, label)


def all_benches() -> list[Bench]:
    """Every row twice: with a rolled loop (compared with the reference built
    with `#pragma unroll 1`) and with 4 rounds per loop trip (compared with
    the reference as nvcc -O3 builds it: its inline-asm loops unrolled by 4)."""
    return [bench for unroll in (1, 4) for bench in (
        [pingpong(a, w, anchor, unroll) for a, w, anchor in PINGPONG_ROWS]
        + [local_two_warps(unroll), broadcast4(False, unroll), broadcast4(True, unroll)])]
