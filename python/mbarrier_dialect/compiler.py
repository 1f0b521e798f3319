"""``compile(module, chip=...)``: mbarrier IR -> NVVM -> LLVM -> PTX -> cubin,
and what it returns (``CompiledKernel``, one ``CompiledModule`` per
gpu.module).

The pass order lives in C++ (``mbarrier-to-ptx`` and its two stages); this
driver runs the stages, keeps each intermediate, and calls ptxas. The
command line is ``mbarrier_dialect.cli``, ``CompiledKernel.launch`` is
``mbarrier_dialect.launch``.
"""
from __future__ import annotations

import difflib
import os
import re
import sys
import time
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

from mlir import ir
from mlir.passmanager import PassManager

from . import register_dialect
from .errors import CompileError, SyncCheckWarning
from .locations import diagnostic_text as _diagnostic_text
from .ptxas import PtxasError, assemble
from .targets import chips as _known_chips, nvvm_target_chip

EMITS = ("nvvm", "llvm", "ptx", "cubin")


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
        from .launch import launch

        return launch(self, args=args, grid=grid, block=block, cluster=cluster, kernel=kernel,
                      shared_mem=shared_mem, device=device)

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

    def write(self, out_dir: str, name: str) -> tuple[str, str]:
        """Write ``out_dir/name.ptx`` and ``out_dir/name.cubin`` (the only
        gpu.module's; ``out_dir`` is made where missing) and return the two
        paths."""
        os.makedirs(out_dir, exist_ok=True)
        ptx_path, cubin_path = (os.path.join(out_dir, f"{name}.{ext}") for ext in ("ptx", "cubin"))
        with open(ptx_path, "w") as f:
            f.write(self.ptx)
        with open(cubin_path, "wb") as f:
            f.write(self.cubin)
        return ptx_path, cubin_path


def _pipeline_options(chip: str | None, features: str | None, opt_level: int,
                      check_sync: bool = True, strict: bool = False,
                      debug_waits: int = 0, raise_nvgpu: bool = False,
                      named_barrier_reserved: str | None = None) -> str:
    """The options of mbarrier-to-ptx that the caller chose; the defaults
    (chip sm_90, the lowest PTX version the chip and the ops need, the
    synchronization checker on, not strict, unbounded waits) live in the
    C++ pipeline, once."""
    options = [f"O={opt_level}"]
    if not check_sync:
        options.append("check-sync=false")
    if strict:
        options.append("check-sync-strict=true")
    if isinstance(debug_waits, bool) or not isinstance(debug_waits, int):
        raise TypeError(f"debug_waits is a bound in nanoseconds (an int, 0 = off), got "
                        f"{type(debug_waits).__name__}")
    if not 0 <= debug_waits < 2**64:
        raise ValueError(f"debug_waits is a bound in nanoseconds, 0 (off) to 2^64 - 1, got "
                         f"{debug_waits}")
    if debug_waits:
        options.append(f"debug-waits={debug_waits}")
    if raise_nvgpu:
        options.append("raise-nvgpu=true")
    for name, value, example in (("chip", chip, "'sm_90'"), ("features", features, "'+ptx86'"),
                                 ("named-barrier-reserved", named_barrier_reserved, "'0,1-7'")):
        if value is None:
            continue
        if not isinstance(value, str) or any(c in value for c in " {}\"'"):
            raise CompileError(f"{name.replace('-', '_')} must be a plain string such as "
                               f"{example}, got {value!r}")
        options.append(f"{name}={value}")
    return " ".join(options)


def _first_target_chip(module: ir.Module) -> str | None:
    """The chip of the first #nvvm.target of the module's gpu.modules."""
    for op in module.body.operations:
        if op.operation.name == "gpu.module" and "targets" in op.attributes:
            for target in ir.ArrayAttr(op.attributes["targets"]):
                chip = nvvm_target_chip(target)
                if chip is not None:
                    return chip
    return None


def _unique(texts) -> list[str]:
    """`texts` in order, each distinct one once (a multicast release lowers to
    one arrive per target CTA, each of which reports the same error)."""
    return list(dict.fromkeys(texts))


