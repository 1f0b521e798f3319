#!/usr/bin/env python3
"""CPU benchmarks (no GPU): compile time vs nvcc, and pass throughput and
scaling of convert-mbarrier-to-nvvm vs upstream convert-nvgpu-to-nvvm.

    python -m bench.compile.cpu_bench [--runs 5] [--sizes 1000 10000 100000] [--json FILE]

Prints two tables and, with --json, writes every measurement.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time

import mbarrier_dialect
from examples import producer_consumer  # examples/producer_consumer.py
from bench import harness

PIPELINE_REFERENCE = os.path.join(harness.BENCH, "reference", "pipeline.cu")


# -- compile time -------------------------------------------------------------
def compile_time(runs: int) -> dict:
    """Python build -> cubin for the 4-stage producer/consumer ring of
    examples/producer_consumer.py (bench/reference/pipeline.cu by hand), by
    stage, against `nvcc -O3 -arch=sm_90 -cubin` of its hand-written twin."""
    stages = {"build": [], "lower": [], "llvm": [], "ptx": [], "ptxas": [], "total": []}
    for _ in range(runs):
        t0 = time.perf_counter()
        kernel = producer_consumer.build(4)
        built = time.perf_counter() - t0
        result = kernel.compile()
        total = time.perf_counter() - t0
        stages["build"].append(built)
        for key, value in result.timings.items():
            stages[key].append(value)
        stages["total"].append(total)
    # Both sides as fresh processes: `mbarrier-compile` (Python start, MLIR
    # load, the whole pipeline, ptxas) on the kernel's IR text against nvcc.
    fresh_times, nvcc_times = [], []
    nvcc = shutil.which("nvcc")
    compiler = shutil.which("mbarrier-compile")
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "pipeline.mlir")
        with open(source, "w") as f:
            f.write(str(producer_consumer.build(4).module))
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([compiler, source, "-o", os.path.join(tmp, "ours.cubin")], check=True)
            fresh_times.append(time.perf_counter() - t0)
            if nvcc:
                t0 = time.perf_counter()
                subprocess.run([nvcc, "-O3", "-arch=sm_90", "-cubin", "-o",
                                os.path.join(tmp, "p.cubin"), PIPELINE_REFERENCE], check=True)
                nvcc_times.append(time.perf_counter() - t0)
    return {"ours": {k: statistics.median(v) for k, v in stages.items()},
            "ours_runs": stages, "fresh_runs": fresh_times, "nvcc_runs": nvcc_times,
            "fresh": statistics.median(fresh_times),
            "nvcc": statistics.median(nvcc_times) if nvcc_times else None}


# -- pass throughput -----------------------------------------------------------
NVGPU_GROUP = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>"


def module_text(kind: str, n_ops: int) -> str:
    """A function with `n_ops` barrier ops (init, arrive, arrive+expect_tx,
    blocking parity wait, repeated), in our dialect or in upstream nvgpu."""
    lines = []
    if kind == "mbarrier":
        lines.append("func.func @f(%i: index, %c: i32, %b: i32, %p: i32) {")
        lines.append("  %g = mbarrier.alloc : !mbarrier.group<4>")
        body = ["  mbarrier.init %g[%i], %c : !mbarrier.group<4>",
                "  mbarrier.arrive %g[%i] : !mbarrier.group<4>",
                "  mbarrier.arrive_expect_tx %g[%i], %b : !mbarrier.group<4>",
                "  mbarrier.wait %g[%i], %p : !mbarrier.group<4>"]
    else:
        lines.append("func.func @f(%i: index, %c: index, %b: index, %p: i1, %t: index) {")
        lines.append(f"  %g = nvgpu.mbarrier.create -> {NVGPU_GROUP}")
        body = [f"  nvgpu.mbarrier.init %g[%i], %c : {NVGPU_GROUP}",
                f"  %tok{{n}} = nvgpu.mbarrier.arrive %g[%i] : {NVGPU_GROUP} -> !nvgpu.mbarrier.token",
                f"  nvgpu.mbarrier.arrive.expect_tx %g[%i], %b : {NVGPU_GROUP}",
                f"  nvgpu.mbarrier.try_wait.parity %g[%i], %p, %t : {NVGPU_GROUP}"]
    for n in range(n_ops):
        lines.append(body[n % 4].replace("{n}", str(n)))
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def pass_seconds(path: str, pass_name: str, pipeline: str) -> float:
    """Wall time of one pass, from mbarrier-opt's --mlir-timing report."""
    proc = subprocess.run(
        [mbarrier_dialect.mbarrier_opt_path(), path, f"--pass-pipeline={pipeline}",
         "--mlir-timing", "--mlir-timing-display=list", "-o", os.devnull],
        capture_output=True, text=True, check=True)
    for line in proc.stderr.splitlines():
        if line.strip().endswith(pass_name):
            return float(line.split()[0])
    raise RuntimeError(f"no timing line for {pass_name}:\n{proc.stderr}")


def throughput(sizes, runs: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            row = {"ops": n}
            for kind, pass_name, pipeline in (
                ("mbarrier", "ConvertMBarrierToNVVM", "builtin.module(convert-mbarrier-to-nvvm)"),
                ("nvgpu", "ConvertNVGPUToNVVMPass", "builtin.module(convert-nvgpu-to-nvvm)"),
            ):
                path = os.path.join(tmp, f"{kind}_{n}.mlir")
                with open(path, "w") as f:
                    f.write(module_text(kind, n))
                seconds = statistics.median(pass_seconds(path, pass_name, pipeline)
                                            for _ in range(runs))
                row[kind] = seconds
                row[f"{kind}_ops_per_s"] = n / seconds
            row["ratio"] = row["mbarrier"] / row["nvgpu"]
            rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--json")
    args = parser.parse_args()

    ct = compile_time(args.runs)
    ours = ct["ours"]
    print("compile time (median of %d), pipeline_4stage kernel" % args.runs)
    print("  fresh processes:")
    print(f"    mbarrier-compile IR -> cubin  {ct['fresh'] * 1000:8.1f} ms")
    if ct["nvcc"]:
        print(f"    nvcc -O3 -cubin               {ct['nvcc'] * 1000:8.1f} ms   "
              f"speed-up {ct['nvcc'] / ct['fresh']:.1f}x")
    print("  in-process, warm (compile() in a running interpreter), by stage:")
    for key in ("build", "lower", "llvm", "ptx", "ptxas"):
        print(f"    {key:<6} {ours[key] * 1000:8.1f} ms  {ours[key] / ours['total']:6.1%}")
    print(f"    total  {ours['total'] * 1000:8.1f} ms")

    rows = throughput(args.sizes, args.runs)
    print("\npass throughput (median of %d)" % args.runs)
    print(f"{'ops':>8} {'ours s':>9} {'ours ops/s':>11} {'nvgpu s':>9} {'nvgpu ops/s':>11} {'ours/nvgpu':>10} {'growth':>7}")
    prev = None
    for row in rows:
        growth = f"{row['mbarrier'] / prev['mbarrier'] * prev['ops'] / row['ops']:.2f}" if prev else "-"
        print(f"{row['ops']:>8} {row['mbarrier']:>9.4f} {row['mbarrier_ops_per_s']:>11.0f} "
              f"{row['nvgpu']:>9.4f} {row['nvgpu_ops_per_s']:>11.0f} {row['ratio']:>10.2f} {growth:>7}")
        prev = row
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": {"cpu": platform.processor() or platform.machine(),
                                   "cores": os.cpu_count(), "python": platform.python_version()},
                       "compile_time": ct, "throughput": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
