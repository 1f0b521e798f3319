"""Build the kernels of BENCHMARKS.md's "Fence merging" section
(bench/fence_kernels.py) to cubins, plus the hand-written reference
(bench/reference/fence_merge.cu), and write the manifest that
bench/run_fence.py reads on the GPU machine (no MLIR there).

    python bench/build_fence.py OUT_DIR [--nvcc nvcc] [--only NAME ...]
                                [--latency DIR [--pre DIR]]

Each kernel goes through the three stages of mbarrier-to-ptx, the first
with merge-release-fences on or off as the variant says (the per-arrive
baseline is the same IR with the merge off), then ptxas. The PTX of each is
kept next to its cubin.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fence_kernels  # noqa: E402

REFERENCE = os.path.join(HERE, "reference", "fence_merge.cu")


def compile_text(text: str, merge: bool, opt_level: int = 3) -> tuple[str, bytes]:
    """(PTX, cubin) of a module with one gpu.module, through mbarrier-to-ptx's
    stages (merge-release-fences as given) and ptxas."""
    from mlir import ir
    from mlir.passmanager import PassManager

    from mbarrier_dialect.compiler import _extract_modules
    from mbarrier_dialect.dialects.mbarrier import register_dialect, register_passes
    from mbarrier_dialect.ptxas import assemble

    options = f"O={opt_level}" + ("" if merge else " merge-release-fences=false")
    register_passes()
    ctx = ir.Context()
    register_dialect(ctx)
    with ctx:
        module = ir.Module.parse(text)
        for pipeline in (f"mbarrier-to-ptx-stage-nvvm{{{options}}}",
                         "mbarrier-to-ptx-stage-llvm",
                         "gpu-module-to-binary{format=isa}"):
            PassManager.parse(f"builtin.module({pipeline})").run(module.operation)
        (compiled,) = _extract_modules(module).values()
    return compiled.ptx, assemble(compiled.ptx, compiled.chip, opt_level)


def build_latency(out_dir: str, nvcc: str, pre_dir: str | None) -> dict:
    """The latency table of BENCHMARKS.md again (bench/latency_kernels.py vs
    bench/reference/mbarrier_latency.cu), with this lowering: every row with
    merge-release-fences off (the same protocol as the reference), the
    cluster-4 broadcast also with it on, and the run-time-stage ping-pong
    (fence_kernels.pp_stage4 vs fence_merge.cu), also as built before the
    mapa of the base (`pre_dir`/pp_stage4_mapa_in_loop.cubin, if given).
    A manifest for bench/run_latency.py."""
    import shutil

    import build_latency
    import latency_kernels

    os.makedirs(out_dir, exist_ok=True)
    for stem, flags in (("reference", []), ("reference_rolled", ["-DREF_NO_UNROLL"])):
        subprocess.run([nvcc, "-O3", "-arch=sm_90", "-cubin", *flags, "-o",
                        os.path.join(out_dir, f"{stem}.cubin"), build_latency.REFERENCE],
                       check=True)
    subprocess.run([nvcc, "-O3", "-arch=sm_90", "-cubin", "-DREF_NO_UNROLL", "-o",
                    os.path.join(out_dir, "fence_reference.cubin"), REFERENCE], check=True)
    rows = []

    def add(name, label, text, merge, unroll, anchor, reference, reference_entry, grid,
            block, cluster, cubin=None):
        if cubin is None:
            ptx, cubin = compile_text(text, merge)
            with open(os.path.join(out_dir, f"{name}.ptx"), "w") as f:
                f.write(ptx)
        with open(os.path.join(out_dir, f"{name}.cubin"), "wb") as f:
            f.write(cubin)
        rows.append({"name": name, "label": label, "anchor": anchor, "unroll": unroll,
                     "ours": f"{name}.cubin", "ours_entry": entry_of[name],
                     "reference": reference, "reference_entry": reference_entry,
                     "grid": list(grid), "block": list(block),
                     "cluster": list(cluster) if cluster else None})

    entry_of = {}
    for bench in latency_kernels.all_benches():
        k = bench.kernel
        reference = "reference_rolled.cubin" if bench.unroll == 1 else "reference.cubin"
        text = str(k.module)
        variants = [(bench.name, bench.label, False)]
        if bench.name.startswith("bcast4_release"):
            variants.append((bench.name + "_merged", bench.label + " (merged)", True))
        for name, label, merge in variants:
            entry_of[name] = bench.name
            add(name, label, text, merge, bench.unroll, bench.anchor, reference,
                bench.reference, k.grid, k.block, k.cluster)
    stage = fence_kernels.pp_stage(4)
    entry_of[stage.name] = stage.name
    add(stage.name, "remote relaxed.cluster / acquire.cluster, run-time stage of 4",
        stage.text, True, 1, None, "fence_reference.cubin", stage.reference,
        (2, 1, 1), (1, 1, 1), (2, 1, 1))
    old = os.path.join(pre_dir, "pp_stage4_mapa_in_loop.cubin") if pre_dir else None
    if old and os.path.exists(old):
        entry_of["pp_stage4_mapa_in_loop"] = stage.name
        with open(old, "rb") as f:
            add("pp_stage4_mapa_in_loop", "... the same, mapa inside the loop (before)", None,
                True, 1, None, "fence_reference.cubin", stage.reference,
                (2, 1, 1), (1, 1, 1), (2, 1, 1), cubin=f.read())
        shutil.copy(old.replace(".cubin", ".ptx"), out_dir)
    manifest = {"rows": rows}
    with open(os.path.join(out_dir, "latency.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def build(out_dir: str, nvcc: str = "nvcc", only: list[str] | None = None) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    subprocess.run([nvcc, "-O3", "-arch=sm_90", "-cubin", "-DREF_NO_UNROLL", "-o",
                    os.path.join(out_dir, "fence_reference.cubin"), REFERENCE], check=True)
    rows = []
    for kernel in fence_kernels.all_kernels():
        if only and kernel.name not in only:
            continue
        ptx, cubin = compile_text(kernel.text, kernel.merge)
        with open(os.path.join(out_dir, f"{kernel.name}.ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(out_dir, f"{kernel.name}.cubin"), "wb") as f:
            f.write(cubin)
        rows.append({"name": kernel.name, "kind": kernel.kind, "k": kernel.k,
                     "variant": kernel.variant, "cluster": kernel.cluster,
                     "merge": kernel.merge, "cubin": f"{kernel.name}.cubin",
                     "reference": "fence_reference.cubin" if kernel.reference else None,
                     "reference_entry": kernel.reference})
    manifest = {"rows": rows}
    with open(os.path.join(out_dir, "fence.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--latency", metavar="DIR",
                        help="also build the latency table's rows into DIR (run_latency.py)")
    parser.add_argument("--pre", metavar="DIR",
                        help="where pp_stage4_mapa_in_loop.cubin (built before the mapa change) is")
    args = parser.parse_args()
    for row in build(args.out_dir, args.nvcc, args.only)["rows"]:
        print("built", row["name"])
    if args.latency:
        for row in build_latency(args.latency, args.nvcc, args.pre)["rows"]:
            print("built", row["name"])
