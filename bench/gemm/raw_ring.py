"""The first version's hand-written ring of examples/gemm.py, kept for the
measured comparison with the pipe (bench/gemm/README.md): a ``TMABar``
full[s] and an ``MBarrier`` empty[s] per stage, the stage and phase carried
by hand (``next_slot``), each slot released one trip late after
``wgmma.wait_group 1``, by thread r of each consumer warpgroup on CTA r's
empty barrier.

    cfg = RawConfig(bn=256, stages=4, cluster=2, release_sem="relaxed")
    kernel = gemm.build(cfg=cfg)          # gemm.build asks cfg.raw_ring(pool)

``RawConfig`` is ``gemm.Config`` plus the raw ring's three knobs; the pipe's
own knobs (persistent, unroll, lag, the TMA epilogue, pingpong consumers,
the MN-major layouts) are refused.
"""
from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import llvm, nvvm

from examples import gemm
from examples.gemm_parts.epilogue import warpgroup_barrier
from mbarrier_dialect.lang.wgmma import BK, acc_type, mma_k_tile, smem_address
from mbarrier_dialect import lang
from mbarrier_dialect.lang import MBarrier, TMABar, byte_offset, for_range, if_then


@dataclasses.dataclass(frozen=True)
class RawConfig(gemm.Config):
    # The memory order of the consumer's slot release (None: the dialect's
    # default, release at cluster scope through a CTA id; measured 478
    # TFLOP/s at 8192^3 against 613-713 for "relaxed", which orders nothing
    # before the arrival: not correct by the PTX memory model), the scope of
    # the consumers' wait on full[s] (None: cluster in a cluster kernel), and
    # who waits on full[s]: "all" 128 threads of a consumer warpgroup, or
    # "elect": thread 0 (acquire) + a named barrier.
    release_sem: str | None = None
    full_wait_scope: str | None = None
    full_wait: str = "all"
    # The first version's kernel: a CTA per tile, direct stores, a 2x1 cluster.
    cluster: int = 2
    persistent: bool = False
    epilogue: str = "direct"

    def __post_init__(self):
        super().__post_init__()
        if self.persistent:
            raise ValueError("persistent is a knob of the pipe ring (gemm.Config)")
        if self.unroll != 1 or self.lag:
            raise ValueError("unroll and lag are knobs of the pipe ring (gemm.Config)")
        if self.consumers != "cooperative":
            raise ValueError("consumers='pingpong' is a knob of the pipe ring (gemm.Config)")
        if (self.a_major, self.b_major) != ("K", "K"):
            raise ValueError("a_major and b_major are knobs of the pipe ring (gemm.Config)")
        if self.full_wait not in ("all", "elect"):
            raise ValueError(f"full_wait is 'all' or 'elect', got {self.full_wait!r}")

    @property
    def barriers(self) -> str:
        return "raw"

    @property
    def name(self) -> str:
        return super().name + "_raw"

    def raw_ring(self, pool) -> "RawRing":
        """The ring's barriers, taken from `pool` (gemm.build calls it)."""
        return RawRing(self, pool)


def next_slot(stage: lang.Value, phase: lang.Value, stages: int):
    """The ring position after (stage, phase)."""
    wrap = stage == stages - 1
    return lang.select(wrap, 0, stage + 1), lang.select(wrap, phase ^ 1, phase)


class RawRing:
    """full[s]: slot s holds A and B of a K tile; empty[s]: slot s may be
    overwritten (it starts free: phase_offset=1)."""

    def __init__(self, cfg: RawConfig, pool):
        self.cfg, self.pool = cfg, pool
        self.full = TMABar(pool, cfg.stages)
        self.empty = MBarrier(pool, cfg.stages, phase_offset=1)

    def prologue(self, k) -> None:
        # full: the producer's arrive.expect_tx; empty: one arrival per
        # consumer warpgroup of every CTA that multicasts into the slot.
        k.prologue({self.full: 1, self.empty: 2 * self.cfg.cluster})

    def produce(self, k, a_ring, b_ring, k_tiles, tile_m, b_row, rank) -> None:
        cfg, pool, full, empty = self.cfg, self.pool, self.full, self.empty
        S, CS, BM = cfg.stages, cfg.cluster, gemm.BM
        with for_range(0, k_tiles, carry=[0, 0]) as loop:
            stage, phase = loop.carry
            empty.wait(stage, phase)               # every consumer released the slot
            full.arrive(stage, tx_count=cfg.a_bytes + cfg.b_bytes)
            a_dst = pool.view(byte_offset(a_ring, stage * cfg.a_bytes), (BM, BK), "bf16",
                              align=gemm.SWIZZLE_ALIGN)
            lang.cp_async_bulk_tensor(a_dst, k.param("tmap_a"),
                                      [tile_m * BM, loop.iv * BK], bar=full, stage=stage)
            b_dst = pool.view(byte_offset(
                b_ring, stage * cfg.b_bytes + rank * (cfg.b_box_rows * BK * 2)),
                (cfg.b_box_rows, BK), "bf16", align=gemm.SWIZZLE_ALIGN)
            lang.cp_async_bulk_tensor(b_dst, k.param("tmap_b"), [b_row, loop.iv * BK],
                                      bar=full, stage=stage,
                                      multicast_mask=(1 << CS) - 1 if CS > 1 else None)
            loop.next(*next_slot(stage, phase, S))

    def consume(self, k, a_ring, b_ring, k_tiles, cw, wtid) -> ir.Value:
        cfg, full, empty = self.cfg, self.full, self.empty
        S, CS = cfg.stages, cfg.cluster
        meet = warpgroup_barrier(k, cw) if cfg.full_wait == "elect" else None
        a_base = smem_address(a_ring) + cw * (64 * BK * 2)
        b_base = smem_address(b_ring)

        def release(stage):
            """The slot's wgmma reads are done: arrive on empty[stage] of
            every CTA that wrote into it (thread r of the warpgroup
            arrives on CTA r's barrier)."""
            if CS == 1:
                empty.arrive(stage, pred=wtid == 0, sem=cfg.release_sem)
            else:
                empty.arrive(stage, cta_id=wtid, pred=wtid < CS, sem=cfg.release_sem)

        acc0 = llvm.mlir_zero(acc_type(cfg.bn))
        with for_range(0, k_tiles, carry=[0, 0, 0, acc0]) as loop:
            stage, phase, prev, acc = loop.carry
            # A and B of this K tile landed:
            if cfg.full_wait == "elect":
                with if_then(wtid == 0):
                    full.wait(stage, phase, scope=cfg.full_wait_scope)
                meet()                             # the warpgroup's named barrier
            else:
                full.wait(stage, phase, scope=cfg.full_wait_scope)
            acc = mma_k_tile(acc, a_base + stage * cfg.a_bytes, b_base + stage * cfg.b_bytes,
                             cfg.bn)
            nvvm.WgmmaWaitGroupSyncOp(1)           # the previous K tile's wgmmas are done
            with if_then(loop.iv > 0):
                release(prev)
            loop.next(*next_slot(stage, phase, S), stage, acc)
        nvvm.WgmmaWaitGroupSyncOp(0)
        _, _, last, acc = loop.results
        with if_then(k_tiles > 0):
            release(last)
        return acc
