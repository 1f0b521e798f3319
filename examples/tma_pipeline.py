"""A TMA pipeline written with lang.Pipeline: a ring of `depth` stages that a
producer thread fills with TMA tensor copies and consumer warps drain.

    python examples/tma_pipeline.py [--cluster 2] [--depth 4] [--warps 2] [-o OUT] [--run]

In a cluster of C CTAs (C x 1), the CTAs share every tile: each loads 1/C of
it and multicasts its part to the whole row (``multicast="row"``), so every
CTA receives the whole tile on its own full barrier, and each consumer warp
releases the stage to every CTA of the row (the CTAs that write into it).
Nobody writes a count, a phase or a mask: the pipe type derives them.

Each consumer thread sums its elements of every tile (wrapping int32); the
check compares every CTA's sums with numpy's, so a stale stage, a lost
multicast part or an early release shows up as a wrong sum.
"""
import argparse
import os

import numpy as np

from mbarrier_dialect import lang, manifest
from mbarrier_dialect.lang import Kernel, Pipeline, if_then

ROWS, COLS = 32, 64                  # a tile: 32 x 64 int32 = 8 KiB
TILE = ROWS * COLS
TILE_BYTES = TILE * 4


def build(cluster: int = 2, depth: int = 4, warps: int = 2, tiles: int = 64,
          clusters: int = 1, name: str | None = None) -> Kernel:
    """tma_pipeline(x, tmap, out): out[cta, t] = sum over tiles of the
    elements t, t + 32*warps, ... of each tile (int32, wrapping)."""
    if ROWS % cluster:
        raise ValueError(f"the {ROWS} rows of a tile split over the cluster's {cluster} CTAs")
    piece_rows = ROWS // cluster
    threads = 32 * (warps + 1)
    name = name or f"tma_pipeline_c{cluster}_d{depth}_w{warps}"
    with Kernel(name, block=threads, grid=cluster * clusters,
                cluster=cluster if cluster > 1 else None,
                params=[("x", "ptr"), ("tmap", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        multicast = "row" if cluster > 1 else "none"
        pipe = Pipeline(pool, depth, kind="tma", consumers=warps, multicast=multicast)
        stages = pool.alloc((depth, TILE), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])

        tid = k.thread_rank()
        rank = k.cluster_rank() if cluster > 1 else lang.const(0)
        first_tile = (k.block_rank() // cluster) * tiles

        with if_then(tid == 0):                          # the producer thread
            producer = pipe.producer()
            for t in lang.range(tiles, carry=[producer]):
                slot = producer.acquire()
                row = (first_tile + t) * ROWS + rank * piece_rows
                slot.cp_async_bulk_tensor(stages, k.param("tmap"), [row, 0],
                                          box_bytes=piece_rows * COLS * 4,
                                          multicast=multicast if cluster > 1 else None,
                                          byte_offset_in_stage=0)
                slot.commit(bytes=TILE_BYTES)
            producer.tail()

        with if_then(tid >= 32):                         # the consumer warps
            me = tid - 32
            consumer = pipe.consumer()
            loop = lang.range(tiles, carry=[consumer, 0])
            for t in loop:
                _, acc = loop.carry
                slot = consumer.wait()
                for j in range(TILE // (32 * warps)):
                    acc = acc + stages.load((slot.index, me + j * 32 * warps))
                slot.release(pred=(me % 32) == 0)        # one release per warp
                loop.next(consumer, acc)
            _, total = loop.results
            cta = k.block_rank()
            k.store(total, k.param("out"), cta * (32 * warps) + me)
        k.epilogue()
    return k


def expected(x: np.ndarray, cluster: int, warps: int, tiles: int, clusters: int) -> np.ndarray:
    """Every CTA of cluster c sums the tiles c*tiles .. (c+1)*tiles - 1."""
    per = x.reshape(clusters, tiles, TILE // (32 * warps), 32 * warps).astype(np.int64)
    sums = per.sum(axis=(1, 2))                               # (clusters, 32*warps)
    sums = ((sums + 2**31) % 2**32 - 2**31).astype(np.int32)  # int32 wrap-around
    return np.repeat(sums, cluster, axis=0)


def case(cluster: int = 2, depth: int = 4, warps: int = 2, tiles: int = 64,
         clusters: int = 1, name: str | None = None) -> manifest.Case:
    """The kernel with random tiles and its exact check, for the GPU suite."""
    x = np.random.default_rng(cluster * 100 + depth).integers(
        -2**31, 2**31 - 1, (clusters * tiles * ROWS, COLS), dtype=np.int32)
    ctas = cluster * clusters
    kernel = build(cluster, depth, warps, tiles, clusters, name)
    return manifest.Case(kernel, [manifest.buffer("x", x),
                                  manifest.tensormap("x", x.shape, (ROWS // cluster, COLS)),
                                  manifest.buffer("out", fill=-1, shape=[ctas, 32 * warps])],
                         {"out": expected(x, cluster, warps, tiles, clusters)}, inputs={"x": x})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", type=int, default=2)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--warps", type=int, default=2)
    parser.add_argument("--tiles", type=int, default=64)
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it and check the result")
    args = parser.parse_args()
    compiled = build(args.cluster, args.depth, args.warps, args.tiles).compile()
    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, "tma_pipeline.ptx")
    with open(path, "w") as f:
        f.write(compiled.ptx)
    print(f"wrote {path}")
    if args.run:
        from mbarrier_dialect import runtime
        c = case(args.cluster, args.depth, args.warps, args.tiles)
        runtime.run_case(c) if hasattr(runtime, "run_case") else None


if __name__ == "__main__":
    main()
