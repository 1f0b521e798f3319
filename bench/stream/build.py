#!/usr/bin/env python3
"""Build the pipeline benchmarks of BENCHMARKS.md ("Pipelines"): no GPU
needed. Writes cubins and manifest.json into OUT_DIR for bench/stream/run.py.

    python -m bench.stream.build OUT_DIR [--nvcc nvcc]

1. Streaming: a TMA-pipelined reduction (lang.Pipeline: one producer thread,
   four consumer warps, a ring of DEPTH stages of ROWS x 256 int32) over a
   large int32 array, persistent (CTAs stride over the tiles), in several
   shapes (depth, rows, CTAs per SM); and the same pipeline hand-written in
   CUDA with inline PTX (bench/reference/tma_stream.cu, CUTLASS's protocol)
   for each shape. The runner times both and a device-to-device copy.
2. Multicast: examples/tma_pipeline.py in clusters of 2 and 4 CTAs that share
   every tile, once through TMA multicast (each CTA loads 1/C and multicasts
   it along the row) and once with every CTA loading the whole tile; over a
   large array (DRAM-bound) and over 8 MiB that every cluster re-reads
   (L2-resident: the CTAs' loads from L2 are what multicast saves).
"""
from __future__ import annotations

from pathlib import Path

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, Pipeline, if_then

from bench import harness
from examples import tma_pipeline

ROOT = Path(__file__).resolve().parents[2]
COLS, CONSUMERS = 256, 128
# (depth, rows): stages of rows x 256 int32; depth * rows * 1 KiB <= 48 KiB.
SHAPES = [(5, 8), (4, 8), (2, 16), (11, 4)]


def stream_kernel(depth: int, rows: int) -> Kernel:
    """tma_stream(tmap, out, ntiles): CTA b sums tiles b, b + G, ... of the
    (ntiles * rows) x 256 int32 array; consumer thread t of CTA b writes
    out[b * 128 + t]."""
    tile = rows * COLS
    name = f"tma_stream_d{depth}_r{rows}"
    with Kernel(name, block=32 + CONSUMERS,
                params=[("tmap", "ptr"), ("out", "ptr"), ("ntiles", "i32")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, depth, kind="tma", consumers=CONSUMERS // 32)
        stages = pool.alloc((depth, tile), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])
        tid, b = k.thread_rank(), k.block_rank()
        grid = _grid_dim_x()                   # persistent: the launch picks the grid
        count = (k.param("ntiles") - b + grid - 1) // grid
        with if_then(tid == 0):
            producer = pipe.producer()
            for j in lang.range(count, carry=[producer]):
                slot = producer.acquire()
                slot.cp_async_bulk_tensor(stages, k.param("tmap"), [(b + j * grid) * rows, 0],
                                          box_bytes=tile * 4)
                slot.commit(bytes=tile * 4)
            producer.tail()
        with if_then(tid >= 32):
            me = tid - 32
            consumer = pipe.consumer()
            loop = lang.range(count, carry=[consumer, 0])
            for _ in loop:
                _, acc = loop.carry
                slot = consumer.wait()
                for i in range(tile // CONSUMERS):
                    acc = acc + stages.load((slot.index, me + i * CONSUMERS))
                k.sync_warp()
                slot.release(pred=(me % 32) == 0)
                loop.next(consumer, acc)
            _, total = loop.results
            k.store(total, k.param("out"), b * CONSUMERS + me)
    return k


def _grid_dim_x():
    from mlir.dialects import gpu
    return lang.as_i32(gpu.GridDimOp(gpu.Dimension.x).result)


def build(out_dir: Path, nvcc: str = "nvcc") -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for depth, r in SHAPES:
        kernel = stream_kernel(depth, r)
        ours = harness.write_kernel(out_dir, kernel.name, kernel.compile().cubin)
        ref = out_dir / f"tma_stream_ref_d{depth}_r{r}.cubin"
        harness.nvcc_cubin(nvcc, ROOT / "bench" / "reference" / "tma_stream.cu", ref,
                           f"-DDEPTH={depth}", f"-DROWS={r}", "-I",
                           str(ROOT / "bench" / "reference"), arch="sm_90a")
        rows.append({"kind": "stream", "depth": depth, "rows": r, "ours": ours,
                     "ours_name": kernel.name, "ref": ref.name, "ref_name": "tma_stream_ref"})
    pipeline = tma_pipeline
    for wrap in (None, MCAST_L2_TILES):
        for cluster in (2, 4):
            # "multicast_ptx80": the same multicast pipeline compiled for PTX
            # 8.0, where the release is a .release.cluster arrive per CTA
            # (no restricted fence, no relaxed arrive): issue 14's consumer
            # release, measured on a real pipeline.
            for share in ("multicast", "load", "multicast_ptx80"):
                name = f"mcast_c{cluster}_{share}" + ("_l2" if wrap else "")
                kernel = pipeline.build(cluster, depth=4, warps=2, tiles=MCAST_TILES,
                                        clusters=MCAST_CTAS // cluster, name=name,
                                        share=share.replace("_ptx80", ""), wrap=wrap)
                features = "+ptx80" if share.endswith("_ptx80") else None
                compiled = kernel.compile(features=features)
                assert ("fence.release.sync_restrict" in compiled.ptx) == (share == "multicast")
                cubin = harness.write_kernel(out_dir, name, compiled.cubin)
                rows.append({"kind": "multicast", "cluster": cluster, "share": share,
                             "name": name, "cubin": cubin, "tiles": MCAST_TILES,
                             "clusters": MCAST_CTAS // cluster, "rows": pipeline.ROWS,
                             "box_rows": pipeline.ROWS // (1 if share == "load" else cluster),
                             "cols": pipeline.COLS, "warps": 2, "wrap": wrap})
    return harness.write_manifest(out_dir, rows)


MCAST_CTAS = 132       # one CTA per SM
MCAST_TILES = 1024     # 8 KiB tiles per cluster: 66 clusters x 8 MiB = 528 MiB for C = 2
MCAST_L2_TILES = 1024  # the L2-resident variant: every cluster re-reads 8 MiB


def main() -> None:
    args = harness.builder_args(__doc__.split("\n\n")[0], out_dir_type=Path)
    harness.report_built(build(args.out_dir, args.nvcc)["kernels"],
                         lambda row: row.get("ours_name") or row["name"])


if __name__ == "__main__":
    main()
