"""``CompiledKernel.launch``: run a kernel of a compiled module on the GPU
through ``mbarrier_dialect.runtime``: the kernel's signature picks how each
argument is passed, the launch shape defaults to the ``lang.Kernel``'s or to
the one the kernel declares, numpy arrays are copied in and back.

numpy and the runtime are imported on first use, so that ``mbarrier-compile``
starts without them.
"""
from __future__ import annotations

import contextlib
from typing import Any, Sequence

# `CompiledKernel` and `KernelSignature` below are the compiler's
# (compiler.py), named in annotations only: launch sits below the compiler,
# which calls it from CompiledKernel.launch, and imports nothing of it.

__all__ = ["launch", "kernel_signature", "launch_shape"]

# Scalar parameter types launch() converts to (numpy names).
_SCALARS = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "f16": "float16", "f32": "float32", "f64": "float64"}


def launch(compiled: "CompiledKernel", *, args: Sequence[Any] = (), grid: Any = None,
           block: Any = None, cluster: Any = None, kernel: str | None = None,
           shared_mem: int = 0, device: int = 0) -> list[Any]:
    """What :meth:`CompiledKernel.launch` does (its docstring says how)."""
    from . import runtime as rt
    from .errors import CompileError

    sig = kernel_signature(compiled, kernel)
    grid, block, cluster = launch_shape(compiled, sig, grid, block, cluster)
    if len(args) != len(sig.params):
        raise TypeError(f"kernel {sig.name!r} takes {len(sig.params)} arguments "
                        f"({', '.join(sig.params)}), got {len(args)}")
    converted = [_launch_arg(sig.name, i, t, a) for i, (t, a) in enumerate(zip(sig.params, args))]
    module = compiled.modules.get(sig.module)
    if module is None or not module.cubin:
        raise CompileError("launch() needs the cubin: compile with emit='cubin'")
    rt.require_gpu(device)
    import numpy as np

    # Every resource is released on the way out, in reverse order, each
    # release attempted even when an earlier one fails: after a kernel fault
    # the context is dead and every cuMemFree fails, and the error raised is
    # the first one (the fault), not a later free's (runtime._release).
    with contextlib.ExitStack() as resources:
        loaded = resources.enter_context(rt.Module.load(module.cubin))
        launch_args, copy_back = [], []
        for a in converted:
            if isinstance(a, np.ndarray):
                buf = resources.enter_context(rt.DeviceBuffer.from_numpy(a))
                copy_back.append((buf, a))
                a = buf
            launch_args.append(a)
        rt.launch(loaded.function(sig.name), grid, block, launch_args, cluster, shared_mem)
        for buf, array in copy_back:
            array[...] = buf.to_numpy()
    return list(args)


def kernel_signature(compiled: "CompiledKernel", name: str | None) -> "KernelSignature":
    """The kernel `name` of `compiled`, or its only kernel when `name` is None."""
    if name is not None:
        if name not in compiled.kernels:
            raise KeyError(f"no kernel named {name!r}; the input has: "
                           f"{', '.join(compiled.kernels) or 'none'}")
        return compiled.kernels[name]
    if len(compiled.kernels) != 1:
        raise ValueError(f"the input has {len(compiled.kernels)} kernels "
                         f"({', '.join(compiled.kernels)}): pass kernel=NAME")
    return next(iter(compiled.kernels.values()))


def launch_shape(compiled: "CompiledKernel", sig: "KernelSignature", grid: Any, block: Any,
                 cluster: Any) -> tuple:
    """(grid, block, cluster) as 3-tuples: the given ones, else the
    ``lang.Kernel``'s, else the kernel's declared block and cluster (grid: one
    cluster, or one CTA)."""
    from .runtime import validate_launch_shape

    known = compiled.launch_shapes.get(sig.name)
    if known is not None:
        grid = known[0] if grid is None else grid
        block = known[1] if block is None else block
        cluster = known[2] if cluster is None else cluster
    block = sig.block if block is None else block
    cluster = sig.cluster if cluster is None else cluster
    if block is None:
        raise ValueError(f"kernel {sig.name!r} declares no block size: pass block=")
    if grid is None:
        grid = cluster if cluster is not None else 1
    return validate_launch_shape(grid, block, cluster)


def _launch_arg(kernel: str, i: int, param: str, arg: Any) -> Any:
    """`arg` as the runtime passes it for a parameter of MLIR type `param`."""
    import numpy as np

    from .runtime import DeviceBuffer, TensorMap

    what = f"kernel {kernel!r} argument {i} ({param})"
    if param.startswith("!llvm.ptr"):
        if isinstance(arg, (DeviceBuffer, TensorMap)):
            return arg
        if isinstance(arg, np.ndarray):
            if not arg.flags.c_contiguous:
                raise ValueError(f"{what}: the array must be C-contiguous")
            return arg
        raise TypeError(f"{what}: a pointer takes a numpy array, a runtime.DeviceBuffer or a "
                        f"runtime.TensorMap, "
                        f"got {type(arg).__name__}")
    if param not in _SCALARS:
        raise TypeError(f"{what}: launch() cannot pass a parameter of type {param}")
    if isinstance(arg, (bool, np.bool_)):
        raise TypeError(f"{what}: a bool is not a {param}")
    dtype = np.dtype(_SCALARS[param])
    if isinstance(arg, np.generic):
        if arg.dtype != dtype:
            raise TypeError(f"{what}: got a numpy {arg.dtype}")
        return arg
    if dtype.kind == "i":
        if not isinstance(arg, (int, np.integer)):
            raise TypeError(f"{what}: got {type(arg).__name__}")
        info = np.iinfo(dtype)
        if not info.min <= arg <= info.max:
            raise ValueError(f"{what}: {arg} does not fit in {param}")
        return dtype.type(arg)
    if not isinstance(arg, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: got {type(arg).__name__}")
    return dtype.type(arg)
