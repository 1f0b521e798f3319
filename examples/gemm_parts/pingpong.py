"""The ping-pong consumers of examples/gemm.py (``Config(consumers=
"pingpong")``, CUTLASS's ``KernelTmaWarpSpecializedPingpong``): each
consumer warpgroup computes a whole bm x bn tile (bm = 64: one m64nBN
accumulator; bm = 128: two), the two on alternate tiles of the persistent
loop (warpgroup 0 this CTA's tiles 0, 2, 4, ..., warpgroup 1 tiles 1, 3,
...), so that one stores its tile while the other's wgmmas run.

They take turns through an ordered sequence of two stages
(``OrderedSequence(depth=2, groups=2, arrivals=128)``, the
``mbarrier.seq.*`` ops): stage 0 the mainloop, stage 1 the epilogue; a
warpgroup hands its mainloop turn on as soon as its last wgmmas are issued
and its epilogue turn when its stores are issued. The one TMA ring is
shared, in tile order: a warpgroup's consumer state skips the other's K
blocks with ``mbarrier.pipe.advance`` (``consumer.advance(k_tiles)``), so
every state is still taken once per trip and the pipe verifier's linearity
walk holds across the tile loop. The mainloop order is also what makes the
shared ring's parity waits sound: warpgroup 1 waits on tile t+1's first
stages only after warpgroup 0 has waited on every stage of tile t, so a
full barrier is never two phases behind the wait that names it.

Each stage is released one K block late (after the next block's wgmmas are
issued and ``wgmma.wait_group 1``: CUTLASS's lagging release), so the
tensor cores always have one group queued while only one warpgroup issues.
"""
from __future__ import annotations

from mlir.dialects import llvm, nvvm

from mbarrier_dialect import lang
from mbarrier_dialect.lang.pipeline import StageBuffer

from .epilogue import store_drain, store_tile, store_tile_any, warpgroup_barrier
from mbarrier_dialect.lang.wgmma import BK, acc_type, k16_step, smem_address, wgmma, wgmma_descriptor

ROWS = 64                   # rows of one m64 wgmma
ROW_BLOCK_BYTES = ROWS * BK * 2   # 64 swizzled rows of A: 8 KiB


def check_pingpong(cfg) -> None:
    """Config's rules for consumers="pingpong" (a ValueError); none for the
    cooperative consumers."""
    if cfg.consumers != "pingpong":
        return
    if cfg.bm not in (64, 128):
        raise ValueError(f"a pingpong warpgroup's tile has 64 or 128 rows, got bm={cfg.bm}")
    if cfg.bm * cfg.bn > 128 * 128 and cfg.bm != 64:
        raise ValueError(f"a pingpong warpgroup holds its bm x bn f32 accumulator in "
                         f"registers: at most 64 x 256 or 128 x 128, got {cfg.bm} x {cfg.bn}")
    if not cfg.persistent or cfg.barriers != "pipe" or cfg.unroll != 1 or cfg.lag:
        raise ValueError("consumers='pingpong' takes persistent=True, barriers='pipe', "
                         "unroll=1 and lag=False (its mainloop releases each stage "
                         "one K block late, as lag=True does, on its own)")


