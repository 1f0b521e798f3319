"""The runtime evidence for mbarrier-check-sync (docs/checker.md): one buggy
kernel per bug class, each after its public report, and its fixed twin.
The buggy kernels are compiled with the checker off (they would not compile
with it on: test/python/compiler/test_check_sync.py checks that the checker reports
each one), into cubins and a manifest that run_manifest.py runs on the GPU
with a timeout, so that each failure shows as HANG, ERROR (a CUDA fault),
FAIL (wrong data) or, where the hardware happens to hide the bug, PASS.

    python test/gpu/corpus/buggy.py OUT_DIR          # e.g. .gpu/buggy
    python3 test/gpu/suite/run_manifest.py OUT_DIR  # on the GPU machine

Every kernel writes `out`; the expected values are those of a correct run
(the fixed twin passes with them). BUGS maps each kernel to its class, the
diagnostic the checker gives it and the symptom its report describes.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import (Kernel, MBarrier, TMABar, cp_async_bulk, for_range, if_else,
                                   if_then)
from mbarrier_dialect.lang.barriers import init_group

HANG_TIMEOUT_S = 20


class Unchecked:
    """A lang Kernel that compiles with the synchronization checker off (what
    manifest.write_case calls is compile())."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.name, self.grid, self.block, self.cluster = (
            kernel.name, kernel.grid, kernel.block, kernel.cluster)

    def compile(self):
        return self.kernel.compile(check_sync=False)


def _spin(k: Kernel, scratch, n) -> None:
    """A delay the compiler cannot remove: `n` dependent loads from global
    memory, their result stored. (A loop of plain stores is not one: LLVM
    keeps only its last store.)"""
    with for_range(0, n, carry=[1]) as loop:
        (acc,) = loop.carry
        loop.next(acc * 3 + k.load(scratch, (loop.iv + acc) & 1023))
    k.store(loop.results[0], scratch, 0)


def _name(stem: str, fixed: bool) -> str:
    return f"{stem}_fixed" if fixed else stem


def b1_init_not_published(fixed: bool = False) -> manifest.Case:
    """Class 1 (NVIDIA/Fuser#1552, fb/triton#1240): CTA 0's thread 0 is slow
    to initialize its barrier; CTA 1 arrives on it at once, with no
    fence_init + cluster barrier in between. The init then resets the
    pending count: CTA 0 waits for an arrival that was lost."""
    with Kernel(_name("b1_init_not_published", fixed), block=32, cluster=2,
                params=[("out", "ptr"), ("scratch", "ptr"), ("spin", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        rank = k.cluster_rank()
        with if_then(k.is_thread(0)):
            with if_then(rank == 0):
                _spin(k, k.param("scratch"), k.param("spin"))
            init_group(bar, 1)  # by this thread: inside its if_then
        if fixed:
            k.fence_barrier_init()
            k.cluster_sync()
        with if_then((rank == 1) & k.is_thread(0)):
            bar.remote_view(0).arrive(0)
        with if_then(rank == 0):
            bar.wait(0, 0)
            with if_then(k.is_thread(0)):
                k.store(1, k.param("out"), 0)
        k.epilogue()
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[1]),
                                        manifest.buffer("scratch", fill=0, shape=[1024]),
                                        manifest.scalar(200_000)],
                         {"out": np.array([1], np.int32)}, timeout_s=HANG_TIMEOUT_S)


def b2_exit_before_remote_arrival(fixed: bool = False) -> manifest.Case:
    """Class 2 (fb/triton#1105, CUDA_EXCEPTION_17; triton#9413): CTA 1 is
    slow and then arrives on CTA 0's barrier; CTA 0 never waits for it and
    exits, its shared memory gone. Fixed: a final cluster barrier."""
    with Kernel(_name("b2_exit_before_remote_arrival", fixed), block=32, cluster=2,
                params=[("out", "ptr"), ("scratch", "ptr"), ("spin", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        rank = k.cluster_rank()
        with if_then((rank == 1) & k.is_thread(0)):
            _spin(k, k.param("scratch"), k.param("spin"))
            bar.remote_view(0).arrive(0)
        with if_then(k.is_thread(0)):
            k.store(1, k.param("out"), rank)
        if fixed:
            k.epilogue()
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[2]),
                                        manifest.buffer("scratch", fill=0, shape=[1024]),
                                        manifest.scalar(200_000)],
                         {"out": np.array([1, 1], np.int32)}, timeout_s=HANG_TIMEOUT_S)


