"""A ring of 4 CTAs passing data through distributed shared memory: each CTA
sends `items` items of 32 ints to the next CTA of the cluster and receives
as many from the previous one, through a ring of `stages` mailbox slots in
the receiver's shared memory.

    python examples/cluster_ring.py [--stages 2] [-o OUT_DIR] [--run]

Per CTA, warp 0 sends and warp 1 receives. Each CTA owns:

- `mailbox[stages][32]`: written by the previous CTA's sender, through
  distributed shared memory (``mailbox.remote(next)``: ``mapa`` +
  ``st.shared::cluster``);
- `full[s]`: slot s holds an item. The sender's 32 lanes arrive on the
  *next* CTA's `full[s]` through a remote view (``release.cluster``: each
  lane's arrival publishes its own store); the receiver waits on its own
  (``acquire.cluster``, the default in a cluster kernel);
- `empty[s]`: back-pressure. The receiver's lanes, after reading slot s,
  arrive on the *previous* CTA's `empty[s]`; the sender waits on its own
  `empty[s]` before it overwrites slot s of the next CTA. It starts
  released (``phase_offset=1``).

`k.prologue` initializes both groups and publishes the inits to the cluster
before anyone arrives; `k.epilogue` keeps every CTA alive until the last
remote arrival on its barriers has landed.
"""
import argparse
import os

import numpy as np

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import Kernel, MBarrier, for_range, if_else

CTAS = 4


def build(stages: int = 2) -> Kernel:
    """cluster_ring(src, out, items): out[r, j] = src[(r - 1) % 4, j] for
    j < items * 32, each CTA r of the cluster receiving from CTA r - 1."""
    with Kernel("cluster_ring", block=64, cluster=CTAS,
                params=[("src", "ptr"), ("out", "ptr"), ("items", "i32")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, stages)
        empty = MBarrier(pool, stages, phase_offset=1)
        mailbox = pool.alloc((stages, 32), "i32", align=128)
        pool.commit()
        k.prologue({full: 32, empty: 32})

        rank = k.cluster_rank()
        tid = k.thread_rank()
        lane, warp = tid % 32, tid // 32
        items = k.param("items")
        nxt, prev = (rank + 1) % CTAS, (rank - 1) % CTAS
        row = items * 32                                  # ints per CTA in src and out

        role = if_else(warp == 0)
        with role.then():                                 # sender: to the next CTA
            next_mailbox = mailbox.remote(nxt)
            next_full = full.remote_view(nxt)
            with for_range(0, items) as loop:
                stage, phase = full.stage_phase(loop.iv)
                empty.wait(stage, phase)                  # the next CTA freed slot `stage`
                v = k.load(k.param("src"), rank * row + loop.iv * 32 + lane)
                next_mailbox.store(v, (stage, lane))      # st.shared::cluster
                next_full.arrive(stage)                   # release.cluster, remote
        with role.otherwise():                            # receiver: from the previous CTA
            prev_empty = empty.remote_view(prev)
            with for_range(0, items) as loop:
                stage, phase = full.stage_phase(loop.iv)
                full.wait(stage, phase)                   # acquire.cluster
                v = mailbox.load((stage, lane))
                prev_empty.arrive(stage)                  # back-pressure: slot is free again
                k.store(v, k.param("out"), rank * row + loop.iv * 32 + lane)
        k.epilogue()
    return k


def expected(src: np.ndarray) -> np.ndarray:
    """What the kernel writes to `out` (shape (4, items * 32)) for `src`."""
    return np.roll(src, 1, axis=0)


def case(stages: int = 2, items: int = 2000, timeout_s: int = 60) -> manifest.Case:
    """The kernel with random inputs and its data check, for the GPU suite."""
    src = np.random.default_rng().integers(-2**31, 2**31 - 1, (CTAS, items * 32), dtype=np.int32)
    return manifest.Case(build(stages),
                         [manifest.buffer("src", src),
                          manifest.buffer("out", fill=-1, shape=[CTAS, items * 32]),
                          manifest.scalar(items)],
                         {"out": expected(src)}, inputs={"src": src}, timeout_s=timeout_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it and check the result")
    args = parser.parse_args()
    compiled = build(args.stages).compile()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "cluster_ring.ptx"), "w") as f:
        f.write(compiled.ptx)
    print(f"wrote cluster_ring.ptx to {os.path.abspath(args.out_dir)}")
    if args.run:
        src = np.random.default_rng(0).integers(-2**31, 2**31 - 1, (CTAS, args.items * 32),
                                                dtype=np.int32)
        out = np.full_like(src, -1)
        compiled.launch(args=[src, out, args.items])
        assert (out == expected(src)).all()
        print(f"{args.items} items around a ring of {CTAS} CTAs: all correct")


if __name__ == "__main__":
    main()
