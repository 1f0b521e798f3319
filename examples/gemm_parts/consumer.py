"""The cooperative consumers of examples/gemm.py's pipe: the wgmma loop of
one consumer warpgroup (64 rows of the 128-row tile) over the K tiles,
A and B each K-major or MN-major (``cfg.a_major``/``b_major``),
each stage waited and released in the loop trip that took it (or, with
``Config.lag``, one trip late)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm, nvvm

from mbarrier_dialect.lang.wgmma import BK, acc_type, mma_k_tile, smem_address
from mbarrier_dialect import lang
from mbarrier_dialect.lang.pipeline import StageBuffer


def pipe_consumer(cfg, consumer, a_ring, b_ring, k_tiles, cw, wtid) -> ir.Value:
    """The wgmma loop of one consumer warpgroup: `cfg.unroll` K tiles per
    trip, each waited (``consumer.wait()``) and released in the trip that
    took it; within a trip the release of tile j follows the
    ``wgmma.wait_group 1`` after tile j+1's wgmmas were issued, the last one
    ``wgmma.wait_group 0``. Thread 0 of the warpgroup releases (the pipe
    sends it to every CTA that multicasts into the stage), after the
    warpgroup's wait_group: its wgmmas, which read the stage, are complete."""
    S = cfg.stages
    a_stages = StageBuffer(a_ring, (S, cfg.bm, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    leader = wtid == 0
    # This warpgroup's 64 rows of A: 64 rows of 128 B on (K-major), or the
    # next 64-row chunk (MN-major): 8 KiB either way.
    a_off = cw * (64 * BK * 2)
    majors = (cfg.a_major, cfg.b_major)

    def trip(consumer, acc, tiles: int):
        held = None
        for _ in range(tiles):
            slot = consumer.wait()                 # A and B of this K tile landed
            acc = mma_k_tile(acc, smem_address(slot.stage_ptr(a_stages)) + a_off,
                              smem_address(slot.stage_ptr(b_stages)), cfg.bn, *majors)
            if held is not None:
                nvvm.WgmmaWaitGroupSyncOp(1)       # the previous tile's wgmmas are done
                held.release(pred=leader)
            held = slot
        nvvm.WgmmaWaitGroupSyncOp(0)
        held.release(pred=leader)
        return acc

    acc = llvm.mlir_zero(acc_type(cfg.bn))
    if cfg.lag:
        # Tile 0 first; then each trip waits on tile t, issues its wgmmas,
        # waits for tile t-1's (wait_group 1) and releases t-1, carried in
        # from the trip before; the last tile after the loop.
        first = consumer.wait()
        acc = mma_k_tile(acc, smem_address(first.stage_ptr(a_stages)) + a_off,
                          smem_address(first.stage_ptr(b_stages)), cfg.bn, *majors)
        loop = lang.range(1, k_tiles, carry=[consumer, first, acc])
        for _ in loop:
            _, prev, acc = loop.carry
            slot = consumer.wait()
            acc = mma_k_tile(acc, smem_address(slot.stage_ptr(a_stages)) + a_off,
                              smem_address(slot.stage_ptr(b_stages)), cfg.bn, *majors)
            nvvm.WgmmaWaitGroupSyncOp(1)           # tile t-1's wgmmas are done
            prev.release(pred=leader)
            loop.next(consumer, slot, acc)
        (_, _, acc) = loop.results
        nvvm.WgmmaWaitGroupSyncOp(0)
        first.release(pred=leader)                 # `first` now holds the last slot
        return acc
    u = cfg.unroll
    loop = lang.range(k_tiles // u if u > 1 else k_tiles, carry=[consumer, acc])
    for _ in loop:
        _, acc = loop.carry
        loop.next(consumer, trip(consumer, acc, u))
    (_, acc) = loop.results
    if u > 1:                                      # the last k_tiles % u tiles
        rest = lang.range(k_tiles % u, carry=[consumer, acc])
        for _ in rest:
            _, acc = rest.carry
            rest.next(consumer, trip(consumer, acc, 1))
        (_, acc) = rest.results
    return acc
