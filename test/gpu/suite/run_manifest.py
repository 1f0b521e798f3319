#!/usr/bin/env python3
"""Run a manifest of prebuilt cubins on the GPU and check their outputs.

    python3 test/gpu/suite/run_manifest.py MANIFEST_DIR [--only NAME] [--repeat N] [--log FILE]

Needs only the standard library, numpy, cuda-bindings and
``python/mbarrier_dialect/runtime.py`` (loaded by path, so neither MLIR nor
this project has to be installed on the GPU machine).  ``MANIFEST_DIR/
manifest.json`` lists the kernels, in the format that
``python/mbarrier_dialect/manifest.py`` documents and writes (``init`` may
also be ``{"arange": true}``, and ``expect`` ``{"fill": v}`` or
``{"values": [...]}``, for hand-written manifests such as the edge cases).

Every kernel runs in a child process (this script with ``--child``) under
its ``timeout_s``, so a barrier that never completes is reported as HANG and
a kernel fault as ERROR with the CUDA error name.  The GPU is probed in a
child too, so this process never holds a CUDA context.

Exit status: 0 all PASS, 1 something else, 2 bad usage or manifest,
77 no usable GPU (skip).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

SKIP = 77
RESULT_TAG = "RUN_MANIFEST_RESULT "
RUNTIME_PATH = Path(__file__).resolve().parents[3] / "python" / "mbarrier_dialect" / "runtime.py"
EXIT_CODES = {"PASS": 0, "FAIL": 1, "ERROR": 2}


class ManifestError(Exception):
    """The manifest (or a file it names) is malformed."""


def load_runtime():
    """runtime.py from this checkout by path, else the installed package's
    (loaded once a process)."""
    if "mbarrier_runtime" in sys.modules:
        return sys.modules["mbarrier_runtime"]
    if RUNTIME_PATH.is_file():
        spec = importlib.util.spec_from_file_location("mbarrier_runtime", RUNTIME_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    from mbarrier_dialect import runtime

    return runtime


# --------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------

def load_manifest(directory: Path) -> list[dict]:
    """The manifest's kernel entries, structurally checked."""
    try:
        kernels = json.loads((directory / "manifest.json").read_text())["kernels"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ManifestError(f"cannot read {directory / 'manifest.json'}: {exc!r}") from exc
    seen = set()
    for kernel in kernels:
        missing = {"name", "cubin", "entry", "grid", "block"} - kernel.keys()
        if missing:
            raise ManifestError(f"kernel entry {kernel.get('name', kernel)!r} lacks {sorted(missing)}")
        if kernel["name"] in seen:
            raise ManifestError(f"kernel {kernel['name']!r} is listed twice")
        seen.add(kernel["name"])
        buffers = set()
        for arg in kernel.get("args", []):
            if arg.get("kind") == "buffer":
                buffers.add(arg["name"])
            elif arg.get("kind") == "tensormap":
                missing = {"buffer", "shape", "box"} - arg.keys()
                if missing:
                    raise ManifestError(f"{kernel['name']}: a tensormap argument lacks "
                                        f"{sorted(missing)}")
                if arg["buffer"] not in buffers:
                    raise ManifestError(f"{kernel['name']}: tensormap of {arg['buffer']!r}, which "
                                        f"is not a buffer argument before it")
            elif arg.get("kind") != "scalar":
                raise ManifestError(f"{kernel['name']}: unknown argument kind {arg.get('kind')!r}")
        unknown = set(kernel.get("expect", {})) - buffers
        if unknown:
            raise ManifestError(f"{kernel['name']}: expect names unknown buffers {sorted(unknown)}")
    return kernels


def _array(spec: dict, shape, dtype, directory: Path, what: str) -> np.ndarray:
    """The host array described by an ``init``/``expect`` spec."""
    if "fill" in spec:
        return np.full(shape, spec["fill"], dtype)
    if spec.get("arange"):
        return np.arange(math.prod(shape)).astype(dtype).reshape(shape)
    if "values" in spec:
        arr = np.array(spec["values"], dtype)
    elif "npy" in spec:
        arr = np.load(directory / spec["npy"])
        if arr.dtype != dtype:
            raise ManifestError(f"{what}: {spec['npy']} holds {arr.dtype}, expected {dtype}")
    else:
        raise ManifestError(f"{what}: unknown spec {spec!r}")
    if arr.size != math.prod(shape):
        raise ManifestError(f"{what}: {arr.size} elements for shape {list(shape)}")
    return arr.reshape(shape)


def compare(name: str, got: np.ndarray, expected: np.ndarray) -> str | None:
    """None when equal (floats within rtol=1e-6), else a description."""
    if got.dtype.kind in "fc":
        ok = np.isclose(got, expected, rtol=1e-6, atol=0)
    else:
        ok = got == expected
    if ok.all():
        return None
    wrong = np.flatnonzero(~ok.ravel())
    shown = []
    for flat in wrong[:5]:
        index = np.unravel_index(flat, got.shape)
        label = index[0] if got.ndim == 1 else tuple(int(i) for i in index)
        shown.append(f"[{label}] got {got[index]} expected {expected[index]}")
    return f"{name}: {wrong.size}/{got.size} wrong: " + "; ".join(shown)


# --------------------------------------------------------------------------
# Child: run one kernel
# --------------------------------------------------------------------------

def encode_tensor_map(rt, buffers: dict, spec: dict):
    """The ``TensorMap`` a ``tensormap`` argument describes (encoded here,
    on the GPU: the driver call needs it)."""
    buf = buffers[spec["buffer"]]
    return rt.encode_tensor_map_tiled(
        buf, spec.get("dtype", buf.dtype.name), spec["shape"], spec["box"],
        strides=spec.get("strides"), swizzle=spec.get("swizzle", "none"),
        l2_promotion=spec.get("l2_promotion", "128B"), oob_fill=spec.get("oob_fill", "zero"))


def run_kernel(rt, directory: Path, kernel: dict, repeat: int, launch=None) -> dict:
    """Launch ``kernel`` ``repeat`` times, checking outputs after each run.
    `launch` (default ``rt.time_launch``) takes time_launch's arguments and
    returns the milliseconds it reports."""
    launch = rt.time_launch if launch is None else launch
    name = kernel["name"]
    specs, inits, scalars = kernel.get("args", []), {}, {}
    for i, spec in enumerate(specs):
        if spec["kind"] == "tensormap":
            continue
        dtype = np.dtype(spec["dtype"])
        if spec["kind"] == "scalar":
            scalars[i] = dtype.type(spec["value"])
        else:
            shape = tuple(spec["shape"])
            inits[spec["name"]] = _array(spec.get("init", {"fill": 0}), shape, dtype,
                                         directory, f"{name}.{spec['name']} init")
    expected = {buf: _array(spec, inits[buf].shape, inits[buf].dtype, directory,
                            f"{name}.{buf} expect")
                for buf, spec in kernel.get("expect", {}).items()}
    rt.init()
    times = []
    with rt.Module.load((directory / kernel["cubin"]).read_bytes()) as module:
        function = module.function(kernel["entry"])
        buffers = {buf: rt.DeviceBuffer.empty(arr.shape, arr.dtype) for buf, arr in inits.items()}
        tensor_maps = {i: encode_tensor_map(rt, buffers, s) for i, s in enumerate(specs)
                       if s["kind"] == "tensormap"}
        args = [scalars[i] if i in scalars else tensor_maps[i] if i in tensor_maps
                else buffers[s["name"]] for i, s in enumerate(specs)]
        for run in range(1, repeat + 1):
            for buf, arr in inits.items():
                buffers[buf].copy_from(arr)
            times.append(launch(function, kernel["grid"], kernel["block"], args,
                                kernel.get("cluster"), kernel.get("shared_mem", 0)))
            for buf, exp in expected.items():
                problem = compare(buf, buffers[buf].to_numpy(), exp)
                if problem:
                    return {"result": "FAIL", "ms": statistics.median(times),
                            "detail": f"run {run}/{repeat}: {problem}"}
        for tensor_map in tensor_maps.values():
            tensor_map.free()
        for buf in buffers.values():
            buf.free()
    return {"result": "PASS", "ms": statistics.median(times), "detail": ""}


def child_main(rt, directory: Path, kernel: dict, repeat: int) -> int:
    try:
        result = run_kernel(rt, directory, kernel, repeat)
    except rt.CudaError as exc:
        short = exc.name.removeprefix("CUDA_ERROR_")
        result = {"result": "ERROR", "ms": None, "detail": f"{short} in {exc.what}"}
    except (ManifestError, LookupError, ValueError, TypeError, OverflowError, OSError) as exc:
        result = {"result": "ERROR", "ms": None, "detail": f"{type(exc).__name__}: {exc}"}
    print(RESULT_TAG + json.dumps(result), flush=True)
    return EXIT_CODES[result["result"]]


def probe_main(rt) -> int:
    """Print the device line, or the reason there is no usable GPU."""
    try:
        rt.init()
        major, minor = rt.compute_capability()
        print(f"{rt.device_name()} (sm_{major}{minor}, {rt.sm_count()} SMs)")
        return 0
    except (ImportError, RuntimeError) as exc:
        print(f"no usable GPU: {exc}")
        return SKIP


# --------------------------------------------------------------------------
# Parent: run every kernel in a child, report
# --------------------------------------------------------------------------

def _dims(dims) -> str:
    return "-" if dims is None else "(" + ",".join(map(str, list(dims) + [1] * (3 - len(dims)))) + ")"


def run_child(directory: Path, kernel: dict, repeat: int) -> tuple[dict, str]:
    """Run ``kernel`` in a child; returns the result and the child's stderr."""
    cmd = [sys.executable, os.path.abspath(__file__), str(directory),
           "--only", kernel["name"], "--repeat", str(repeat), "--child"]
    timeout = kernel.get("timeout_s", 60)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"result": "HANG", "ms": None, "detail": f"not finished after {timeout}s"}, ""
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG):]), proc.stderr
    last = (proc.stderr.strip().splitlines() or [f"child exited with status {proc.returncode}"])[-1]
    return {"result": "ERROR", "ms": None, "detail": last}, proc.stderr


def table(rows: list[dict]) -> str:
    header = ["name", "grid", "cluster", "block", "result", "ms", "detail"]
    cells = [header] + [[r["name"], r["grid"], r["cluster"], r["block"], r["result"],
                         "-" if r["ms"] is None else f"{r['ms']:.4f}", r["detail"][:80]]
                        for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def probe_gpu(directory: Path, out) -> int | None:
    """Probe the GPU in a child and report it through `out`: None where
    there is a usable GPU, else the exit status to end with (SKIP, 2)."""
    probe = subprocess.run([sys.executable, os.path.abspath(__file__), str(directory), "--probe"],
                           capture_output=True, text=True)
    reason = (probe.stdout.strip() or probe.stderr.strip() or "no output").splitlines()[-1]
    if probe.returncode == SKIP:
        out(f"SKIP: {reason}")
        return SKIP
    if probe.returncode != 0:
        out(f"error: the GPU probe failed: {reason}")
        return 2
    out(f"device: {reason}")
    return None


def parent_main(directory: Path, kernels: list[dict], repeat: int, log) -> int:
    def out(text: str) -> None:
        print(text, flush=True)
        if log:
            log.write(text + "\n")
            log.flush()

    status = probe_gpu(directory, out)
    if status is not None:
        return status
    rows = []
    for kernel in kernels:
        result, stderr = run_child(directory, kernel, repeat)
        row = dict(result, name=kernel["name"], grid=_dims(kernel["grid"]),
                   block=_dims(kernel["block"]), cluster=_dims(kernel.get("cluster")))
        rows.append(row)
        ms = "" if row["ms"] is None else f" {row['ms']:.4f} ms"
        out(f"{row['result']:5} {row['name']}{ms} {row['detail']}".rstrip())
        if log and stderr and row["result"] != "PASS":
            log.write("".join(f"    {line}\n" for line in stderr.splitlines()))
    out("")
    out(table(rows))
    return 0 if all(r["result"] == "PASS" for r in rows) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifest_dir", type=Path)
    parser.add_argument("--only", metavar="NAME", help="run only this kernel")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="launches per kernel, outputs checked after each")
    parser.add_argument("--log", metavar="FILE", help="also write the output to FILE")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    try:
        kernels = load_manifest(args.manifest_dir)
    except ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.only is not None:
        kernels = [k for k in kernels if k["name"] == args.only]
        if not kernels:
            print(f"error: no kernel named {args.only!r} in the manifest", file=sys.stderr)
            return 2
    if args.probe:
        return probe_main(load_runtime())
    if args.child:
        if len(kernels) != 1:
            parser.error("--child needs --only")
        return child_main(load_runtime(), args.manifest_dir, kernels[0], args.repeat)
    if args.log:
        with open(args.log, "w") as log:
            return parent_main(args.manifest_dir, kernels, args.repeat, log)
    return parent_main(args.manifest_dir, kernels, args.repeat, None)


if __name__ == "__main__":
    sys.exit(main())
