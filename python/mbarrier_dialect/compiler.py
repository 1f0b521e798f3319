"""``compile(module, chip=...)``: mbarrier IR -> NVVM -> LLVM -> PTX -> cubin,
and the ``mbarrier-compile`` command line.

The pass order lives in C++ (``mbarrier-to-ptx`` and its two stages); this
driver runs the stages, keeps each intermediate, and calls ptxas.
"""
from __future__ import annotations

import argparse
import os
import warnings as _warnings
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from mlir import ir
from mlir.passmanager import PassManager

from . import register_dialect
from .locations import location_text
from .ptxas import PtxasError, assemble

EMITS = ("nvvm", "llvm", "ptx", "cubin")


class CompileError(RuntimeError):
    """Compilation failed; the message carries the located diagnostics."""


class SyncCheckWarning(UserWarning):
    """A warning of the synchronization checker (``mbarrier-check-sync``):
    a barrier protocol that is probably wrong (docs/checker.md)."""


@dataclass
class CompiledModule:
    """One ``gpu.module`` of the input, compiled for its own target."""
    name: str
    # The module's NVVM target chip: its own target attribute where it has
    # one, else the chip passed to compile().
    chip: str
    ptx: str = ""
    cubin: bytes = b""


@dataclass
class KernelSignature:
    """A kernel function of the input, as ``launch()`` needs it."""
    name: str
    # The gpu.module that holds it.
    module: str
    # Parameter types as MLIR text ("!llvm.ptr<1>", "i32", "f32", ...).
    params: list[str]
    # The declared known_block_size / known_cluster_size, if any.
    block: tuple[int, int, int] | None = None
    cluster: tuple[int, int, int] | None = None


