"""The producer's TMA copies of one operand's stage (examples/gemm.py): a
K-major operand is one box of `rows` x 64 K; an MN-major one is `rows` / 64
boxes of 64 K x 64 MN, box j at 8 KiB * j of the stage (the layouts of
gemm_parts/wgmma.py's docstring)."""
from __future__ import annotations

from .layouts import MN_CHUNK
from .wgmma import BK, MN_CHUNK_BYTES


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
