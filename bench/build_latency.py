"""Build the latency benchmark: our kernels (mbarrier_dialect.lang -> cubin)
and the hand-written reference (nvcc -O3 -arch=sm_90 -cubin), plus a
manifest for run_latency.py, which runs on the GPU machine without MLIR.

    python bench/build_latency.py OUT_DIR [--nvcc nvcc]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import latency_kernels  # noqa: E402

REFERENCE = os.path.join(HERE, "reference", "mbarrier_latency.cu")


def build(out_dir: str, nvcc: str = "nvcc") -> dict:
    os.makedirs(out_dir, exist_ok=True)
    for stem, flags in (("reference", []), ("reference_rolled", ["-DREF_NO_UNROLL"])):
        subprocess.run([nvcc, "-O3", "-arch=sm_90", "-cubin", *flags, "-o",
                        os.path.join(out_dir, f"{stem}.cubin"), REFERENCE], check=True)
    rows = []
    for bench in latency_kernels.all_benches():
        compiled = bench.kernel.compile()
        with open(os.path.join(out_dir, f"{bench.name}.cubin"), "wb") as f:
            f.write(compiled.cubin)
        k = bench.kernel
        # A rolled loop is compared with the rolled reference, 4 rounds per
        # trip with nvcc's own build (which unrolls the reference's loops by 4).
        reference = "reference_rolled.cubin" if bench.unroll == 1 else "reference.cubin"
        rows.append({"name": bench.name, "label": bench.label, "anchor": bench.anchor,
                     "unroll": bench.unroll,
                     "ours": f"{bench.name}.cubin", "ours_entry": bench.name,
                     "reference": reference, "reference_entry": bench.reference,
                     "grid": list(k.grid), "block": list(k.block),
                     "cluster": list(k.cluster) if k.cluster else None})
    manifest = {"rows": rows}
    with open(os.path.join(out_dir, "latency.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--nvcc", default="nvcc")
    args = parser.parse_args()
    for row in build(args.out_dir, args.nvcc)["rows"]:
        print("built", row["name"])
