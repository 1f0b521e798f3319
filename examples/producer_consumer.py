"""A producer/consumer ring in one CTA: warp 0 produces 32-int items into a
ring of `stages` shared-memory slots, warp 1 consumes them (v -> 3 * v + 1).

    python examples/producer_consumer.py [--stages 4] [-o OUT_DIR] [--run]

Two barrier groups of `stages` barriers each:

- `full[s]`: slot s holds an item (32 arrivals: the producer's lanes);
- `empty[s]`: slot s may be overwritten (32 arrivals: the consumer's
  lanes). It starts "released": ``phase_offset=1`` makes the first wait on
  each slot return at once.

The i-th item uses slot ``i % stages`` and waits for the phase of parity
``(i // stages) & 1``: ``bar.stage_phase(i)``. Each lane's arrive releases
its own write (or read) of the slot; the other warp's wait acquires it.
"""
import argparse
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import Kernel, MBarrier, for_range, if_else

SOURCE_ITEMS = 4096  # src holds 4096 items of 32 ints; item i reads item i % 4096


@dataclass
class Ring:
    """The ring of one CTA: `stages` slots of 32 ints with their `full` and
    `empty` barriers (the GPU suite's stress test runs the same ring)."""
    full: MBarrier
    empty: MBarrier
    slots: object  # lang.SmemBuffer (stages, 32) i32

    @classmethod
    def allocate(cls, k: Kernel, stages: int) -> "Ring":
        """Lay the ring out in shared memory and initialize it (32 arrivals
        per phase on each barrier: one warp's lanes)."""
        pool = k.smem_pool()
        full = MBarrier(pool, stages)
        empty = MBarrier(pool, stages, phase_offset=1)
        slots = pool.alloc((stages, 32), "i32", align=128)
        pool.commit()
        k.prologue({full: 32, empty: 32})
        return cls(full, empty, slots)

    def produce(self, items, lane, item: Callable) -> None:
        """The producer warp: `items` times, wait for a free slot, put
        ``item(i)`` (this lane's value of item i) into it, arrive on full."""
        with for_range(0, items) as loop:
            stage, phase = self.full.stage_phase(loop.iv)
            self.empty.wait(stage, phase)                   # the slot is free
            self.slots.store(item(loop.iv), (stage, lane))
            self.full.arrive(stage)                         # ...and now holds an item

    def consume(self, items, lane, use: Callable, carry=None):
        """The consumer warp: `items` times, wait for an item, read this
        lane's value v, arrive on empty, then ``use(loop, v)``; `carry` as
        for_range's. Returns the loop."""
        with (for_range(0, items) if carry is None else for_range(0, items, carry=carry)) as loop:
            stage, phase = self.full.stage_phase(loop.iv)
            self.full.wait(stage, phase)                    # an item is there
            v = self.slots.load((stage, lane))
            self.empty.arrive(stage)                        # the slot may be reused
            use(loop, v)
        return loop


def build(stages: int = 4) -> Kernel:
    """producer_consumer_<stages>stage(src, out, items):
    out[i * 32 + lane] = 3 * src[(i % 4096) * 32 + lane] + 1."""
    with Kernel(f"producer_consumer_{stages}stage", block=64,
                params=[("src", "ptr"), ("out", "ptr"), ("items", "i32")]) as k:
        ring = Ring.allocate(k, stages)
        tid = k.thread_rank()
        lane, warp = tid % 32, tid // 32
        items = k.param("items")

        role = if_else(warp == 0)
        with role.then():                                   # producer warp
            ring.produce(items, lane,
                         lambda i: k.load(k.param("src"), (i % SOURCE_ITEMS) * 32 + lane))
        with role.otherwise():                              # consumer warp
            ring.consume(items, lane,
                         lambda loop, v: k.store(v * 3 + 1, k.param("out"), loop.iv * 32 + lane))
    return k


def expected(src: np.ndarray, items: int) -> np.ndarray:
    """What the kernel writes to `out` for `src` (int32, 4096 * 32)."""
    per_item = np.resize(src.reshape(SOURCE_ITEMS, 32), (items, 32)).reshape(-1)
    return (per_item.astype(np.int64) * 3 + 1).astype(np.int32)


def case(stages: int = 4, items: int = 4096) -> manifest.Case:
    """The kernel with random inputs and its data check, for the GPU suite."""
    src = np.random.default_rng().integers(-2**20, 2**20, SOURCE_ITEMS * 32, dtype=np.int32)
    return manifest.Case(build(stages),
                         [manifest.buffer("src", src),
                          manifest.buffer("out", fill=-1, shape=[items * 32]),
                          manifest.scalar(items)],
                         {"out": expected(src, items)}, inputs={"src": src})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--items", type=int, default=4096)
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it and check the result")
    args = parser.parse_args()
    kernel = build(args.stages)
    compiled = kernel.compile()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, f"{kernel.name}.ptx"), "w") as f:
        f.write(compiled.ptx)
    print(f"wrote {kernel.name}.ptx to {os.path.abspath(args.out_dir)}")
    if args.run:
        src = np.random.default_rng(0).integers(-2**20, 2**20, SOURCE_ITEMS * 32, dtype=np.int32)
        out = np.full(args.items * 32, -1, np.int32)
        compiled.launch(args=[src, out, args.items])
        assert (out == expected(src, args.items)).all()
        print(f"{args.items} items through {args.stages} slots: all correct")


if __name__ == "__main__":
    main()
