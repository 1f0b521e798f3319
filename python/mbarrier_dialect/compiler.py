"""``compile(module, chip=...)``: mbarrier IR -> NVVM -> LLVM -> PTX -> cubin,
and the ``mbarrier-compile`` command line.

The pass order lives in C++ (``mbarrier-to-ptx`` and its two stages); this
driver runs the stages, keeps each intermediate, and calls ptxas.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir
from mlir.passmanager import PassManager

from . import register_dialect
from .ptxas import PtxasError, assemble

EMITS = ("nvvm", "llvm", "ptx", "cubin")


class CompileError(RuntimeError):
    """Compilation failed; the message carries the located diagnostics."""


@dataclass
class CompiledKernel:
    chip: str
    nvvm: str = ""
    llvm: str = ""
    ptx: str = ""
    cubin: bytes = b""
    # Seconds per stage: lower (to NVVM), llvm, ptx, ptxas.
    timings: dict = field(default_factory=dict)


def default_features(chip: str) -> str:
    # sm_90 defaults to PTX 7.8 in the NVPTX backend; `.relaxed` needs 8.6,
    # which ptxas 12.9 (nvidia-cuda-nvcc-cu12) accepts.
    return "+ptx86" if chip.startswith("sm_90") else ""


def _run(module: ir.Module, pipeline: str) -> None:
    pm = PassManager.parse(f"builtin.module({pipeline})", context=module.context)
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        raise CompileError(str(e)) from None


def _extract_ptx(module: ir.Module) -> str:
    from mlir.dialects import gpu

    texts = []
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        for obj in op.attributes["objects"]:
            texts.append(gpu.ObjectAttr(obj).object.decode())
    if not texts:
        raise CompileError("the module has no gpu.module to compile")
    return "\n".join(texts)


def compile(
    module,
    chip: str = "sm_90",
    *,
    features: str | None = None,
    opt_level: int = 3,
    emit: str = "cubin",
) -> CompiledKernel:
    """Compile a module holding ``gpu.module`` kernels that use mbarrier ops.

    ``module`` is an ``ir.Module`` (left untouched; a copy is lowered), IR
    text, or the path of an .mlir file (``os.PathLike``). Stops after ``emit`` (one of nvvm, llvm, ptx, cubin) and returns
    every intermediate produced so far.
    """
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {EMITS}, got {emit!r}")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if not re.fullmatch(r"sm_\d+[af]?", chip):
        raise CompileError(f"unknown chip '{chip}': expected sm_<number>[a|f], e.g. sm_90")
    features = default_features(chip) if features is None else features
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
    # (timing key, the result field it fills and the `emit` that stops there,
    #  pipeline, what to keep of the module)
    stages = [
        ("lower", "nvvm",
         f"mbarrier-to-ptx-stage-nvvm{{chip={chip} features={features} O={opt_level}}}", str),
        ("llvm", "llvm", "mbarrier-to-ptx-stage-llvm", str),
        ("ptx", "ptx", "gpu-module-to-binary{format=isa}", _extract_ptx),
    ]
    with work.context:
        for key, field_name, pipeline, keep in stages:
            _run(work, pipeline)
            setattr(result, field_name, keep(work))
            now = time.perf_counter()
            result.timings[key] = now - t0
            t0 = now
            if emit == field_name:
                return result
    try:
        result.cubin = assemble(result.ptx, chip, opt_level)
    except PtxasError as e:
        raise CompileError(str(e)) from None
    result.timings["ptxas"] = time.perf_counter() - t0
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="mbarrier-compile",
        description="Compile gpu.module kernels that use the mbarrier dialect "
        "to NVVM, LLVM, PTX or a cubin.",
    )
    parser.add_argument("input", help="input .mlir file ('-' for stdin)")
    parser.add_argument("--chip", default="sm_90", help="target chip (default sm_90)")
    parser.add_argument("--features", default=None,
                        help="NVVM target features (default +ptx86 on sm_90)")
    parser.add_argument("-O", dest="opt_level", type=int, default=3, choices=range(4))
    parser.add_argument("--emit", choices=EMITS, default="cubin")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    args = parser.parse_args(argv)

    try:
        if args.input == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.input, "rb") as f:
                text = f.read()
        text = text.decode("utf-8")
    except OSError as e:
        print(f"mbarrier-compile: error: cannot read {args.input}: {e.strerror}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as e:
        print(f"mbarrier-compile: error: {args.input} is not UTF-8 text ({e.reason} at byte {e.start})",
              file=sys.stderr)
        return 1
    if not text.strip():
        print(f"mbarrier-compile: error: {args.input} is empty", file=sys.stderr)
        return 1
    try:
        source = text if args.input == "-" else Path(args.input)
        result = compile(source, args.chip, features=args.features,
                         opt_level=args.opt_level, emit=args.emit)
    except CompileError as e:
        print(f"mbarrier-compile: error: {e}", file=sys.stderr)
        return 1
    payload = getattr(result, args.emit)
    if args.emit == "cubin" and args.output == "-" and sys.stdout.isatty():
        print("mbarrier-compile: error: refusing to write a cubin to a terminal; use -o",
              file=sys.stderr)
        return 1
    try:
        if args.output == "-":
            if isinstance(payload, bytes):
                sys.stdout.buffer.write(payload)
            else:
                sys.stdout.write(payload)
        else:
            mode = "wb" if isinstance(payload, bytes) else "w"
            with open(args.output, mode) as f:
                f.write(payload)
    except OSError as e:
        print(f"mbarrier-compile: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