@dataclass
class CompiledKernel:
    # The chip of the first gpu.module's target (the requested or default
    # chip unless the module carries its own target).
    chip: str | None
    nvvm: str = ""
    llvm: str = ""
    # One entry per gpu.module, in input order (filled from emit="ptx" on).
    modules: dict[str, CompiledModule] = field(default_factory=dict)
    # Seconds per stage: lower (to NVVM), llvm, ptx, ptxas.
    timings: dict = field(default_factory=dict)
    # Kernel name -> (grid, block, cluster) that launch() uses by default
    # (lang.Kernel.compile fills it).
    launch_shapes: dict = field(default_factory=dict)
    # Kernel name -> its signature, for every gpu.func kernel of the input.
    kernels: dict[str, KernelSignature] = field(default_factory=dict)
    # The warnings of the synchronization checker (mbarrier-check-sync),
    # each "file:line:col: warning: message"; also issued as SyncCheckWarning.
    warnings: list[str] = field(default_factory=list)

    def launch(self, *, args: Sequence[Any] = (), grid: Any = None, block: Any = None,
               cluster: Any = None, kernel: str | None = None, shared_mem: int = 0,
               device: int = 0) -> list[Any]:
        """Run a kernel of this cubin on the GPU (``mbarrier_dialect.runtime``,
        through cuda-bindings) and wait for it.

        `args` follow the kernel's parameters: a pointer parameter takes a
        numpy array (copied to the device, and back into the same array
        after the kernel: outputs land in place), a
        ``runtime.DeviceBuffer`` or a ``runtime.TensorMap`` (the address
        of a device copy of its descriptor); a scalar parameter takes a Python or numpy
        number, converted to the parameter's type. `grid`, `block` and
        `cluster` default to the ``lang.Kernel``'s, else to the shape the
        kernel declares (grid: one cluster, or one CTA). `kernel` names the
        kernel when the input has several. Returns `args` (the arrays hold
        the results). Without a usable GPU: ``runtime.NoGPUError``.
        """
        from . import runtime as rt

        sig = self._kernel(kernel)
        grid, block, cluster = self._shape(sig, grid, block, cluster)
        if len(args) != len(sig.params):
            raise TypeError(f"kernel {sig.name!r} takes {len(sig.params)} arguments "
                            f"({', '.join(sig.params)}), got {len(args)}")
        converted = [_launch_arg(sig.name, i, t, a) for i, (t, a) in enumerate(zip(sig.params, args))]
        cubin = self.modules[sig.module].cubin if sig.module in self.modules else b""
        if not cubin:
            raise CompileError("launch() needs the cubin: compile with emit='cubin'")
        rt.require_gpu(device)
        import numpy as np

        buffers = []
        try:
            with rt.Module.load(cubin) as module:
                launch_args = []
                for a in converted:
                    if isinstance(a, np.ndarray):
                        buf = rt.DeviceBuffer.from_numpy(a)
                        buffers.append((buf, a))
                        launch_args.append(buf)
                    else:
                        launch_args.append(a)
                rt.launch(module.function(sig.name), grid, block, launch_args, cluster,
                          shared_mem)
                for buf, array in buffers:
                    array[...] = buf.to_numpy()
        finally:
            for buf, _ in buffers:
                buf.free()
        return list(args)

    def _kernel(self, name: str | None) -> KernelSignature:
        if name is not None:
            if name not in self.kernels:
                raise KeyError(f"no kernel named {name!r}; the input has: "
                               f"{', '.join(self.kernels) or 'none'}")
            return self.kernels[name]
        if len(self.kernels) != 1:
            raise ValueError(f"the input has {len(self.kernels)} kernels "
                             f"({', '.join(self.kernels)}): pass kernel=NAME")
        return next(iter(self.kernels.values()))

    def _shape(self, sig: KernelSignature, grid, block, cluster):
        from .runtime import validate_launch_shape

        known = self.launch_shapes.get(sig.name)
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

    def _only_module(self, what: str) -> CompiledModule | None:
        if len(self.modules) > 1:
            names = ", ".join(self.modules)
            raise CompileError(
                f"the input has {len(self.modules)} gpu.modules ({names}), each with its "
                f"own {what}: use .modules[name].{what}, e.g. "
                f".modules[{next(iter(self.modules))!r}].{what}")
        return next(iter(self.modules.values()), None)

    @property
    def ptx(self) -> str:
        """The PTX of the only gpu.module ("" before emit="ptx"); an error
        when the input has several: use ``.modules[name].ptx``."""
        module = self._only_module("ptx")
        return module.ptx if module else ""

    @property
    def cubin(self) -> bytes:
        """The cubin of the only gpu.module (b"" before emit="cubin"); an
        error when the input has several: use ``.modules[name].cubin``."""
        module = self._only_module("cubin")
        return module.cubin if module else b""


def _pipeline_options(chip: str | None, features: str | None, opt_level: int,
                      check_sync: bool = True, debug_waits: int = 0) -> str:
    """The options of mbarrier-to-ptx that the caller chose; the defaults
    (chip sm_90, the lowest PTX version the chip and the ops need, the
    synchronization checker on, unbounded waits) live in the C++ pipeline,
    once."""
    options = [f"O={opt_level}"]
    if not check_sync:
        options.append("check-sync=false")
    if isinstance(debug_waits, bool) or not isinstance(debug_waits, int):
        raise TypeError(f"debug_waits is a bound in nanoseconds (an int, 0 = off), got "
                        f"{type(debug_waits).__name__}")
    if not 0 <= debug_waits < 2**64:
        raise ValueError(f"debug_waits is a bound in nanoseconds, 0 (off) to 2^64 - 1, got "
                         f"{debug_waits}")
    if debug_waits:
        options.append(f"debug-waits={debug_waits}")
    for name, value in (("chip", chip), ("features", features)):
        if value is None:
            continue
        if not isinstance(value, str) or any(c in value for c in " {}\"'"):
            raise CompileError(f"{name} must be a plain string such as 'sm_90' or '+ptx86', "
                               f"got {value!r}")
        options.append(f"{name}={value}")
    return " ".join(options)


def _first_target_chip(module: ir.Module) -> str | None:
    for op in module.body.operations:
        if op.operation.name == "gpu.module" and "targets" in op.attributes:
            found = re.search(r'chip = "([^"]+)"', str(op.attributes["targets"]))
            if found:
                return found.group(1)
    return None


