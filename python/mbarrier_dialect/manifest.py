"""Kernels with their inputs and expected outputs, written as a manifest that
a GPU machine runs without MLIR (``test/gpu/suite/run_manifest.py``, which needs
only numpy, cuda-bindings and ``runtime.py``).

    from mbarrier_dialect import manifest

    case = manifest.Case(kernel,                       # a lang.Kernel (built)
                         args=[manifest.buffer("out", fill=-1, shape=[64]),
                               manifest.scalar(1000)],
                         expect={"out": expected_array})
    manifest.write([case], "build/suite")              # cubins + manifest.json
    # on the GPU machine:  python3 test/gpu/suite/run_manifest.py build/suite

The format of ``manifest.json`` (one entry per kernel; the repository's one
manifest format, which the benchmarks' builders write too, through
bench/harness.py, with their own fields per entry)::

    {"kernels": [{"name": "k", "cubin": "k.cubin", "entry": "k",
                  "grid": [2,1,1], "block": [32,1,1], "cluster": [2,1,1],
                  "shared_mem": 0, "timeout_s": 60,
                  "args": [{"kind": "buffer", "name": "out", "dtype": "int32",
                            "shape": [64], "init": {"fill": -1}},
                           {"kind": "scalar", "dtype": "int32", "value": 1000}],
                  "expect": {"out": {"npy": "k.out.expect.npy"}}}]}

A ``{"kind": "tensormap", "buffer": "src", "dtype": "int32", "shape": [256,
256], "box": [64, 64], "swizzle": "none", "l2_promotion": "128B",
"oob_fill": "zero"}`` argument is a TMA descriptor of the named buffer
argument (which comes before it in ``args``), encoded on the GPU machine at
launch (``runtime.encode_tensor_map_tiled``, numpy order) and passed as the
address of a device copy of its 128 bytes.

A buffer's ``init`` is ``{"fill": v}``, ``{"arange": true}`` or ``{"npy":
file}``; ``expect`` maps buffer names to ``{"npy": file}``. Integer outputs
must match exactly, float outputs within rtol=1e-6. Kernel arguments are
passed in the order of ``args`` (the kernel's parameter order).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

import numpy as np

__all__ = ["Case", "Buildable", "buffer", "scalar", "tensormap", "write_case", "write"]


class Buildable(Protocol):
    """What a case's kernel must have: a ``lang.Kernel`` has it."""

    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int] | None

    def compile(self) -> Any:
        """Compile to an object with ``.ptx`` and ``.cubin``."""


@dataclass
class Case:
    """One kernel to run: its launch shape is the kernel's; `args` (in
    parameter order) are :func:`buffer` and :func:`scalar` dicts; `expect`
    maps buffer names to the arrays they must hold afterwards; `inputs`
    maps buffer names to the arrays they start with (for ``buffer(name,
    array)``); `shared_mem` is the dynamic shared memory (bytes) to launch
    with."""

    kernel: Buildable
    args: list[dict]
    expect: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    timeout_s: int = 60
    shared_mem: int = 0


def buffer(name: str, array: np.ndarray | None = None, *, fill: int | float | None = None,
           shape: Sequence[int] | None = None, dtype: str = "int32",
           arange: bool = False) -> dict:
    """A device buffer argument: initialized from `array` (also give it to
    the case's ``inputs``), or `shape` elements of `dtype` set to `fill`, or
    (``arange=True``) to ``0, 1, 2, ...`` made on the GPU machine, for
    inputs too large to ship (``np.arange(n).astype(dtype)``)."""
    if array is not None:
        return {"kind": "buffer", "name": name, "dtype": str(array.dtype),
                "shape": list(array.shape), "init": {"npy": f"{{case}}.{name}.npy"}}
    if shape is not None and arange and fill is None:
        return {"kind": "buffer", "name": name, "dtype": str(np.dtype(dtype)),
                "shape": list(shape), "init": {"arange": True}}
    if shape is None or fill is None or arange:
        raise ValueError(f"buffer {name!r}: give an array, or a shape and a fill value (or "
                         "arange=True)")
    return {"kind": "buffer", "name": name, "dtype": str(np.dtype(dtype)), "shape": list(shape),
            "init": {"fill": fill}}


def scalar(value: int | float, dtype: str = "int32") -> dict:
    """A scalar argument of numpy `dtype`."""
    if isinstance(value, bool):
        raise TypeError("a scalar argument is an int or a float, not a bool")
    return {"kind": "scalar", "dtype": str(np.dtype(dtype)), "value": value}


