"""The ``mbarrier-compile`` command line: :func:`mbarrier_dialect.compile`
on an .mlir file (or stdin), writing NVVM, LLVM, PTX or a cubin."""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from .compiler import EMITS, CompileError, SyncCheckWarning, compile, did_you_mean
from .ptxas import PtxasError, assemble

__all__ = ["main"]


def _error(message: str) -> int:
    print(f"mbarrier-compile: error: {message}", file=sys.stderr)
    return 1


class _Refused(Exception):
    """An error of the command line (printed as mbarrier-compile: error: ...)."""


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


class _VersionAction(argparse.Action):
    """``--version``: the project's, MLIR/LLVM's and ptxas's versions (run
    only when asked: it starts mbarrier-opt and ptxas)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .versions import version_report

        print(version_report(parser.prog))
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mbarrier-compile",
        description="Compile gpu.module kernels that use the mbarrier dialect "
        "to NVVM, LLVM, PTX or a cubin. Each gpu.module is compiled for its own "
        "target; with several and --emit ptx/cubin, -o dir/stem.ext writes one "
        "dir/stem.<module>.ext per module unless --module picks one. Errors and "
        "warnings are printed as file:line:col: error: message.",
    )
    parser.add_argument("input", help="input .mlir file ('-' for stdin)")
    parser.add_argument("--chip", default=None,
                        help="target chip for gpu.modules without a target of their own "
                        "(default: sm_90)")
    parser.add_argument("--features", default=None,
                        help="PTX ISA version as +ptxNN (default: the lowest version the chip "
                        "and the ops need)")
    parser.add_argument("-O", dest="opt_level", type=int, default=3, choices=range(4),
                        help="optimization level of LLVM and ptxas (default: %(default)s)")
    parser.add_argument("--emit", choices=EMITS, default="cubin",
                        help="what to write (default: %(default)s)")
    parser.add_argument("--module", dest="module", default=None, metavar="NAME",
                        help="emit only the PTX or cubin of gpu.module @NAME (default: every "
                        "gpu.module)")
    parser.add_argument("-o", dest="output", default="-",
                        help="output file, '-' for stdout (default: %(default)s; a cubin is "
                        "not written to a terminal)")
    parser.add_argument("--no-check-sync", dest="check_sync", action="store_false",
                        help="do not run the synchronization checker, mbarrier-check-sync "
                        "(default: it runs first)")
    parser.add_argument("--debug-waits", dest="debug_waits", type=_nanoseconds, default=0,
                        metavar="NS",
                        help="bound every blocking wait to NS nanoseconds: past it, the wait "
                        "records where it is stuck and traps (default 0: off)")
    parser.add_argument("--raise-nvgpu", dest="raise_nvgpu", action="store_true",
                        help="raise upstream nvgpu barrier and TMA-load ops into the mbarrier "
                        "dialect first (mbarrier-raise-nvgpu; default: off)")
    parser.add_argument("--named-barrier-reserved", dest="named_barrier_reserved", default=None,
                        metavar="IDS",
                        help="hardware barrier ids not given to named barriers without an id, "
                        "e.g. 0,1-7 to keep out of CUTLASS's (default: 0)")
    parser.add_argument("--check-sync-strict", dest="strict", action="store_true",
                        help="the synchronization checker's warnings are errors (default: off)")
    parser.add_argument("--version", action=_VersionAction,
                        help="print the versions of mbarrier-dialect, MLIR/LLVM and ptxas")
    return parser


def _read_input(path: str) -> str:
    """The text of `path` ('-': stdin); OSError/UnicodeDecodeError as they come."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8")


def main(argv: list[str] | None = None) -> int:
    """The ``mbarrier-compile`` command line; returns the exit status."""
    args = _parser().parse_args(argv)

    if args.module is not None and args.emit in ("nvvm", "llvm"):
        return _error(f"--module selects one gpu.module's ptx or cubin; --emit {args.emit} "
                      "prints the whole module")
    if args.emit == "cubin" and args.output == "-" and sys.stdout.isatty():
        return _error("refusing to write a cubin (binary) to a terminal: pass -o FILE, "
                      "or --emit ptx for text")
    try:
        text = _read_input(args.input)
    except OSError as e:
        hint = did_you_mean(args.input) if isinstance(e, FileNotFoundError) else ""
        return _error(f"cannot read {args.input}: {e.strerror}{hint}")
    except UnicodeDecodeError as e:
        return _error(f"{args.input} is not UTF-8 text ({e.reason} at byte {e.start})")
    if not text.strip():
        return _error(f"{args.input} is empty")
    try:
        source = text if args.input == "-" else Path(args.input)
        # Stop at PTX and assemble only the modules that are written.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyncCheckWarning)
            result = compile(source, args.chip, features=args.features,
                             opt_level=args.opt_level,
                             emit="ptx" if args.emit == "cubin" else args.emit,
                             check_sync=args.check_sync, strict=args.strict,
                             debug_waits=args.debug_waits, raise_nvgpu=args.raise_nvgpu,
                             named_barrier_reserved=args.named_barrier_reserved)
    except CompileError as e:
        for message in e.warnings:      # the warnings first, then the error
            print(message, file=sys.stderr)
        if e.diagnostics:  # already file:line:col: error: message
            print(e.message, file=sys.stderr)
            return 1
        return _error(e.message)
    for message in result.warnings:
        print(message, file=sys.stderr)

    try:
        outputs = _outputs(args, result)
    except _Refused as e:
        return _error(str(e))
    for path, payload in outputs:
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


def _outputs(args, result) -> "list[tuple[str, str | bytes]]":
    """(path or "-", payload) for each file to write; _Refused where the
    arguments cannot be met."""
    if args.emit in ("nvvm", "llvm"):
        return [(args.output, getattr(result, args.emit))]
    names = ", ".join(result.modules)
    if args.module is not None:
        if args.module not in result.modules:
            raise _Refused(f"no gpu.module named '{args.module}'; the input has: {names}")
        chosen = [result.modules[args.module]]
    else:
        chosen = list(result.modules.values())
    if len(chosen) > 1 and args.output == "-":
        raise _Refused(f"the input has {len(chosen)} gpu.modules ({names}): pass "
                      f"--module NAME to print one, or -o DIR/STEM.{args.emit} to write "
                      f"DIR/STEM.<module>.{args.emit} for each")
    outputs = []
    for compiled in chosen:
        if args.emit == "cubin":
            try:
                compiled.cubin = assemble(compiled.ptx, compiled.chip, args.opt_level)
            except PtxasError as e:
                where = f" (gpu.module @{compiled.name})" if len(result.modules) > 1 else ""
                raise _Refused(f"{e}{where}") from None
        payload = getattr(compiled, args.emit)
        if len(chosen) == 1:
            outputs.append((args.output, payload))
            continue
        if "/" in compiled.name or compiled.name in (".", ".."):
            raise _Refused(f"gpu.module @\"{compiled.name}\" cannot name a file; "
                          "pass --module to pick it and -o to name its file")
        outputs.append((_per_module_path(args.output, compiled.name, args.emit), payload))
    return outputs


if __name__ == "__main__":
    sys.exit(main())