def _ring(k: Kernel, full: MBarrier, empty: MBarrier, slot, items, *, lanes_arrive_full,
          consumer_phase=None) -> None:
    """Warp 0 produces `items` values into `slot` (one int per lane), warp 1
    checks each; out[lane] counts the mismatches of lane `lane`."""
    tid = k.thread_rank()
    lane, warp = tid % 32, tid // 32
    with for_range(0, items, carry=[0, 0]) as loop:
        phase, bad = loop.carry
        role = if_else(warp == 0)
        with role.then():
            empty.wait(0, phase)
            slot.store(loop.iv * 32 + lane, lane)
            if lanes_arrive_full:
                full.arrive(0)
            else:
                full.arrive(0, pred=lane == 0, count=32)
            role.yield_(bad)
        with role.otherwise():
            full.wait(0, phase if consumer_phase is None else consumer_phase)
            wrong = (slot.load(lane) != loop.iv * 32 + lane).to("i32")
            empty.arrive(0)
            role.yield_(bad + wrong)
        loop.next(phase ^ 1, role.results[0])
    with if_then(warp == 1):
        k.store(loop.results[1], k.param("out"), lane)


def b3_warp_arrives_on_count_one(fixed: bool = False) -> manifest.Case:
    """Class 3 (deepseek-ai/DeepEP#293, triton#9498): every lane of the
    producer warp arrives on a `full` barrier initialized with count 1, so
    each item completes 32 phases and the consumer's parity no longer
    matches the item it waits for. Fixed: count 32."""
    items = 20_000
    with Kernel(_name("b3_warp_arrives_on_count_one", fixed), block=64,
                params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 1)
        empty = MBarrier(pool, 1, phase_offset=1)
        slot = pool.alloc(32, "i32", align=128)
        pool.commit()
        k.prologue({full: 32 if fixed else 1, empty: 32})
        _ring(k, full, empty, slot, items, lanes_arrive_full=True)
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[32])],
                         {"out": np.zeros(32, np.int32)}, timeout_s=HANG_TIMEOUT_S)


def b4_one_signal_for_four_warps(fixed: bool = False) -> manifest.Case:
    """Class 4 (NVIDIA/cutlass#2418): the barrier counts one arrival per warp
    but the signalling thread is fixed to thread 0: phase 0 never completes.
    Fixed: lane 0 of every warp arrives."""
    with Kernel(_name("b4_one_signal_for_four_warps", fixed), block=128,
                params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 4})
        tid = k.thread_rank()
        signal = tid % 32 == 0 if fixed else tid == 0
        with if_then(signal):
            bar.arrive(0)
        bar.wait(0, 0)
        k.store(1, k.param("out"), tid)
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[128])],
                         {"out": np.ones(128, np.int32)}, timeout_s=HANG_TIMEOUT_S)


def b5_constant_parity(fixed: bool = False) -> manifest.Case:
    """Class 5 (tile-ai/tilelang#3087): the consumer waits for parity 0 in
    every trip; from the second item on the wait returns at once and the
    consumer reads the slot before the producer has written it. Fixed: the
    parity flips each trip."""
    items = 20_000
    with Kernel(_name("b5_constant_parity", fixed), block=64, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 1)
        empty = MBarrier(pool, 1, phase_offset=1)
        slot = pool.alloc(32, "i32", align=128)
        pool.commit()
        k.prologue({full: 32, empty: 32})
        _ring(k, full, empty, slot, items, lanes_arrive_full=True,
              consumer_phase=None if fixed else 0)
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[32])],
                         {"out": np.zeros(32, np.int32)}, timeout_s=HANG_TIMEOUT_S)


def b6_expect_tx_mismatch(fixed: bool = False) -> manifest.Case:
    """Class 6 (triton#9046): thread 0 expects 8192 transaction bytes, but
    its bulk copy brings the 4096 of the tile: the phase never completes.
    Fixed: expect the copy's bytes."""
    n = 1024
    src = np.arange(n, dtype=np.int32)
    with Kernel(_name("b6_expect_tx_mismatch", fixed), block=128,
                params=[("src", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(n, "i32", align=128)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.is_thread(0)):
            bar.arrive(0, tx_count=tile.nbytes if fixed else 2 * tile.nbytes)
            cp_async_bulk(tile, k.param("src"), bar=bar)
        bar.wait(0, 0)
        tid = k.thread_rank()
        with for_range(0, n // 128) as loop:
            i = loop.iv * 128 + tid
            k.store(tile.load(i), k.param("out"), i)
    return manifest.Case(Unchecked(k), [manifest.buffer("src", src),
                                        manifest.buffer("out", fill=-1, shape=[n])],
                         {"out": src}, inputs={"src": src}, timeout_s=HANG_TIMEOUT_S)


def b7_relaxed_handoff(fixed: bool = False) -> manifest.Case:
    """Class 7 (NVIDIA/cutlass#3324, Dao-AILab/quack#63, sglang#38829):
    every lane of CTA 0's warp writes its value into CTA 1's mailbox
    (st.shared::cluster), then arrives with a relaxed arrival and no fence;
    CTA 1 waits with scope cta and checks the values. The memory model
    guarantees nothing; the hardware may still deliver them. Fixed: the
    default release.cluster arrival and acquire.cluster wait."""
    rounds = 20_000
    with Kernel(_name("b7_relaxed_handoff", fixed), block=32, cluster=2,
                params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 1)
        empty = MBarrier(pool, 1, phase_offset=1)
        mailbox = pool.alloc(32, "i32", align=128)
        pool.commit()
        k.prologue({full: 32, empty: 32})
        rank = k.cluster_rank()
        lane = k.thread_rank()
        weak = {} if fixed else {"sem": "relaxed"}
        wait_scope = {} if fixed else {"scope": "cta"}
        with for_range(0, rounds, carry=[0, 0]) as loop:
            phase, bad = loop.carry
            side = if_else(rank == 0)
            with side.then():
                empty.wait(0, phase)
                mailbox.remote(1).store(loop.iv * 32 + lane, lane)
                full.remote_view(1).arrive(0, **weak)
                side.yield_(bad)
            with side.otherwise():
                full.wait(0, phase, **wait_scope)
                wrong = (mailbox.load(lane) != loop.iv * 32 + lane).to("i32")
                empty.remote_view(0).arrive(0, **weak)
                side.yield_(bad + wrong)
            loop.next(phase ^ 1, side.results[0])
        with if_then(rank == 1):
            k.store(loop.results[1], k.param("out"), lane)
        k.epilogue()
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[32])],
                         {"out": np.zeros(32, np.int32)}, timeout_s=HANG_TIMEOUT_S)