def _run(module: ir.Module, pipeline: str, warnings: list[str] | None = None) -> None:
    """Runs `pipeline` on `module`; errors raise CompileError, warnings (of
    mbarrier-check-sync) are appended to `warnings` when it is given."""
    pm = PassManager.parse(f"builtin.module({pipeline})", context=module.context)

    def on_diagnostic(diag) -> bool:
        if warnings is None or diag.severity != ir.DiagnosticSeverity.WARNING:
            return False
        where = location_text(diag.location) or str(diag.location)
        warnings.append(f"{where}: warning: {diag.message}")
        return True

    handler = module.context.attach_diagnostic_handler(on_diagnostic)
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        raise CompileError(str(e)) from None
    finally:
        handler.detach()


def _target_chip(target) -> str:
    text = str(target)
    if not text.startswith("#nvvm.target"):
        raise CompileError(f"a gpu.module targets {text}, not an NVVM target")
    found = re.search(r'chip = "([^"]+)"', text)
    return found.group(1) if found else "sm_50"  # NVVMTargetAttr's default


# Scalar parameter types launch() converts to (numpy names; numpy is imported
# only by launch(), so that `mbarrier-compile` starts without it).
_SCALARS = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "f16": "float16", "f32": "float32", "f64": "float64"}


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


def _kernel_signatures(module: ir.Module) -> dict[str, KernelSignature]:
    """Every kernel gpu.func of `module` (before lowering)."""
    def dims(attrs, key):
        return tuple(ir.DenseI32ArrayAttr(attrs[key])) if key in attrs else None

    kernels = {}
    for top in module.body.operations:
        if top.operation.name != "gpu.module":
            continue
        module_name = ir.StringAttr(top.attributes["sym_name"]).value
        for op in top.regions[0].blocks[0].operations:
            if op.operation.name != "gpu.func" or "gpu.kernel" not in op.attributes:
                continue
            name = ir.StringAttr(op.attributes["sym_name"]).value
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            kernels[name] = KernelSignature(
                name, module_name, [str(t) for t in ftype.inputs],
                dims(op.attributes, "known_block_size"), dims(op.attributes, "known_cluster_size"))
    return kernels


def _extract_modules(module: ir.Module) -> dict[str, CompiledModule]:
    """Each gpu.binary's PTX, for the target of its gpu.module: the module's
    own target where it carries one, else the one mbarrier-attach-target
    gave it."""
    from mlir.dialects import gpu

    modules = {}
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        objects = list(op.attributes["objects"])
        if not objects:
            raise CompileError(f"gpu.module @{name} produced no object")
        obj = gpu.ObjectAttr(objects[0])
        modules[name] = CompiledModule(name=name, chip=_target_chip(obj.target),
                                       ptx=obj.object.decode())
    if not modules:
        raise CompileError("the module has no gpu.module to compile")
    return modules