def tensormap(buffer: str, shape: Sequence[int], box: Sequence[int], *, dtype: str = "int32",
              swizzle: str = "none", l2_promotion: str = "128B", oob_fill: str = "zero") -> dict:
    """A TMA tensor map argument over the buffer argument named `buffer`:
    the `dtype` tensor of `shape` at its start, loaded in boxes of `box`
    (numpy order). The runner encodes it at launch, on the GPU."""
    return {"kind": "tensormap", "buffer": buffer, "dtype": str(np.dtype(dtype)),
            "shape": [int(n) for n in shape], "box": [int(n) for n in box],
            "swizzle": swizzle, "l2_promotion": l2_promotion, "oob_fill": oob_fill}


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits (round to nearest even), as uint16: the
    host form of a bf16 buffer or expected output."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    """bfloat16 bits (uint16) -> float32, exactly."""
    return (b.astype(np.uint32) << 16).view(np.float32)


def _check_tensormap(kernel: str, arg: dict, buffers: dict) -> None:
    """The driver's rules for `arg` (checked here, at build time, as far as
    they do not need the GPU: the address is the allocation's, aligned)."""
    from .runtime import tensor_map_arguments

    if arg["buffer"] not in buffers:
        raise ValueError(f"{kernel}: a tensormap of {arg['buffer']!r}, which is not a buffer argument")
    spec = buffers[arg["buffer"]]
    nbytes = int(np.prod(spec["shape"])) * np.dtype(spec["dtype"]).itemsize
    try:
        tensor_map_arguments(0, arg["dtype"], arg["shape"], arg["box"], swizzle=arg["swizzle"],
                             l2_promotion=arg["l2_promotion"], oob_fill=arg["oob_fill"],
                             nbytes=nbytes)
    except ValueError as exc:
        raise ValueError(f"{kernel}: tensormap of {arg['buffer']!r}: {exc}") from None


def write_case(case: Case, out_dir: str) -> dict:
    """Compile `case`'s kernel into ``out_dir`` (``NAME.cubin``,
    ``NAME.ptx``, the input and expected ``.npy`` files) and return its
    manifest entry."""
    k = case.kernel
    compiled = k.compile()
    with open(os.path.join(out_dir, f"{k.name}.cubin"), "wb") as f:
        f.write(compiled.cubin)
    with open(os.path.join(out_dir, f"{k.name}.ptx"), "w") as f:
        f.write(compiled.ptx)
    args = []
    for arg in case.args:
        arg = dict(arg)
        if arg.get("kind") == "buffer" and "npy" in arg["init"]:
            name = arg["init"]["npy"].format(case=k.name)
            np.save(os.path.join(out_dir, name), case.inputs[arg["name"]])
            arg["init"] = {"npy": name}
        args.append(arg)
    buffers = {a["name"]: a for a in args if a.get("kind") == "buffer"}
    for arg in args:
        if arg.get("kind") == "tensormap":
            _check_tensormap(k.name, arg, buffers)
    expect = {}
    for name, array in case.expect.items():
        if name not in buffers:
            raise ValueError(f"{k.name}: expect names {name!r}, which is not a buffer argument")
        array = np.asarray(array)
        spec = buffers[name]
        if array.dtype != np.dtype(spec["dtype"]) or array.size != int(np.prod(spec["shape"])):
            raise ValueError(f"{k.name}: expected {name} is {array.dtype}{list(array.shape)}, "
                             f"the buffer {spec['dtype']}{spec['shape']}")
        file = f"{k.name}.{name}.expect.npy"
        np.save(os.path.join(out_dir, file), array)
        expect[name] = {"npy": file}
    return {
        "name": k.name, "cubin": f"{k.name}.cubin", "entry": k.name,
        "grid": list(k.grid), "block": list(k.block),
        "cluster": list(k.cluster) if k.cluster else None, "shared_mem": case.shared_mem,
        "timeout_s": case.timeout_s, "args": args, "expect": expect,
    }


def write(cases: Sequence[Case], out_dir: str) -> dict:
    """Write every case and ``out_dir/manifest.json``; returns the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    entries = [write_case(case, out_dir) for case in cases]
    names = [e["name"] for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"kernel names must be unique in a manifest: {duplicates}")
    manifest = {"kernels": entries}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest
