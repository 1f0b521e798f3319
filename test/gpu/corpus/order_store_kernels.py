"""GPU suite kernels of issue 22 (ordered sequences, the TMA store), built
with lang; build_suite.py adds SUITES to kernels.SUITES.

- ``seq_pingpong``: two consumer warp groups take turns, in order, at two
  stages per tile (CUTLASS's ping-pong: mainloop, epilogue) through one
  ``lang.OrderedSequence``; in its turn each group applies an affine map
  to a shared array that depends on the group and the tile, so the result
  is the product of the maps in the order the turns ran: numpy checks it.
- ``tma_store_roundtrip``: one CTA TMA-loads each 32x32 tile of an array,
  every thread transforms its elements (2x + 1) into a
  ``lang.StorePipeline`` staging buffer (2 deep), thread 0 TMA-stores it
  to the output array; numpy checks every element.
- ``seq_pingpong_missing_arrive`` (not in a suite: it hangs): group 1
  hands the mainloop on under group 0's predicate; the checker rejects it
  at compile time (test_order_store.py).
"""
from __future__ import annotations

import numpy as np

from mbarrier_dialect import lang
from mbarrier_dialect.lang import (Kernel, OrderedSequence, StorePipeline, TMABar,
                                   cp_async_bulk_tensor, if_else, if_then)
from mbarrier_dialect.manifest import Case, buffer, scalar, tensormap

WG = 128                       # threads per warp group
# stage -> (multiplier, per-group constant, per-tile constant)
MAPS = {0: (3, 7, 1), 1: (5, 11, 2)}


def _turn(k, acc, stage, group, tile, lane):
    """Group `group`'s part of `stage` for `tile`: acc[stage][lane] = acc *
    m + (group * a + tile * b + lane) (mod 2^32)."""
    m, a, b = MAPS[stage]
    old = k.load(acc, (stage, lane))
    k.store(old * m + (group * a + tile * b + lane), acc, (stage, lane))


def _expect(tiles: int) -> np.ndarray:
    acc = np.zeros((2, WG), np.int64)
    lane = np.arange(WG, dtype=np.int64)
    for t in range(tiles):
        for stage, (m, a, b) in MAPS.items():
            for g in (0, 1):                   # group 0 first at every stage
                acc[stage] = (acc[stage] * m + g * a + t * b + lane) % 2**32
    return ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)


def seq_pingpong(tiles: int = 500, *, specialized: bool = False,
                 missing_arrive: bool = False) -> Case:
    """Two warp groups ordered by an OrderedSequence<2 stages, 2 groups,
    128 arrivals>; the state carried through the tile loop (CUTLASS's
    shape: one code for both groups, the group from the thread id).
    `specialized`: each group's code on its own (its constant group, the
    tiles unrolled), so that the checker counts each barrier's arrivals;
    `missing_arrive` (the hang variant): group 1's mainloop hand-on under
    group 0's predicate."""
    name = "seq_pingpong" + ("_specialized" if specialized else "") \
        + ("_missing_arrive" if missing_arrive else "")
    with Kernel(name, block=2 * WG, params=[("out", "ptr"), ("tiles", "i32")]) as k:
        pool = k.smem_pool()
        order = OrderedSequence(pool, depth=2, groups=2, arrivals=WG)
        acc = pool.alloc((2, WG), "i32")
        pool.commit()
        tid = k.thread_rank()
        wg, lane = tid // WG, tid % WG
        with if_then(wg == 0):
            k.store(0, acc, (0, lane))
            k.store(0, acc, (1, lane))
        k.prologue(sequences=[order])          # the bar.sync also orders the zeros
        if specialized:
            branch = if_else(wg == 0)
            for group, side in ((0, branch.then), (1, branch.otherwise)):
                with side():
                    me = order.start(group)
                    for t in range(tiles):
                        for stage in (0, 1):
                            turn = me.wait()
                            _turn(k, acc, stage, group, t, lane)
                            bad = missing_arrive and group == 1 and stage == 0
                            turn.arrive(pred=(tid < WG) if bad else None)
        else:
            me = order.start(wg)
            for t in lang.range(k.param("tiles"), carry=[me]):
                for stage in (0, 1):           # the mainloop, then the epilogue
                    turn = me.wait()
                    _turn(k, acc, stage, wg, t, lane)
                    turn.arrive()
        k.sync_threads()
        with if_then(wg == 0):
            k.store(k.load(acc, (0, lane)), k.param("out"), lane)
            k.store(k.load(acc, (1, lane)), k.param("out"), WG + lane)
    return Case(k, [buffer("out", fill=-1, shape=[2, WG]), scalar(tiles)],
                {"out": _expect(tiles)})


def tma_store_roundtrip(tiles: int = 64, depth: int = 2) -> Case:
    """Load tile t (32x32 i32) with TMA, stage 2x + 1 of it in staging
    buffer t % depth, TMA-store it to the same place of the output."""
    rows, cols, threads = 32, 32, 128
    with Kernel("tma_store_roundtrip", block=threads,
                params=[("src", "ptr"), ("srcmap", "ptr"), ("dst", "ptr"), ("dstmap", "ptr"),
                        ("tiles", "i32")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(rows * cols, "i32", align=128)
        stores = StorePipeline(pool, depth, (rows, cols), "i32")
        pool.commit()
        k.prologue({bar: 1})
        tid = k.thread_rank()
        for t in lang.range(k.param("tiles")):
            with if_then(tid == 0):
                bar.arrive(0, tx_count=tile.nbytes)
                cp_async_bulk_tensor(tile, k.param("srcmap"), [t * rows, 0], bar=bar)
                stores.acquire()               # staging buffer t % depth is free
            bar.wait(0, t & 1)
            k.sync_threads()                   # ... for every writer
            for j in range(rows * cols // threads):
                i = j * threads + tid
                k.store(k.load(tile, i) * 2 + 1, stores.buffer(t), i)
            k.fence_proxy_async()              # the writes, then the async proxy
            k.sync_threads()                   # (also: the tile is read by all)
            with if_then(tid == 0):
                stores.store(t, k.param("dstmap"), [t * rows, 0])
        with if_then(tid == 0):
            stores.tail()
    src = np.random.default_rng(22).integers(-2**20, 2**20, (tiles * rows, cols), dtype=np.int32)
    shape = (tiles * rows, cols)
    return Case(k, [buffer("src", src), tensormap("src", shape, (rows, cols)),
                    buffer("dst", fill=-1, shape=list(shape)), tensormap("dst", shape, (rows, cols)),
                    scalar(tiles)],
                {"dst": src * 2 + 1}, inputs={"src": src})


SUITES = {"full": [seq_pingpong, tma_store_roundtrip],
          "sanitize": [lambda: seq_pingpong(20), lambda: tma_store_roundtrip(8)]}