def compile(
    module: "ir.Module | str | os.PathLike[str]",
    chip: str | None = None,
    *,
    features: str | None = None,
    opt_level: int = 3,
    emit: str = "cubin",
    check_sync: bool = True,
    debug_waits: int = 0,
) -> CompiledKernel:
    """Compile a module holding ``gpu.module`` kernels that use mbarrier ops.

    ``module`` is an ``ir.Module`` (left untouched; a copy is lowered), IR
    text, or the path of an .mlir file (``os.PathLike``). Stops after ``emit`` (one of nvvm, llvm, ptx, cubin) and returns
    every intermediate produced so far.

    ``chip`` (default sm_90) and ``features`` apply to gpu.modules without a
    target of their own; a module's own target is kept. With no
    ``features``, the PTX ISA version is the lowest that the chip and the
    module's mbarrier ops need; ``"+ptxNN"`` asks for a version explicitly.
    An unknown chip, a malformed feature string or a version below the
    chip's minimum is a CompileError naming the fix.

    ``check_sync`` (default True) runs the synchronization checker
    (``mbarrier-check-sync``, docs/checker.md) first: its errors raise
    CompileError, its warnings are kept in ``.warnings`` and issued as
    ``SyncCheckWarning``.

    ``debug_waits`` (nanoseconds, default 0 = off) bounds every blocking
    wait (``mbarrier.wait``, a pipe's wait, acquire and tail): a wait whose
    phase has not completed that long after its first failed try_wait
    prints one line per stuck warp (where, on which barrier and parity, CTA
    and warp) and traps, so the launch fails instead of hanging
    (docs/design.md, "Debugging a hang"). Off, the PTX is the same as
    without the argument.
    """
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {EMITS}, got {emit!r}")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if not isinstance(check_sync, bool):
        raise TypeError(f"check_sync must be a bool, got {type(check_sync).__name__}")
    options = _pipeline_options(chip, features, opt_level, check_sync, debug_waits)
    result = CompiledKernel(chip=chip)
    t0 = time.perf_counter()
    if isinstance(module, (str, os.PathLike)):
        ctx = ir.Context()
        register_dialect(ctx)
        try:
            if isinstance(module, str):
                work = ir.Module.parse(module, context=ctx)
            else:  # diagnostics then name the file
                work = ir.Module.parseFile(os.fspath(module), context=ctx)
        except ir.MLIRError as e:
            raise CompileError(str(e)) from None
    else:
        register_dialect(module.context)
        # A copy, with the locations the caller's diagnostics should point to.
        work = ir.Module.parse(module.operation.get_asm(enable_debug_info=True),
                               context=module.context)
    # (timing key, the `emit` that stops there, the result field it fills,
    #  pipeline, what to keep of the module)
    stages = [
        ("lower", "nvvm", "nvvm",
         f"mbarrier-to-ptx-stage-nvvm{{{options}}}", str),
        ("llvm", "llvm", "llvm", "mbarrier-to-ptx-stage-llvm", str),
        ("ptx", "ptx", "modules", "gpu-module-to-binary{format=isa}",
         _extract_modules),
    ]
    with work.context:
        result.kernels = _kernel_signatures(work)
        for key, stop_at, field_name, pipeline, keep in stages:
            _run(work, pipeline, result.warnings if key == "lower" else None)
            if key == "lower":
                for message in result.warnings:
                    _warnings.warn(message, SyncCheckWarning, stacklevel=2)
            setattr(result, field_name, keep(work))
            if result.chip is None:
                result.chip = _first_target_chip(work)
            now = time.perf_counter()
            result.timings[key] = now - t0
            t0 = now
            if emit == stop_at:
                return result
    # One ptxas run per module, for that module's own chip: a PTX file holds
    # exactly one .version/.target header.
    for compiled in result.modules.values():
        try:
            compiled.cubin = assemble(compiled.ptx, compiled.chip, opt_level)
        except PtxasError as e:
            where = f" (gpu.module @{compiled.name})" if len(result.modules) > 1 else ""
            raise CompileError(f"{e}{where}") from None
    result.timings["ptxas"] = time.perf_counter() - t0
    return result


def _error(message: str) -> int:
    print(f"mbarrier-compile: error: {message}", file=sys.stderr)
    return 1


def _per_module_path(output: str, name: str, emit: str) -> str:
    """``dir/stem.ext`` -> ``dir/stem.<name>.ext`` (``ext`` defaults to the
    emitted kind when OUT has no suffix)."""
    out = Path(output)
    ext = out.suffix or f".{emit}"
    stem = out.name[: -len(out.suffix)] if out.suffix else out.name
    return str(out.with_name(f"{stem}.{name}{ext}"))


