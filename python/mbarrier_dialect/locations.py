"""Source locations, one helper for the whole package.

- lang's ops carry the location of the user's Python line that built them:
  :func:`python_locations` turns on the MLIR bindings' traceback locations
  with this package's frames (and the ``mlir`` package's) left out, and
  :func:`one_based` / :func:`fix_columns` turn what the bindings record into
  the location a compiler prints.
- :func:`location_text` formats a location as ``file:line:col`` for a
  diagnostic (lang's ``ValueError``s, ``compile()``'s warnings and errors).

Columns are 1-based everywhere, as MLIR's own parser records them
(``FileLineColLoc``; mlir-opt prints ``file:line:col``) and as compilers
print them. The bindings' traceback locations are not: they store Python's
0-based column offsets (``PyCode_Addr2Location``) in a
``FileLineColRange``, wrapped in a ``NameLoc`` of the Python function's
name. :func:`one_based` rewrites that shape to a bare ``FileLineColRange``
with both columns moved by one; the rewritten shape is never rewritten
again, so fixing an op twice is harmless.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
from typing import Iterator

import mlir
from mlir import ir
from mlir._mlir_libs._mlir import globals as _mlir_globals

__all__ = ["python_locations", "one_based", "fix_columns", "location_text", "user_location",
           "diagnostic_text", "caller_location_text"]

_PACKAGE_ROOT = os.path.dirname(os.path.abspath(__file__))


def _frontend_files() -> Iterator[str]:
    """The Python files of this package and of the ``mlir`` package, and
    ``contextlib`` (which runs lang's ``with`` blocks, e.g. ``if_then``):
    their frames are not the user's."""
    yield contextlib.__file__
    for root in [_PACKAGE_ROOT, *mlir.__path__]:
        for base, _, files in os.walk(root):
            for name in files:
                if name.endswith(".py"):
                    yield os.path.join(base, name)


@functools.cache
def _frontend_file_set() -> frozenset[str]:
    return frozenset(os.path.abspath(path) for path in _frontend_files())


def caller_location_text() -> str | None:
    """``file:line:col`` (1-based column) of the innermost Python frame
    outside this package, ``mlir`` and ``contextlib``: the user's line that
    called into the frontend, for an error raised before any op is built."""
    frontend = _frontend_file_set()
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename) in frontend:
        frame = frame.f_back
    if frame is None:
        return None
    col = 1
    positions = getattr(inspect.getframeinfo(frame), "positions", None)  # Python >= 3.11
    if positions is not None and positions.col_offset is not None:
        col = positions.col_offset + 1
    return f"{frame.f_code.co_filename}:{frame.f_lineno}:{col}"


@functools.cache
def _exclude_frontend_frames() -> None:
    for path in _frontend_files():
        _mlir_globals.register_traceback_file_exclusion(path)


@contextlib.contextmanager
def python_locations() -> Iterator[None]:
    """Inside the block, an op built without an explicit location gets the
    location of the innermost Python frame outside this package, ``mlir``
    and ``contextlib``: the user's line that asked for it (as the bindings record it:
    0-based columns; :func:`fix_columns` makes them 1-based)."""
    _exclude_frontend_frames()
    with ir.loc_tracebacks(max_depth=1):
        yield


def _is_traceback_shape(loc: ir.Location) -> bool:
    """A ``NameLoc`` around a file range: what the bindings record."""
    try:
        return loc.is_a_name() and loc.child_loc.is_a_file()
    except (AttributeError, ValueError):
        return False


def one_based(loc: ir.Location) -> ir.Location:
    """`loc` with 1-based columns: a traceback location of the bindings
    (``NameLoc(function, file:line:col0 to line:col0)``) becomes the file
    range ``file:line:col to line:col`` with both columns moved by one;
    every other location is returned as it is."""
    if not _is_traceback_shape(loc):
        return loc
    f = loc.child_loc
    return ir.Location.file(f.filename, f.start_line, f.start_col + 1, f.end_line,
                            f.end_col + 1, context=loc.context)


def fix_columns(op: ir.Operation | ir.OpView) -> None:
    """Give `op` and every op nested in it 1-based columns (:func:`one_based`)."""
    def fix(inner: ir.Operation) -> ir.WalkResult:
        if _is_traceback_shape(inner.location):
            inner.location = one_based(inner.location)
        return ir.WalkResult.ADVANCE

    op.operation.walk(fix)


def user_location() -> ir.Location:
    """The location an op built here and now would get, with 1-based
    columns: for an op that is built later on the user's behalf but belongs
    to this line (a barrier group's view, built at ``pool.commit()``, names
    the line of ``MBarrier(...)``). Needs the insertion point of an op
    under construction; a probe op is built there and erased."""
    probe = ir.Operation.create("builtin.unrealized_conversion_cast",
                                results=[ir.IndexType.get()])
    loc = one_based(probe.location)
    probe.erase()
    return loc


def location_text(loc: ir.Location) -> str | None:
    """``file:line:col`` of the first file location inside `loc` (through
    names, call sites and fused locations), or None where there is none."""
    try:
        if loc.is_a_file():
            return f"{loc.filename}:{loc.start_line}:{loc.start_col}"
        if loc.is_a_name():
            return location_text(loc.child_loc)
        if loc.is_a_callsite():
            return location_text(loc.callee)
        if loc.is_a_fused():
            for inner in loc.locations:
                found = location_text(inner)
                if found:
                    return found
    except (AttributeError, ValueError):
        pass
    return None


_SEVERITIES = {ir.DiagnosticSeverity.ERROR: "error", ir.DiagnosticSeverity.WARNING: "warning",
               ir.DiagnosticSeverity.NOTE: "note", ir.DiagnosticSeverity.REMARK: "remark"}

# The note MLIR attaches to every error an op emits (while the context's
# printOpOnDiagnostic is on, the default; the `--mlir-print-op-on-diagnostic`
# of mlir-opt): the op, and for a pass on a module the whole module, printed
# in generic form. Python cannot turn the flag off, so the note is dropped.
_OP_DUMP_NOTE = "see current operation"


def diagnostic_text(diag: "ir.Diagnostic | ir.DiagnosticInfo") -> str:
    """`diag` (an ``ir.Diagnostic`` or ``ir.DiagnosticInfo``) as compilers
    print it: ``file:line:col: severity: message``, then each note (but the
    op dump) the same way, located, on a line of its own."""
    where = location_text(diag.location)
    lines = [f"{where + ': ' if where else ''}{_SEVERITIES[diag.severity]}: {diag.message}"]
    lines += [diagnostic_text(note) for note in diag.notes
              if not note.message.startswith(_OP_DUMP_NOTE)]
    return "\n".join(lines)
