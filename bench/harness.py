"""What the benchmarks' builders and runners share.

Builders (here, with MLIR: bench/fence/build.py, bench/latency/build.py,
bench/stream/build.py, bench/gemm/build.py, bench/attention/build.py)
compile kernels into OUT_DIR and write its manifest; runners (on the GPU
machine, with only numpy, cuda-bindings and runtime.py: bench/fence/run.py,
bench/latency/run.py, bench/stream/run.py, bench/gemm/run.py,
bench/attention/run.py) read it back. Nothing here imports MLIR.

The manifest is the repository's one format, the GPU suite's
(mbarrier_dialect.manifest): ``OUT_DIR/manifest.json`` holding ``{"kernels":
[entry, ...]}``, one entry per kernel (or benchmark row), each with its
``name`` and the fields its runner reads (the cubins it loads, a launch
shape, the benchmark's own parameters).

"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterable

BENCH = Path(__file__).resolve().parent
RUNTIME = BENCH.parent / "python" / "mbarrier_dialect" / "runtime.py"


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------

def builder_args(doc: str, *options: tuple[tuple[str, ...], dict],
                 out_dir_type: Callable = str) -> argparse.Namespace:
    """A builder's command line: OUT_DIR, --nvcc (default nvcc), then
    `options` as ``(flags, add_argument keywords)``."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("out_dir", type=out_dir_type)
    parser.add_argument("--nvcc", default="nvcc")
    for flags, kwargs in options:
        parser.add_argument(*flags, **kwargs)
    return parser.parse_args()


def nvcc_cubin(nvcc: str, source: str | os.PathLike, out: str | os.PathLike, *flags: str,
               arch: str = "sm_90") -> None:
    """``nvcc -O3 -arch=ARCH -cubin FLAGS -o OUT SOURCE`` (the hand-written
    references)."""
    subprocess.run([nvcc, "-O3", f"-arch={arch}", "-cubin", *flags, "-o", str(out), str(source)],
                   check=True)


def write_kernel(out_dir: str | os.PathLike, name: str, cubin: bytes,
                 ptx: str | None = None) -> str:
    """``OUT_DIR/NAME.cubin`` (and ``NAME.ptx`` where given); returns the
    cubin's file name, as manifests name it."""
    if ptx is not None:
        Path(out_dir, f"{name}.ptx").write_text(ptx)
    Path(out_dir, f"{name}.cubin").write_bytes(cubin)
    return f"{name}.cubin"


MANIFEST = "manifest.json"


def write_manifest(out_dir: str | os.PathLike, entries: list[dict]) -> dict:
    """``OUT_DIR/manifest.json`` holding ``{"kernels": entries}`` (the one
    manifest format); returns that."""
    manifest = {"kernels": entries}
    Path(out_dir, MANIFEST).write_text(json.dumps(manifest, indent=1))
    return manifest


def read_manifest(directory: str | os.PathLike) -> list[dict]:
    """The entries of ``DIRECTORY/manifest.json``."""
    return json.loads(Path(directory, MANIFEST).read_text())["kernels"]


def report_built(rows: Iterable[dict], name: Callable[[dict], str] = lambda r: r["name"]) -> None:
    """A builder's output: one ``built NAME`` line per entry."""
    for row in rows:
        print("built", name(row))


# --------------------------------------------------------------------------
# Running (on the GPU machine)
# --------------------------------------------------------------------------

def load_runtime():
    """python/mbarrier_dialect/runtime.py, imported by path (the package and
    MLIR need not be installed)."""
    spec = importlib.util.spec_from_file_location("mbarrier_runtime", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_runtime(out_dir: str | os.PathLike) -> list[str]:
    """Copy the runtime (runtime.py and the parts it loads beside it: its
    ``files()``) into `out_dir`, where a runner loads it by path; returns
    the copies' paths."""
    return [shutil.copy(path, out_dir) for path in load_runtime().files()]


def runner(doc: str, *options: tuple[tuple[str, ...], dict],
           **counts: int) -> tuple[argparse.Namespace, Any, list[dict]]:
    """A runner's start: its command line (BENCH_DIR, ``--NAME N`` for each
    of `counts` with its default, then `options`, then ``--json OUT``), the
    runtime loaded and initialised, and BENCH_DIR's manifest read.
    Returns (arguments, runtime, the manifest's entries)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("bench_dir", type=Path)
    for name, default in counts.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--json", type=Path)
    for flags, kwargs in options:
        parser.add_argument(*flags, **kwargs)
    args = parser.parse_args()
    rt = load_runtime()
    rt.init()
    return args, rt, read_manifest(args.bench_dir)


def save_results(args: argparse.Namespace, rt, **results: Any) -> None:
    """Where ``--json OUT`` was given: OUT holding the device's name and
    `results`."""
    if args.json:
        args.json.write_text(json.dumps({"device": rt.device_name(), **results}, indent=1))