def _compile_error(error: ir.MLIRError, warnings=()) -> CompileError:
    diagnostics = _unique(_diagnostic_text(d) for d in error.error_diagnostics)
    if not diagnostics:  # a failure without a diagnostic: MLIR's own words
        return CompileError(str(error), warnings=warnings)
    return CompileError("\n".join(diagnostics), diagnostics, warnings)


def _run(module, pipeline: str, warnings: list[str] | None = None) -> None:
    """Runs `pipeline` on `module`; errors raise CompileError, warnings (of
    mbarrier-check-sync) are appended to `warnings` when it is given, each
    distinct one once."""
    pm = PassManager.parse(f"builtin.module({pipeline})", context=module.context)
    seen = set(warnings or ())

    def on_diagnostic(diag) -> bool:
        if warnings is None or diag.severity != ir.DiagnosticSeverity.WARNING:
            return False
        text = _diagnostic_text(diag)
        if text not in seen:
            seen.add(text)
            warnings.append(text)
        return True

    handler = module.context.attach_diagnostic_handler(on_diagnostic)
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        # The warnings reported before the error stay with it.
        raise _compile_error(e, warnings or ()) from None
    finally:
        handler.detach()


def _parse(source: "str | os.PathLike[str]"):
    """The module of IR text or of an .mlir file, in a new context with the
    dialect registered."""
    ctx = ir.Context()
    register_dialect(ctx)
    path = _source_path(source)
    try:
        if path is None:
            return ir.Module.parse(source, context=ctx)
        return ir.Module.parseFile(path, context=ctx)  # diagnostics then name the file
    except ir.MLIRError as e:
        raise _compile_error(e) from None


def _source_path(source: "str | os.PathLike[str]") -> str | None:
    """The file to read for `source`: an ``os.PathLike``, or a str that can
    only be a path (one word: no whitespace, brace or parenthesis, which IR
    text always has, e.g. ``"kernel.ir"``); None for IR text."""
    if not isinstance(source, str):
        path = os.fspath(source)
    elif source and not any(c.isspace() or c in "{}()" for c in source):
        path = source
    else:
        return None
    if not os.path.isfile(path):
        raise CompileError(f"{path}: no such file (compile() takes an ir.Module, IR text, or "
                           f"the path of an existing file of IR text){did_you_mean(path)}")
    if path.endswith(".py"):
        raise CompileError(f"{path} is a Python program, not IR text: run it with python "
                           "(a lang kernel compiles itself with k.compile()); compile() and "
                           "mbarrier-compile read MLIR text (.mlir)")
    return path


def did_you_mean(path: str) -> str:
    """``"; did you mean DIR/NAME?"`` for the closest existing name in the
    folder of a `path` that does not exist (a typo), else ``""``."""
    folder, name = os.path.split(path)
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return ""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f"; did you mean {os.path.join(folder, close[0])}?" if close else ""


def _check_chip(chip: str | None) -> None:
    """An unknown `chip` is a CompileError without a location (it is an
    argument, not a line of the input), with the chips the backend knows;
    the pipeline refuses it too (mbarrier-attach-target)."""
    known = _known_chips()
    if chip is not None and known and chip not in known:
        raise CompileError(f"unknown chip {chip!r}: expected one the NVPTX backend knows "
                           f"({' '.join(known)})")


_WARNING_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+):\d+: warning: ")


def _issue_warning(message: str) -> None:
    """`message` (``file:line:col: warning: ...``) as a SyncCheckWarning
    attributed to that file and line: the user's own (the Python line that
    built the op, for lang), not the frontend's."""
    found = _WARNING_AT.match(message)
    if found is None:
        _warnings.warn(message, SyncCheckWarning, stacklevel=3)
        return
    _warnings.warn_explicit(message, SyncCheckWarning, found["file"], int(found["line"]))


