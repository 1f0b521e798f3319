"""Build the kernels of BENCHMARKS.md's "Fence merging" section
(bench/fence/kernels.py) to cubins, plus the hand-written reference
(bench/reference/fence_merge.cu), and write the manifest that
bench/fence/run.py reads on the GPU machine (no MLIR there).

    python -m bench.fence.build OUT_DIR [--nvcc nvcc] [--only NAME ...]
                                   [--latency DIR [--pre DIR]]

Each kernel goes through the three stages of mbarrier-to-ptx, the first
with merge-release-fences on or off as the variant says (the per-arrive
baseline is the same IR with the merge off), then ptxas. The PTX of each is
kept next to its cubin.
"""
from __future__ import annotations

import os

from bench import harness
from bench.fence import kernels as fence_kernels
from bench.latency import build as latency_build
from bench.latency import kernels as latency_kernels

REFERENCE = os.path.join(harness.BENCH, "reference", "fence_merge.cu")


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
    """The latency table of BENCHMARKS.md again (bench/latency/kernels.py vs
    bench/reference/mbarrier_latency.cu), with this lowering: every row with
    merge-release-fences off (the same protocol as the reference), the
    cluster-4 broadcast also with it on, and the run-time-stage ping-pong
    (fence_kernels.pp_stage4 vs fence_merge.cu), also as built before the
    mapa of the base (`pre_dir`/pp_stage4_mapa_in_loop.cubin, if given).
    A manifest for bench/latency/run.py."""
    import shutil


    os.makedirs(out_dir, exist_ok=True)
    latency_build.build_references(out_dir, nvcc)
    harness.nvcc_cubin(nvcc, REFERENCE, os.path.join(out_dir, "fence_reference.cubin"),
                       "-DREF_NO_UNROLL")
    rows = []
    for bench in latency_kernels.all_benches():
        text = str(bench.kernel.module)
        variants = [(bench.name, bench.label, False)]
        if bench.name.startswith("bcast4_release"):
            variants.append((bench.name + "_merged", bench.label + " (merged)", True))
        for name, label, merge in variants:
            ptx, cubin = compile_text(text, merge)
            harness.write_kernel(out_dir, name, cubin, ptx)
            rows.append(latency_build.bench_row(bench, name, label))
    stage = fence_kernels.pp_stage(4)
    stage_row = dict(entry=stage.name, anchor=None, unroll=1, reference="fence_reference.cubin",
                     reference_entry=stage.reference, grid=(2, 1, 1), block=(1, 1, 1),
                     cluster=(2, 1, 1))
    ptx, cubin = compile_text(stage.text, True)
    harness.write_kernel(out_dir, stage.name, cubin, ptx)
    rows.append(latency_build.row(
        stage.name, "remote relaxed.cluster / acquire.cluster, run-time stage of 4", **stage_row))
    old = os.path.join(pre_dir, "pp_stage4_mapa_in_loop.cubin") if pre_dir else None
    if old and os.path.exists(old):
        with open(old, "rb") as f:
            harness.write_kernel(out_dir, "pp_stage4_mapa_in_loop", f.read())
        rows.append(latency_build.row("pp_stage4_mapa_in_loop",
                                      "... the same, mapa inside the loop (before)", **stage_row))
        shutil.copy(old.replace(".cubin", ".ptx"), out_dir)
    return harness.write_manifest(out_dir, rows)


def build(out_dir: str, nvcc: str = "nvcc", only: list[str] | None = None) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    harness.nvcc_cubin(nvcc, REFERENCE, os.path.join(out_dir, "fence_reference.cubin"),
                       "-DREF_NO_UNROLL")
    rows = []
    for kernel in fence_kernels.all_kernels():
        if only and kernel.name not in only:
            continue
        ptx, cubin = compile_text(kernel.text, kernel.merge)
        cubin_file = harness.write_kernel(out_dir, kernel.name, cubin, ptx)
        rows.append({"name": kernel.name, "kind": kernel.kind, "k": kernel.k,
                     "variant": kernel.variant, "cluster": kernel.cluster,
                     "merge": kernel.merge, "cubin": cubin_file,
                     "reference": "fence_reference.cubin" if kernel.reference else None,
                     "reference_entry": kernel.reference})
    return harness.write_manifest(out_dir, rows)


if __name__ == "__main__":
    args = harness.builder_args(
        __doc__,
        (("--only",), dict(nargs="*")),
        (("--latency",), dict(metavar="DIR", help="also build the latency table's rows into DIR "
                                                  "(bench/latency/run.py)")),
        (("--pre",), dict(metavar="DIR", help="where pp_stage4_mapa_in_loop.cubin (built before "
                                              "the mapa change) is")))
    harness.report_built(build(args.out_dir, args.nvcc, args.only)["kernels"])
    if args.latency:
        harness.report_built(build_latency(args.latency, args.nvcc, args.pre)["kernels"])
