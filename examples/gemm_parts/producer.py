"""The producer of examples/gemm.py's pipe: the TMA loop of one output
tile (warpgroup 0, one thread), and the copies of one operand's stage in
its layout (a K-major operand is one box of `rows` x 64 K; an MN-major one
is `rows` / 64 boxes of 64 K x 64 MN, box j at 8 KiB * j of the stage: the
layouts of mbarrier_dialect.lang.wgmma's docstring)."""
from __future__ import annotations

from .layouts import MN_CHUNK
from mbarrier_dialect.lang.wgmma import BK, MN_CHUNK_BYTES
from mbarrier_dialect import lang
from mbarrier_dialect.lang.pipeline import StageBuffer


def copy_operand(slot, stages, tmap, row0, k0, rows: int, major: str, *,
                 multicast=None, byte_offset: int | object = 0) -> None:
    """Copy `rows` rows (M or N) from `row0` and 64 K from `k0` of the
    operand behind `tmap` into `slot`'s stage of `stages`, at `byte_offset`
    in the stage (this CTA's part of a multicast tile)."""
    if major == "K":
        slot.cp_async_bulk_tensor(stages, tmap, [row0, k0], box_bytes=rows * BK * 2,
                                  multicast=multicast, byte_offset_in_stage=byte_offset)
        return
    if rows % MN_CHUNK:
        raise ValueError(f"an MN-major operand loads whole 64-row chunks, got {rows} rows")
    for j in range(rows // MN_CHUNK):
        off = byte_offset + j * MN_CHUNK_BYTES if j else byte_offset
        slot.cp_async_bulk_tensor(stages, tmap, [k0, row0 + j * MN_CHUNK],
                                  box_bytes=MN_CHUNK_BYTES, multicast=multicast,
                                  byte_offset_in_stage=off)


def pipe_producer(k, cfg, producer, a_ring, b_ring, k_tiles, tile_m, b_row, rank,
                  k_first=None) -> None:
    """The TMA loop of one tile: acquire a stage (its empty barrier: every
    consumer of every CTA it reaches released it), copy A (local) and this
    CTA's part of B (multicast along the cluster's row) into it, each in its
    layout (``cfg.a_major``/``b_major``), commit it with the bytes that land
    in this CTA's stage: `k_tiles` K blocks from block `k_first` (None: 0;
    a split-K slice's). (The caller runs the tail once, after its last
    tile.)"""
    S, CS = cfg.stages, cfg.cluster
    a_stages = StageBuffer(a_ring, (S, cfg.bm, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    b_box_bytes = cfg.b_box_rows * BK * 2
    for t in lang.range(k_tiles, carry=[producer]):
        slot = producer.acquire()
        k0 = (t if k_first is None else k_first + t) * BK
        copy_operand(slot, a_stages, k.param("tmap_a"), tile_m * cfg.bm, k0, cfg.bm,
                     cfg.a_major)
        copy_operand(slot, b_stages, k.param("tmap_b"), b_row, k0, cfg.b_box_rows,
                     cfg.b_major, multicast="row" if CS > 1 else None,
                     byte_offset=rank * b_box_bytes if CS > 1 else 0)
        slot.commit(bytes=cfg.a_bytes + cfg.b_bytes)   # A + every CTA's part of B
