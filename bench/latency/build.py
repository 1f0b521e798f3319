"""Build the latency benchmark: our kernels (mbarrier_dialect.lang -> cubin)
and the hand-written reference (nvcc -O3 -arch=sm_90 -cubin), plus a
manifest for bench/latency/run.py, which runs on the GPU machine without MLIR.

    python -m bench.latency.build OUT_DIR [--nvcc nvcc]
"""
from __future__ import annotations

import os

from bench import harness
from bench.latency import kernels as latency_kernels

REFERENCE = os.path.join(harness.BENCH, "reference", "mbarrier_latency.cu")


def build_references(out_dir: str, nvcc: str) -> None:
    """reference.cubin (nvcc's default build, loops unrolled by 4) and
    reference_rolled.cubin (-DREF_NO_UNROLL)."""
    for stem, flags in (("reference", []), ("reference_rolled", ["-DREF_NO_UNROLL"])):
        harness.nvcc_cubin(nvcc, REFERENCE, os.path.join(out_dir, f"{stem}.cubin"), *flags)


def row(name: str, label: str, *, entry: str, anchor, unroll: int, reference: str,
        reference_entry: str, grid, block, cluster) -> dict:
    """An entry of the latency manifest: our NAME.cubin (kernel `entry`) against kernel
    `reference_entry` of the `reference` cubin, in one launch shape."""
    return {"name": name, "label": label, "anchor": anchor, "unroll": unroll,
            "ours": f"{name}.cubin", "ours_entry": entry,
            "reference": reference, "reference_entry": reference_entry,
            "grid": list(grid), "block": list(block),
            "cluster": list(cluster) if cluster else None}


def bench_row(bench, name: str | None = None, label: str | None = None) -> dict:
    """The row of a latency_kernels bench (built as NAME.cubin, default its
    own name), in its kernel's launch shape."""
    k = bench.kernel
    # A rolled loop is compared with the rolled reference, 4 rounds per
    # trip with nvcc's own build (which unrolls the reference's loops by 4).
    reference = "reference_rolled.cubin" if bench.unroll == 1 else "reference.cubin"
    return row(name or bench.name, label or bench.label, entry=bench.name, anchor=bench.anchor,
               unroll=bench.unroll, reference=reference, reference_entry=bench.reference,
               grid=k.grid, block=k.block, cluster=k.cluster)


def build(out_dir: str, nvcc: str = "nvcc") -> dict:
    os.makedirs(out_dir, exist_ok=True)
    build_references(out_dir, nvcc)
    rows = []
    for bench in latency_kernels.all_benches():
        harness.write_kernel(out_dir, bench.name, bench.kernel.compile().cubin)
        rows.append(bench_row(bench))
    return harness.write_manifest(out_dir, rows)


if __name__ == "__main__":
    args = harness.builder_args(__doc__)
    harness.report_built(build(args.out_dir, args.nvcc)["kernels"])
