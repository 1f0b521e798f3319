#!/usr/bin/env python3
"""Build every kernel of the GPU suite and of the benchmarks into one folder,
through the builders' own command lines, so that two trees (before and after
a refactoring) can be compared file by file.

    python -m bench.compile.ptx_snapshot OUT_DIR            # build
    python -m bench.compile.ptx_snapshot --diff DIR_A DIR_B # compare two builds

Builds: every suite of test/gpu/corpus/kernels.py (test/gpu/corpus/build_suite.py), the
checker's buggy kernels (test/gpu/corpus/buggy.py), the fence-merging and latency
benchmarks (bench.fence.build --latency, bench.latency.build), the
pipeline benchmarks (bench.stream.build), the GEMM configurations
(bench.gemm.build) and the attention configurations (bench.attention.build),
each builder run as ``python -m`` from the repository root. The hand-written CUDA references are not part of it:
a stand-in nvcc writes a placeholder where their cubins go.

--diff compares the PTX and cubin files and the JSON manifests byte by byte
(the .npy inputs are random: only their names are compared) and exits 1 if
anything differs.
"""
from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
SUITES = ("full", "sanitize", "stress-sanitize", "stress", "pipes", "pipes-sanitize",
          "pipes-stress")
FAKE_NVCC = """#!/bin/sh
# the stand-in nvcc of bench/compile/ptx_snapshot.py: the references are not compared
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then echo "reference cubin placeholder" > "$2"; fi
  shift
done
"""


def commands(out: Path, nvcc: Path) -> list[list[str]]:
    py = sys.executable
    runs = [[py, str(ROOT / "test/gpu/corpus/build_suite.py"), str(out / "suite" / s), "--suite", s]
            for s in SUITES]
    runs += [
        [py, str(ROOT / "test/gpu/corpus/buggy.py"), str(out / "buggy")],
        [py, "-m", "bench.fence.build", str(out / "fence"), "--nvcc", str(nvcc),
         "--latency", str(out / "fence_latency")],
        [py, "-m", "bench.latency.build", str(out / "latency"), "--nvcc", str(nvcc)],
        [py, "-m", "bench.stream.build", str(out / "stream"), "--nvcc", str(nvcc)],
        [py, "-m", "bench.gemm.build", str(out / "gemm")],
        [py, "-m", "bench.attention.build", str(out / "attention")],
    ]
    return runs


def build(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    nvcc = out / "fake-nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IXUSR)
    for cmd in commands(out, nvcc):
        print("+", " ".join(os.path.relpath(c, ROOT) if c.startswith("/") else c
                            for c in cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)


def diff(a: Path, b: Path) -> list[str]:
    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}

    fa, fb = files(a), files(b)
    problems = [f"only in {a}: {n}" for n in sorted(fa - fb)]
    problems += [f"only in {b}: {n}" for n in sorted(fb - fa)]
    compared = 0
    for name in sorted(fa & fb):
        if name.endswith(".npy"):
            continue
        compared += 1
        if (a / name).read_bytes() != (b / name).read_bytes():
            problems.append(f"differs: {name}")
    kinds = {ext: sum(1 for n in fa & fb if n.endswith(ext)) for ext in (".ptx", ".cubin", ".json")}
    print(f"compared {compared} files ({kinds['.ptx']} .ptx, {kinds['.cubin']} .cubin, "
          f"{kinds['.json']} .json): {len(problems)} differences")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--diff", action="store_true", help="compare two built folders")
    args = parser.parse_args()
    if args.diff:
        if len(args.dirs) != 2:
            parser.error("--diff takes two folders")
        problems = diff(*args.dirs)
        for p in problems:
            print(p)
        return 1 if problems else 0
    if len(args.dirs) != 1:
        parser.error("building takes one folder")
    build(args.dirs[0].resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
