"""The GPU suite's named-barrier ping-pong (issue 22): two consumer warp
groups take turns in FA3's WarpScheduler order (warp group 0 gets the
first turn; each then ``sync(256, own)``, does its step, ``arrive(256,
next)``). In its turn, thread 0 of the warp group reads a shared sequence
number, writes it to ``out[2 * step + wg]`` and increments it; the turns
alternate exactly when ``out`` is 0, 1, 2, ... and the final number is
``2 * iters``.

``first_turn=False`` is the hang variant: without the first turn each
warp group waits for the other's arrive, which comes after the other's
wait (a cycle of the wait-for graph; test/python/compiler/test_named_barriers.py
checks that the checker rejects it, it is never launched)."""
from __future__ import annotations

import numpy as np

from mbarrier_dialect.lang import Kernel, for_range, if_else, if_then
from mbarrier_dialect.manifest import Case, buffer


def build(iters: int = 1000, first_turn: bool = True) -> Kernel:
    """The kernel (not compiled)."""
    name = "named_pingpong" if first_turn else "named_pingpong_no_first_turn"
    with Kernel(name, block=256, params=[("out", "ptr"), ("seq", "ptr")]) as k:
        turn = [k.named_barrier(threads=256), k.named_barrier(threads=256)]
        tid = k.thread_rank()
        wg0 = tid < 128
        if first_turn:
            with if_then(wg0):
                turn[0].arrive()
        out, seq = k.param("out"), k.param("seq")
        with for_range(0, iters) as loop:
            side = if_else(wg0)
            for wg, branch in enumerate((side.then, side.otherwise)):
                with branch():
                    turn[wg].sync()
                    with if_then(tid % 128 == 0):
                        n = k.load(seq, 0)
                        k.store(n, out, loop.iv * 2 + wg)
                        k.store(n + 1, seq, 0)
                    turn[1 - wg].arrive()
    return k


def named_pingpong(iters: int = 1000) -> Case:
    """The suite case: every turn's sequence number checked."""
    k = build(iters)
    return Case(k, [buffer("out", fill=-1, shape=[2 * iters]), buffer("seq", fill=0, shape=[1])],
                {"out": np.arange(2 * iters, dtype=np.int32),
                 "seq": np.array([2 * iters], dtype=np.int32)})