def mma_k_block(accs, a_addr, b_addr, bn: int, *, first: bool = False,
                a_major: str = "K", b_major: str = "K"):
    """One 64-deep K block of a warpgroup's whole tile: ``wgmma.fence``,
    per k16 step one m64nBNk16 wgmma per 64 rows of A (`accs`: one
    accumulator each), one ``commit_group``. `first`: the tile's first
    block, whose first k16 step overwrites the accumulators (scale-d 0, as
    CUTLASS's ``ScaleOut::Zero``) so they need no zeros: zeros written after
    the ``wgmma.fence`` made ptxas serialize the wgmmas of two
    accumulators (C7520)."""
    # 64 rows of A: 8 KiB on, K-major (64 rows of 128 B) or MN-major (one chunk).
    da = [wgmma_descriptor(a_addr + m * ROW_BLOCK_BYTES, a_major) for m in range(len(accs))]
    db = wgmma_descriptor(b_addr, b_major)
    sa, sb = k16_step(a_major), k16_step(b_major)
    nvvm.WgmmaFenceAlignedOp()
    accs = list(accs)
    for kk in range(BK // 16):
        for m in range(len(accs)):
            accs[m] = wgmma(accs[m], da[m] + sa * kk, db + sb * kk, bn,
                            accumulate=not (first and kk == 0), a_major=a_major,
                            b_major=b_major)
    nvvm.WgmmaGroupSyncAlignedOp()
    return accs


def _mainloop(cfg, consumer, turn, a_stages, b_stages, k_tiles, leader):
    """The K loop of one tile (k_tiles >= 1): wait on block t, issue its
    wgmmas, wait for block t-1's (``wait_group 1``) and release its stage
    (carried one trip); after the loop hand the mainloop turn on, then wait
    for the last wgmmas and release the last stage."""
    rows = cfg.bm // ROWS

    def block(slot, accs, first=False):
        return mma_k_block(accs, smem_address(slot.stage_ptr(a_stages)),
                           smem_address(slot.stage_ptr(b_stages)), cfg.bn, first=first,
                           a_major=cfg.a_major, b_major=cfg.b_major)

    accs = [llvm.mlir_undef(acc_type(cfg.bn)) for _ in range(rows)]   # overwritten first
    first = consumer.wait()
    accs = block(first, accs, first=True)
    loop = lang.range(1, k_tiles, carry=[consumer, first, *accs])
    for _ in loop:
        _, prev, *accs = loop.carry
        slot = consumer.wait()
        accs = block(slot, accs)
        nvvm.WgmmaWaitGroupSyncOp(1)               # block t-1's wgmmas are done
        prev.release(pred=leader)
        loop.next(consumer, slot, *accs)
    _, _, *accs = loop.results
    turn.arrive()                                  # the other warpgroup's mainloop may start
    nvvm.WgmmaWaitGroupSyncOp(0)
    first.release(pred=leader)                     # `first` now holds the last slot
    return accs


def pingpong_consumer(k, cfg, pipe, order, a_ring, b_ring, k_tiles, cw, wtid, raster,
                      n_tiles, staging, Mp, Np) -> None:
    """Consumer warpgroup `cw` (0 or 1, a value) of the ping-pong kernel:
    tiles ``%ctaid.x + (2 i + cw) * %nctaid.x`` of the raster, its consumer
    state starting `cw` tiles into the ring. `staging`: this warpgroup's
    TMA-store buffers (``epilogue="tma"``), else None."""
    S = cfg.stages
    a_stages = StageBuffer(a_ring, (S, cfg.bm, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    leader = wtid == 0
    meet = warpgroup_barrier(k, cw) if staging is not None else None
    consumer = pipe.consumer()
    consumer.advance(cw * k_tiles)                 # warpgroup 1 starts at the second tile
    me = order.start(cw)
    stride = k.block_count() * 2
    for vb in lang.range(k.block_rank() + cw * k.block_count(), n_tiles, stride,
                         carry=[consumer, me]):
        tile_m, tile_n = raster(vb)
        turn = me.wait()                           # stage 0: the mainloop, in turn
        accs = _mainloop(cfg, consumer, turn, a_stages, b_stages, k_tiles, leader)
        consumer.advance(k_tiles)                  # the other warpgroup's tile
        turn = me.wait()                           # stage 1: the epilogue, in turn
        for m, acc in enumerate(accs):
            row0, col0 = tile_m * cfg.bm + m * ROWS, tile_n * cfg.bn
            if staging is None:
                store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np)
                continue
            store_tile_any(k, acc, cfg, staging, row0, col0, wtid, meet, Mp, Np)
        turn.arrive()                              # the other warpgroup's epilogue may start
    if staging is not None:
        store_drain(wtid)