def _nanoseconds(text: str) -> int:
    """--debug-waits' argument: a whole number of nanoseconds, 0 to 2^64 - 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of nanoseconds") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{value} is not 0 (off) to 2^64 - 1 nanoseconds")
    return value


def main(argv: list[str] | None = None) -> int:
    """The ``mbarrier-compile`` command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="mbarrier-compile",
        description="Compile gpu.module kernels that use the mbarrier dialect "
        "to NVVM, LLVM, PTX or a cubin. Each gpu.module is compiled for its own "
        "target; with several and --emit ptx/cubin, -o dir/stem.ext writes one "
        "dir/stem.<module>.ext per module unless --module picks one.",
    )
    parser.add_argument("input", help="input .mlir file ('-' for stdin)")
    parser.add_argument("--chip", default=None,
                        help="target chip for gpu.modules without a target (default sm_90)")
    parser.add_argument("--features", default=None,
                        help="+ptxNN; default: the lowest PTX ISA version the chip and the ops need")
    parser.add_argument("-O", dest="opt_level", type=int, default=3, choices=range(4))
    parser.add_argument("--emit", choices=EMITS, default="cubin")
    parser.add_argument("--module", dest="module", default=None, metavar="NAME",
                        help="emit only the PTX or cubin of gpu.module @NAME")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    parser.add_argument("--no-check-sync", dest="check_sync", action="store_false",
                        help="do not run the synchronization checker (mbarrier-check-sync)")
    parser.add_argument("--debug-waits", dest="debug_waits", type=_nanoseconds, default=0,
                        metavar="NS",
                        help="bound every blocking wait to NS nanoseconds: past it, the wait "
                        "prints where it is stuck and traps (default 0: off)")
    args = parser.parse_args(argv)

    if args.module is not None and args.emit in ("nvvm", "llvm"):
        return _error(f"--module selects one gpu.module's ptx or cubin; --emit {args.emit} "
                      "prints the whole module")
    try:
        if args.input == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.input, "rb") as f:
                text = f.read()
        text = text.decode("utf-8")
    except OSError as e:
        return _error(f"cannot read {args.input}: {e.strerror}")
    except UnicodeDecodeError as e:
        return _error(f"{args.input} is not UTF-8 text ({e.reason} at byte {e.start})")
    if not text.strip():
        return _error(f"{args.input} is empty")
    try:
        source = text if args.input == "-" else Path(args.input)
        # Stop at PTX and assemble only the modules that are written.
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", SyncCheckWarning)
            result = compile(source, args.chip, features=args.features,
                             opt_level=args.opt_level,
                             emit="ptx" if args.emit == "cubin" else args.emit,
                             check_sync=args.check_sync, debug_waits=args.debug_waits)
    except CompileError as e:
        return _error(str(e))
    for message in result.warnings:
        print(message, file=sys.stderr)

    # (path or "-", payload) to write
    outputs = []
    if args.emit in ("nvvm", "llvm"):
        outputs.append((args.output, getattr(result, args.emit)))
    else:
        names = ", ".join(result.modules)
        if args.module is not None:
            if args.module not in result.modules:
                return _error(f"no gpu.module named '{args.module}'; the input has: {names}")
            chosen = [result.modules[args.module]]
        else:
            chosen = list(result.modules.values())
        if len(chosen) > 1 and args.output == "-":
            return _error(f"the input has {len(chosen)} gpu.modules ({names}): pass "
                          f"--module NAME to print one, or -o DIR/STEM.{args.emit} to write "
                          f"DIR/STEM.<module>.{args.emit} for each")
        for compiled in chosen:
            if args.emit == "cubin":
                try:
                    compiled.cubin = assemble(compiled.ptx, compiled.chip, args.opt_level)
                except PtxasError as e:
                    where = f" (gpu.module @{compiled.name})" if len(result.modules) > 1 else ""
                    return _error(f"{e}{where}")
            payload = getattr(compiled, args.emit)
            if len(chosen) == 1:
                outputs.append((args.output, payload))
                continue
            if "/" in compiled.name or compiled.name in (".", ".."):
                return _error(f"gpu.module @\"{compiled.name}\" cannot name a file; "
                              "pass --module to pick it and -o to name its file")
            outputs.append((_per_module_path(args.output, compiled.name, args.emit), payload))
    for path, payload in outputs:
        if isinstance(payload, bytes) and path == "-" and sys.stdout.isatty():
            return _error("refusing to write a cubin to a terminal; use -o")
        try:
            if path == "-":
                if isinstance(payload, bytes):
                    sys.stdout.buffer.write(payload)
                else:
                    sys.stdout.write(payload)
            else:
                mode = "wb" if isinstance(payload, bytes) else "w"
                with open(path, mode) as f:
                    f.write(payload)
        except OSError as e:
            return _error(f"cannot write {path}: {e.strerror}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
