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

ROWS, COLS = 32, 64                  # a tile: 32 x 64 int32 = 8 KiB (rows= to change)


def build(cluster: int = 2, depth: int = 4, warps: int = 2, tiles: int = 64,
          clusters: int = 1, name: str | None = None, rows: int = ROWS,
          share: str = "multicast", wrap: int | None = None) -> Kernel:
    """tma_pipeline(x, tmap, out): out[cta, t] = sum over tiles of the
    elements t, t + 32*warps, ... of each tile (int32, wrapping).

    `share`: ``"multicast"`` (each CTA of the cluster loads 1/cluster of a
    tile and multicasts it along the row) or ``"load"`` (each CTA loads the
    whole tile itself: the baseline of the multicast benchmark). With
    `wrap`, cluster c reads tiles (c*tiles + t) mod wrap: a working set of
    `wrap` tiles that stays in L2."""
    if share not in ("multicast", "load"):
        raise ValueError(f"share is 'multicast' or 'load', got {share!r}")
    cluster_parts = 1 if share == "load" else cluster   # CTAs that load a part of each tile
    if rows % cluster_parts:
        raise ValueError(f"the {rows} rows of a tile split over the cluster's {cluster} CTAs")
    piece_rows = rows // cluster_parts
    tile = rows * COLS
    threads = 32 * (warps + 1)
    name = name or f"tma_pipeline_c{cluster}_d{depth}_w{warps}"
    with Kernel(name, block=threads, grid=cluster * clusters,
                cluster=cluster if cluster > 1 else None,
                params=[("x", "ptr"), ("tmap", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        multicast = "row" if cluster_parts > 1 else "none"
        pipe = Pipeline(pool, depth, kind="tma", consumers=warps, multicast=multicast)
        stages = pool.alloc((depth, tile), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])

        tid = k.thread_rank()
        rank = k.cluster_rank() if cluster_parts > 1 else lang.const(0)
        first_tile = (k.block_rank() // cluster) * tiles

        with if_then(tid == 0):                          # the producer thread
            producer = pipe.producer()
            for t in lang.range(tiles, carry=[producer]):
                slot = producer.acquire()
                index = first_tile + t if wrap is None else (first_tile + t) % wrap
                row = index * rows + rank * piece_rows
                slot.cp_async_bulk_tensor(stages, k.param("tmap"), [row, 0],
                                          box_bytes=piece_rows * COLS * 4,
                                          multicast="row" if cluster_parts > 1 else None,
                                          byte_offset_in_stage=rank * (piece_rows * COLS * 4))
                slot.commit(bytes=tile * 4)
            producer.tail()

        with if_then(tid >= 32):                         # the consumer warps
            me = tid - 32
            consumer = pipe.consumer()
            loop = lang.range(tiles, carry=[consumer, 0])
            for t in loop:
                _, acc = loop.carry
                slot = consumer.wait()
                for j in range(tile // (32 * warps)):
                    acc = acc + stages.load((slot.index, me + j * 32 * warps))
                k.sync_warp()                            # the warp's reads are done
                slot.release(pred=(me % 32) == 0)        # one release per warp
                loop.next(consumer, acc)
            _, total = loop.results
            cta = k.block_rank()
            k.store(total, k.param("out"), cta * (32 * warps) + me)
        k.epilogue()
    return k


def expected(x: np.ndarray, cluster: int, warps: int, tiles: int, clusters: int) -> np.ndarray:
    """Every CTA of cluster c sums the tiles c*tiles .. (c+1)*tiles - 1."""
    per = x.reshape(clusters, tiles, -1, 32 * warps).astype(np.int64)
    sums = per.sum(axis=(1, 2))                               # (clusters, 32*warps)
    sums = ((sums + 2**31) % 2**32 - 2**31).astype(np.int32)  # int32 wrap-around
    return np.repeat(sums, cluster, axis=0)


def case(cluster: int = 2, depth: int = 4, warps: int = 2, tiles: int = 64,
         clusters: int = 1, name: str | None = None, rows: int = ROWS) -> manifest.Case:
    """The kernel and its exact check, for the GPU suite: random tiles, or,
    above 4 MiB of input, 0, 1, 2, ... made on the GPU machine (every tile
    still differs, so a stale stage changes the sums)."""
    shape = (clusters * tiles * rows, COLS)
    ctas = cluster * clusters
    kernel = build(cluster, depth, warps, tiles, clusters, name, rows)
    if shape[0] * shape[1] * 4 <= 4 << 20:
        x = np.random.default_rng(cluster * 100 + depth).integers(
            -2**31, 2**31 - 1, shape, dtype=np.int32)
        arg, inputs = manifest.buffer("x", x), {"x": x}
    else:
        x = np.arange(shape[0] * shape[1]).astype(np.int32).reshape(shape)
        arg, inputs = manifest.buffer("x", shape=shape, arange=True), {}
    return manifest.Case(kernel, [arg, manifest.tensormap("x", shape, (rows // cluster, COLS)),
                                  manifest.buffer("out", fill=-1, shape=[ctas, 32 * warps])],
                         {"out": expected(x, cluster, warps, tiles, clusters)}, inputs=inputs)


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
        runtime.require_gpu()                  # NoGPUError, clearly, without one
        rng = np.random.default_rng(0)
        x = rng.integers(-2**31, 2**31 - 1, (args.tiles * ROWS, COLS), dtype=np.int32)
        out = np.full((args.cluster, 32 * args.warps), -1, np.int32)
        with runtime.DeviceBuffer.from_numpy(x) as dx:
            tmap = runtime.encode_tensor_map_tiled(dx, box=(ROWS // args.cluster, COLS))
            compiled.launch(args=[dx, tmap, out])
        assert (out == expected(x, args.cluster, args.warps, args.tiles, 1)).all()
        print(f"{args.tiles} tiles through {args.cluster} CTA(s): every sum correct")


if __name__ == "__main__":
    main()