def b8_use_after_inval(fixed: bool = False) -> manifest.Case:
    """Class 8 (triton#11120, triton#11244: barrier storage reused while
    live): after the first phase thread 0 invalidates the barrier and reuses
    its 8 bytes for data, as it may once nobody uses the barrier; but every
    thread still arrives and waits on it for a second phase, so the
    arrivals and the data overwrite each other. Fixed: nobody touches the
    barrier after the inval. out[tid] = 1; out[64] = the data read back
    intact."""
    value = 0x1234_5678_9ABC
    with Kernel(_name("b8_use_after_inval", fixed), block=64, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 64})
        bar.arrive(0)
        bar.wait(0, 0)
        k.sync_threads()
        with if_then(k.is_thread(0)):
            bar.inval(0)
            bar._slot.store(value, 0)            # the storage, reused for data
        k.sync_threads()
        if not fixed:
            bar.arrive(0)
            bar.wait(0, 1)
        k.sync_threads()
        k.store(1, k.param("out"), k.thread_rank())
        with if_then(k.is_thread(0)):
            k.store((bar._slot.load(0) == value).to("i32"), k.param("out"), 64)
    return manifest.Case(Unchecked(k), [manifest.buffer("out", fill=-1, shape=[65])],
                         {"out": np.ones(65, np.int32)}, timeout_s=HANG_TIMEOUT_S)


@dataclass
class Bug:
    cls: int
    build: object
    severity: str          # what mbarrier-check-sync reports: "error" or "warning"
    diagnostic: str        # a fragment of its message
    report: str            # the public report
    reported_symptom: str  # what the report describes


BUGS = [
    Bug(1, b1_init_not_published, "error",
        "before its mbarrier.init is visible to the cluster", "NVIDIA/Fuser#1552",
        "hang (no sync after the init)"),
    Bug(2, b2_exit_before_remote_arrival, "error",
        "is followed by the kernel's exit with no cluster barrier", "fb/triton#1105",
        "CUDA_EXCEPTION_17 (cluster target block not present)"),
    Bug(3, b3_warp_arrives_on_count_one, "error",
        "arrives 32 times on a barrier initialized with arrival count 1", "DeepEP#293",
        "wrong data / hang"),
    Bug(4, b4_one_signal_for_four_warps, "error",
        "waits for a phase that never completes", "cutlass#2418", "deadlock"),
    Bug(5, b5_constant_parity, "error",
        "waits on the same barrier and parity in every trip of the loop", "tilelang#3087",
        "wrong results"),
    Bug(6, b6_expect_tx_mismatch, "error",
        "expects 8192 transaction bytes on the barrier, but the bulk copies that complete "
        "on it bring 4096 bytes", "triton#9046", "deadlock (unseen by ConSan)"),
    Bug(7, b7_relaxed_handoff, "warning",
        "waits with scope cta on a barrier that other CTAs arrive on", "cutlass#3324",
        "stale reads (2-CTA mxfp8)"),
    Bug(8, b8_use_after_inval, "error", "uses a barrier after mbarrier.inval",
        "triton#11120", "barrier storage reused while live"),
]


def cases() -> list[manifest.Case]:
    """Every buggy kernel, each followed by its fixed twin."""
    return [bug.build(fixed) for bug in BUGS for fixed in (False, True)]


def build(out_dir: str) -> dict:
    return manifest.write(cases(), out_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", default=os.path.join(".gpu", "buggy"))
    args = parser.parse_args()
    written = build(args.out_dir)
    for entry in written["kernels"]:
        print(f"built {entry['name']}: grid {entry['grid']} cluster {entry['cluster']}")


if __name__ == "__main__":
    sys.exit(main())
