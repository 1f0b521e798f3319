"""The GPU evidence of debug waits (issue 21): hangs that become located
errors. Every hanging kernel of buggy.py (b1 init not published, b4
under-arrival, b5 constant parity, b6 expect-tx bytes, compiled with the
checker off as there) and three hangs the static checker cannot see
(compiled with it on: it says nothing), each with its correct twin, all
compiled with debug waits:

- h1, a wait cycle across two barriers in two CTAs: each CTA waits on its
  own barrier before it arrives on the other's;
- h2, a byte count loaded from global memory: the kernel expects the
  transaction bytes that its `bytes` argument holds, 8192 for a 4096-byte
  copy (the twin: the same kernel given 4096);
- h3, a producer two phases ahead through a thread-dependent index: the
  producer warp waits on the empty barrier of its warp's stage,
  ``(tid / 32) % 2`` (stage 0 for warp 0), instead of its item's, so on
  stage 1 it arrives on the full barrier twice before the slow consumer
  waits there once: the consumer's parity now names a phase that never
  completes.

    python test/gpu/corpus/debug_waits.py OUT_DIR [--bound-ns 200000000]
    python3 test/gpu/suite/run_debug_waits.py OUT_DIR      # on the GPU machine

OUT_DIR/hangs/manifest.json lists the hangs in run_manifest.py's format plus,
per kernel, ``bound_ns`` and ``stuck_at`` (``file.py:LINE`` of each wait
that may be the stuck one); each must fail its launch within the bound + 1 s
with a line naming one of them. OUT_DIR/twins is a plain manifest of the
twins (run_manifest.py runs it as it is); each must pass with debug waits
on. OUT_DIR/twins-sanitize holds the same twins with a bound of 20 s, for
compute-sanitizer (under which they run many times slower).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
import buggy  # noqa: E402

from mbarrier_dialect import manifest  # noqa: E402
from mbarrier_dialect.lang import (Kernel, MBarrier, TMABar, cp_async_bulk, for_range,  # noqa: E402
                                   if_else, if_then)

BOUND_NS = 200_000_000     # 200 ms
# The twins under compute-sanitizer run many times slower: the same build
# with a bound no instrumented wait of theirs comes near.
SANITIZE_BOUND_NS = 20_000_000_000
# The runner's own limit for one launch: far past bound + 1 s, so that a
# kernel that still hangs is reported as HANG, not cut short.
RUNNER_TIMEOUT_S = 20


class DebugWaits:
    """A lang Kernel compiled with debug waits (and the checker on or off)."""

    def __init__(self, kernel: Kernel, bound_ns: int, check_sync: bool):
        self.kernel, self.bound_ns, self.check_sync = kernel, bound_ns, check_sync
        self.name, self.grid, self.block, self.cluster = (
            kernel.name, kernel.grid, kernel.block, kernel.cluster)

    def compile(self):
        return self.kernel.compile(check_sync=self.check_sync, debug_waits=self.bound_ns)


def wait_lines(function) -> list[str]:
    """``file.py:LINE`` of every ``.wait(`` call in `function`'s source: the
    locations a stuck wait of it may print."""
    lines, first = inspect.getsourcelines(function)
    base = os.path.basename(inspect.getsourcefile(function))
    return [f"{base}:{first + i}" for i, text in enumerate(lines)
            if ".wait(" in text and not text.lstrip().startswith("#")]


def h1_wait_cycle(fixed: bool = False) -> manifest.Case:
    """Two CTAs, one barrier each (count 1): CTA r waits on its own barrier,
    then thread 0 arrives on the peer's. Both wait first: neither arrives.
    Fixed: CTA 0 arrives first (then waits), CTA 1 waits, then arrives."""
    with Kernel(buggy._name("h1_wait_cycle", fixed), block=32, cluster=2,
                params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        rank = k.cluster_rank()
        first = k.is_thread(0)
        if fixed:
            with if_then((rank == 0) & first):
                bar.remote_view(1).arrive(0)
            first = first & (rank == 1)
        bar.wait(0, 0)
        with if_then(first):
            bar.remote_view(1 - rank).arrive(0)
        k.store(1, k.param("out"), rank * 32 + k.thread_rank())
        k.epilogue()
    return manifest.Case(k, [manifest.buffer("out", fill=-1, shape=[64])],
                         {"out": np.ones(64, np.int32)}, timeout_s=RUNNER_TIMEOUT_S)


def h2_bytes_from_memory(fixed: bool = False) -> manifest.Case:
    """Thread 0 expects the transaction bytes that `bytes[0]` holds and
    bulk-copies a 4096-byte tile; every thread waits, then copies the tile
    out. Given 8192 the phase never completes; the twin is the same kernel
    given 4096."""
    n = 1024
    src = np.arange(n, dtype=np.int32)
    with Kernel(buggy._name("h2_bytes_from_memory", fixed), block=128,
                params=[("src", "ptr"), ("bytes", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(n, "i32", align=128)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.is_thread(0)):
            bar.arrive(0, tx_count=k.load(k.param("bytes"), 0))
            cp_async_bulk(tile, k.param("src"), bar=bar)
        bar.wait(0, 0)
        tid = k.thread_rank()
        with for_range(0, n // 128) as loop:
            i = loop.iv * 128 + tid
            k.store(tile.load(i), k.param("out"), i)
    nbytes = n * 4 if fixed else 2 * n * 4
    return manifest.Case(k, [manifest.buffer("src", src),
                             manifest.buffer("bytes", fill=nbytes, shape=[1]),
                             manifest.buffer("out", fill=-1, shape=[n])],
                         {"out": src}, inputs={"src": src}, timeout_s=RUNNER_TIMEOUT_S)


H3_ITEMS = 64
H3_SPIN = 20_000   # the consumer's delay per item (dependent global loads)


def h3_producer_two_phases_ahead(fixed: bool = False) -> manifest.Case:
    """A ring of two stages: warp 0 produces item i into stage i % 2 (every
    lane arrives on full, count 32), warp 1 checks each item, releases the
    stage (empty, count 32), then is slow (a delay). The producer waits on
    empty[(tid / 32) % 2] (stage 0 for warp 0), not empty[i % 2]: on odd
    items it passes at once, and arrives on full[1] for two phases while
    the consumer is delayed; the consumer's wait for the first of them then
    names a phase that never completes. Fixed: empty[i % 2]. out[lane]
    counts the consumer's mismatches."""
    with Kernel(buggy._name("h3_producer_two_phases_ahead", fixed), block=64,
                params=[("out", "ptr"), ("scratch", "ptr")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 2)
        empty = MBarrier(pool, 2, phase_offset=1)
        slots = pool.alloc((2, 32), "i32", align=128)
        pool.commit()
        k.prologue({full: 32, empty: 32})
        tid = k.thread_rank()
        lane, warp = tid % 32, tid // 32
        with for_range(0, H3_ITEMS, carry=[0]) as loop:
            (bad,) = loop.carry
            stage, phase = full.stage_phase(loop.iv)
            role = if_else(warp == 0)
            with role.then():
                empty.wait(stage if fixed else warp % 2, phase)
                slots.store(loop.iv * 32 + lane, (stage, lane))
                full.arrive(stage)
                role.yield_(bad)
            with role.otherwise():
                full.wait(stage, phase)
                wrong = (slots.load((stage, lane)) != loop.iv * 32 + lane).to("i32")
                empty.arrive(stage)
                buggy._spin(k, k.param("scratch"), H3_SPIN)
                role.yield_(bad + wrong)
            loop.next(role.results[0])
        with if_then(warp == 1):
            k.store(loop.results[0], k.param("out"), lane)
    return manifest.Case(k, [manifest.buffer("out", fill=-1, shape=[32]),
                             manifest.buffer("scratch", fill=0, shape=[1024])],
                         {"out": np.zeros(32, np.int32)}, timeout_s=RUNNER_TIMEOUT_S)


# (builder, the functions whose waits may be the stuck one, compiled with
# the checker on): the checker reports buggy.py's and, since the protocol
# model (class 12 across the CTAs of a cluster), h1's cycle; not h2's, h3's.
HANGS = [
    (buggy.b1_init_not_published, [buggy.b1_init_not_published], False),
    (buggy.b4_one_signal_for_four_warps, [buggy.b4_one_signal_for_four_warps], False),
    (buggy.b5_constant_parity, [buggy._ring], False),
    (buggy.b6_expect_tx_mismatch, [buggy.b6_expect_tx_mismatch], False),
    (h1_wait_cycle, [h1_wait_cycle], False),
    (h2_bytes_from_memory, [h2_bytes_from_memory], True),
    (h3_producer_two_phases_ahead, [h3_producer_two_phases_ahead], True),
]


def _with_debug_waits(case: manifest.Case, bound_ns: int, check_sync: bool) -> manifest.Case:
    kernel = case.kernel.kernel if isinstance(case.kernel, buggy.Unchecked) else case.kernel
    case.kernel = DebugWaits(kernel, bound_ns, check_sync)
    return case


def build(out_dir: str, bound_ns: int = BOUND_NS,
          sanitize_bound_ns: int = SANITIZE_BOUND_NS) -> dict:
    """Write OUT_DIR/hangs, OUT_DIR/twins and OUT_DIR/twins-sanitize (the
    twins with `sanitize_bound_ns`); returns the three manifests."""
    hangs, twins, slow, stuck, bounds = [], [], [], {}, {}
    for builder, functions, check_sync in HANGS:
        hang = _with_debug_waits(builder(False), bound_ns, check_sync)
        stuck[hang.kernel.name] = [line for f in functions for line in wait_lines(f)]
        hangs.append(hang)
        twins.append(_with_debug_waits(builder(True), bound_ns, check_sync))
        slow.append(_with_debug_waits(builder(True), sanitize_bound_ns, check_sync))
    written = {}
    for part, cases, bound in (("hangs", hangs, bound_ns), ("twins", twins, bound_ns),
                               ("twins-sanitize", slow, sanitize_bound_ns)):
        written[part] = manifest.write(cases, os.path.join(out_dir, part))
        bounds[part] = bound
    for part, data in written.items():
        for entry in data["kernels"]:
            entry["bound_ns"] = bounds[part]
    for entry in written["hangs"]["kernels"]:
        entry["stuck_at"] = stuck[entry["name"]]
    for part, data in written.items():
        with open(os.path.join(out_dir, part, "manifest.json"), "w") as f:
            json.dump(data, f, indent=1)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", default=os.path.join(".gpu", "debug-waits"))
    parser.add_argument("--bound-ns", type=int, default=BOUND_NS)
    parser.add_argument("--sanitize-bound-ns", type=int, default=SANITIZE_BOUND_NS)
    args = parser.parse_args()
    written = build(args.out_dir, args.bound_ns, args.sanitize_bound_ns)
    for part, data in written.items():
        for entry in data["kernels"]:
            print(f"built {part}/{entry['name']}: grid {entry['grid']} cluster {entry['cluster']}"
                  + (f" stuck at one of {', '.join(entry['stuck_at'])}" if "stuck_at" in entry else ""))


if __name__ == "__main__":
    sys.exit(main())