def _target_chip(target) -> str:
    chip = nvvm_target_chip(target)
    if chip is None:
        raise CompileError(f"a gpu.module targets {target}, not an NVVM target")
    return chip


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
    strict: bool = False,
    debug_waits: int = 0,
    raise_nvgpu: bool = False,
    named_barrier_reserved: str | None = None,
) -> CompiledKernel:
    """Compile a module holding ``gpu.module`` kernels that use mbarrier ops.

    ``module`` is one of:

    - an ``ir.Module``: left untouched, a clone of it is lowered (in its
      context, with its locations);
    - the path of an existing file of IR text: an ``os.PathLike``, or a
      ``str`` of one word, without whitespace, braces or parentheses
      (``"examples/remote_pingpong.mlir"``, ``"kernel.ir"``; such a str
      that names no file is a CompileError, not IR);
    - any other ``str``: IR text (diagnostics locate it as ``-:line:col``).

    Stops after ``emit`` (one of nvvm, llvm, ptx, cubin) and returns every
    intermediate produced so far.

    ``chip`` (default sm_90) and ``features`` apply to gpu.modules without a
    target of their own; a module's own target is kept. With no
    ``features``, the PTX ISA version is the lowest that the chip and the
    module's mbarrier ops need; ``"+ptxNN"`` asks for a version explicitly.
    An unknown chip, a malformed feature string or a version below the
    chip's minimum is a CompileError naming the fix.

    ``check_sync`` (default True) runs the synchronization checker
    (``mbarrier-check-sync``, docs/checker.md) first: its errors raise
    CompileError, its warnings are kept in ``.warnings`` and issued as
    ``SyncCheckWarning``, attributed to the file and line each names (for
    lang, the user's line that built the op; with an error, in the
    CompileError's ``.warnings``). ``strict`` (default False) makes its warnings errors.

    Errors and warnings read as compilers print them:
    ``file:line:col: error: message``, notes located on lines of their own,
    each distinct diagnostic once (see :class:`CompileError`).
    ``debug_waits`` (nanoseconds, default 0 = off) bounds every blocking
    wait (``mbarrier.wait``, a pipe's wait, acquire and tail): a wait whose
    phase has not completed that long after its first failed try_wait
    records one line per stuck warp (where, on which barrier and parity, CTA,
    warp, the barrier's state; ``runtime.WaitTimeoutError`` holds them) and
    traps, so the launch fails instead of hanging
    (docs/design.md, "Debugging a hang"). Off, the PTX is the same as
    without the argument.

    ``raise_nvgpu`` (default False) raises upstream nvgpu barrier and
    TMA-load ops into the mbarrier dialect first (``mbarrier-raise-nvgpu``)
    and lowers what stays nvgpu the upstream way (docs/interop.md).

    ``named_barrier_reserved`` (default ``"0"``, the pipeline's
    ``named-barrier-reserved``) lists the hardware barrier ids that named
    barriers without an id are not given, e.g. ``"0,1-7"`` to keep out of
    CUTLASS's reserved ids (docs/lang.md, named barriers).
    """
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {EMITS}, got {emit!r}")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if not isinstance(check_sync, bool):
        raise TypeError(f"check_sync must be a bool, got {type(check_sync).__name__}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict must be a bool, got {type(strict).__name__}")
    if not isinstance(raise_nvgpu, bool):
        raise TypeError(f"raise_nvgpu must be a bool, got {type(raise_nvgpu).__name__}")
    _check_chip(chip)
    options = _pipeline_options(chip, features, opt_level, check_sync, strict, debug_waits,
                                raise_nvgpu, named_barrier_reserved)
    result = CompiledKernel(chip=chip)
    t0 = time.perf_counter()
    if isinstance(module, (str, os.PathLike)):
        work = _parse(module)
    else:
        register_dialect(module.context)
        # A copy (the caller's module is left untouched), with its locations.
        work = module.operation.clone(ip=False)
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
                    _issue_warning(message)
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


if __name__ == "__main__":  # a library module: the command line is cli.py's
    sys.exit("mbarrier_dialect.compiler is the library; its command line is `mbarrier-compile` "
             "or `python -m mbarrier_dialect` (same options)")
