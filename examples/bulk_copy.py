"""A bulk copy (TMA engine) that completes on an mbarrier: each CTA copies its
4 KiB tile of `src` from global into shared memory with `cp.async.bulk`,
waits for it on a barrier that expects the bytes, and writes the tile out.

    python examples/bulk_copy.py [--ctas 4] [-o OUT_DIR] [--run]

The barrier counts one arrival (thread 0's) and, in the same phase, the
transaction bytes: thread 0 posts them with ``arrive(0, tx_count=nbytes)``
(``mbarrier.arrive.expect_tx``) before it starts the copy, whose completion
(``mbarrier::complete_tx::bytes``) brings the count to zero. The phase
completes only when both happened, so after ``wait(0, 0)`` every thread sees
the whole tile.
"""
import argparse
import os

import numpy as np

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import Kernel, TMABar, cp_async_bulk, for_range, if_then

N = 1024        # ints per tile: 4 KiB
THREADS = 128


def build(ctas: int = 4) -> Kernel:
    """bulk_copy(src, out): out[i] = src[i] for i < ctas * 1024, one tile per CTA."""
    with Kernel("bulk_copy", block=THREADS, grid=ctas, params=[("src", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(N, "i32", align=128)
        pool.commit()
        k.prologue({bar: 1})

        first = k.block_rank() * N                         # this CTA's tile
        with if_then(k.is_thread(0)):
            bar.arrive(0, tx_count=tile.nbytes)            # 1 arrival + 4096 bytes expected
            cp_async_bulk(tile, k.param("src"), bar=bar, src_index=first)
        bar.wait(0, 0)                                     # arrival and bytes both done

        tid = k.thread_rank()
        with for_range(0, N // THREADS) as loop:
            i = loop.iv * THREADS + tid
            k.store(tile.load(i), k.param("out"), first + i)
    return k


def case(ctas: int = 4) -> manifest.Case:
    """The kernel with random inputs and its data check, for the GPU suite."""
    src = np.random.default_rng().integers(-2**31, 2**31 - 1, ctas * N, dtype=np.int32)
    return manifest.Case(build(ctas), [manifest.buffer("src", src),
                                       manifest.buffer("out", fill=-1, shape=[ctas * N])],
                         {"out": src}, inputs={"src": src})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ctas", type=int, default=4)
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it and check the result")
    args = parser.parse_args()
    compiled = build(args.ctas).compile()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "bulk_copy.ptx"), "w") as f:
        f.write(compiled.ptx)
    print(f"wrote bulk_copy.ptx to {os.path.abspath(args.out_dir)}")
    if args.run:
        src = np.random.default_rng(0).integers(-2**31, 2**31 - 1, args.ctas * N, dtype=np.int32)
        out = np.full_like(src, -1)
        compiled.launch(args=[src, out])
        assert (out == src).all()
        print(f"{args.ctas} tiles of {N * 4} bytes copied: all correct")


if __name__ == "__main__":
    main()
