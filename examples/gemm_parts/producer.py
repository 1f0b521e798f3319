"""The producer of examples/gemm.py's pipe: the TMA loop of one output
tile (warpgroup 0, one thread)."""
from __future__ import annotations

from gemm_parts.wgmma import BK
from mbarrier_dialect import lang
from mbarrier_dialect.lang.pipeline import StageBuffer


def pipe_producer(k, cfg, producer, a_ring, b_ring, k_tiles, tile_m, b_row, rank) -> None:
    """The TMA loop of one tile: acquire a stage (its empty barrier: every
    consumer of every CTA it reaches released it), copy A (local) and this
    CTA's part of B (multicast along the cluster's row) into it, commit it
    with the bytes that land in this CTA's stage. (The caller runs the
    tail once, after its last tile.)"""
    S, CS = cfg.stages, cfg.cluster
    a_stages = StageBuffer(a_ring, (S, cfg.bm, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    b_box_bytes = cfg.b_box_rows * BK * 2
    for t in lang.range(k_tiles, carry=[producer]):
        slot = producer.acquire()
        slot.cp_async_bulk_tensor(a_stages, k.param("tmap_a"), [tile_m * cfg.bm, t * BK],
                                  box_bytes=cfg.a_bytes)
        slot.cp_async_bulk_tensor(b_stages, k.param("tmap_b"), [b_row, t * BK],
                                  box_bytes=b_box_bytes,
                                  multicast="row" if CS > 1 else None,
                                  byte_offset_in_stage=rank * b_box_bytes if CS > 1 else 0)
        slot.commit(bytes=cfg.a_bytes + cfg.b_bytes)   # A + every CTA's part of B
