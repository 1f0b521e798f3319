"""The builder context of `lang`: the kernel being built (a ``gpu.func`` in a
``gpu.module``), its MLIR context, module, insertion points and launch
shape; the locations its ops get (the user's line, see
:mod:`mbarrier_dialect.locations`); and the check that hands every op
`lang` builds to the C++ verifier.

Every other layer of `lang` builds ops at the current insertion point and
asks :func:`current_kernel` for the kernel state it needs; `Builder` is
what they may rely on. :class:`~.kernel.Kernel` adds the frontend's calls
on top of it.
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import Any, Callable, Sequence, TypeVar, Union

from mlir import ir
from mlir.dialects import gpu

from .. import register_dialect
from ..locations import (caller_location_text, diagnostic_text, fix_columns, location_text,
                         python_locations)
from ..runtime import validate_launch_shape
from . import values as V
from .values import DType, Value

__all__ = ["Builder", "current_kernel", "building", "verified", "verification_error",
           "param_type", "needs_kernel", "make_type", "check_same_kernel"]

_BUILDERS: list["Builder"] = []

OpT = TypeVar("OpT", ir.OpView, ir.Operation)

Dims = Union[int, Sequence[int]]


# -- the C++ verifier decides ----------------------------------------------

def verification_error(error: ir.MLIRError) -> ValueError:
    """The C++ verifier's diagnostics of `error` as a ``ValueError``, as
    compilers print them: each ``file:line:col: error: <the verifier's
    message>``, its notes located on lines of their own."""
    diags = list(error.error_diagnostics)
    if not diags:
        return ValueError(str(error))
    return ValueError("\n".join(dict.fromkeys(diagnostic_text(d) for d in diags)))


def verified(op: "OpT") -> "OpT":
    """Verify `op` (just built) with the C++ verifier; a broken rule raises
    ``ValueError`` with the verifier's message at the user's file:line, and
    the op is erased so the kernel stays well-formed. Returns `op`."""
    fix_columns(op)
    try:
        op.operation.verify()
    except ir.MLIRError as e:
        error = verification_error(e)
        op.operation.erase()
        raise error from None
    return op


def current_kernel() -> "Builder":
    """The kernel whose ``with`` block is being executed."""
    if not _BUILDERS:
        raise RuntimeError("no kernel is being built: use `with Kernel(...) as k:`")
    return _BUILDERS[-1]


def building() -> "Builder | None":
    """The kernel being built, or None outside every ``with Kernel(...)``
    block (lang's control flow also builds into an insertion point of the
    caller's own)."""
    return _BUILDERS[-1] if _BUILDERS else None


def make_type(make: "Callable[[], ir.Type]") -> ir.Type:
    """``make()`` (``ir.Type.parse`` of a type text lang wrote, or a type's
    ``get``): a broken rule of the C++ type verifier raises ``ValueError``
    with its message, located at the user's line that asked for the type,
    never in the type text lang made up."""
    try:
        return make()
    except ir.MLIRError as e:
        messages = [d.message for d in e.error_diagnostics] or [str(e)]
    except ValueError as e:  # a type's get(): "GroupType.get(0): message"
        messages = [str(e).split("): ", 1)[-1]]
    where = caller_location_text()
    raise ValueError("\n".join(f"{where + ': ' if where else ''}error: {m}"
                               for m in messages)) from None


class ParameterError(KeyError):
    """``k.param(name)`` of a name the kernel does not declare: a KeyError
    whose message prints as written (a KeyError's own str() quotes it)."""

    def __str__(self) -> str:
        return str(self.args[0])


def check_same_kernel(owner: "Builder", what: str) -> None:
    """`what` (e.g. "this MBarrier"), made in kernel `owner`, is about to be
    used: in another kernel being built that is a ``ValueError`` located at
    the user's line, not MLIR's "region isolation" (shared memory is one
    kernel's)."""
    current = building()
    if current is None or current is owner:
        return
    where = caller_location_text()
    raise ValueError(f"{where + ': ' if where else ''}error: {what} belongs to kernel "
                     f"{owner.name!r}, not to {current.name!r}, the kernel being built: its "
                     "barriers live in the shared memory of one kernel; make one in "
                     f"{current.name!r} (from its own k.smem_pool())")


def _has_insertion_point() -> bool:
    try:
        ir.InsertionPoint.current
    except ValueError:
        return False
    return True


def needs_kernel(fn: "Callable[..., Any]", name: str) -> "Callable[..., Any]":
    """`fn` (a call of lang named `name`, e.g. ``"lang.const"``) that first
    checks that there is somewhere to build: inside a ``with Kernel(...)``
    block, or under an insertion point of the caller's own. Elsewhere it
    raises a ``RuntimeError`` located at the user's line that says so,
    instead of MLIR's "requires a Context"."""
    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        if not _BUILDERS and not _has_insertion_point():
            where = caller_location_text()
            raise RuntimeError(
                f"{where + ': ' if where else ''}error: {name}() builds IR into the kernel being "
                "built, and none is: call it inside the `with Kernel(...) as k:` block")
        return fn(*args, **kwargs)

    guarded.__lang_needs_kernel__ = True
    return guarded


def param_type(kind: DType) -> ir.Type:
    """The IR type of a kernel parameter of `kind` (``"ptr"``: a global
    pointer, ``!llvm.ptr<1>``; else an element type)."""
    if kind == "ptr":
        return ir.Type.parse("!llvm.ptr<1>")
    return V.dtype(kind)


class Builder:
    """The state of one kernel being built: `name`, the launch shape
    (`grid`, `block`, `cluster`, checked by the launcher's rules when the
    kernel is declared), the parameters, the MLIR `context` and, inside the
    ``with`` block, the `module`, the ``gpu.module`` body and the kernel's
    `entry` block, where ops go."""

    def __init__(self, name: str, *, block: Dims, grid: Dims | None = None,
                 cluster: Dims | None = None, params: Sequence[tuple[str, DType]] = (),
                 context: ir.Context | None = None):
        self.name = name
        if grid is None:
            grid = cluster if cluster is not None else 1
        self.grid, self.block, self.cluster = validate_launch_shape(grid, block, cluster)
        self.params = list(params)
        self.context = context or ir.Context()
        register_dialect(self.context)
        with self.context:
            for pname, kind in self.params:
                try:
                    param_type(kind)
                except (TypeError, ValueError) as e:
                    raise ValueError(f"parameter {pname!r}: kind must be 'ptr' or an element "
                                     f"type ({e})") from None
        self._symbols = 0
        self._stack = contextlib.ExitStack()
        self._deferred_error: str | None = None
        self.module: ir.Module | None = None

    def __enter__(self) -> "Builder":
        """Create the module and the kernel function; ops built inside the
        ``with`` block go into the kernel's body."""
        stack = self._stack
        stack.enter_context(self.context)
        stack.enter_context(ir.Location.name(self.name))
        # Ops get the file:line of the user's code that built them, so that
        # a verifier or target error points there.
        stack.enter_context(python_locations())
        self.module = ir.Module.create()
        self.module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(self.module.body):
            gpu_module = gpu.GPUModuleOp("kernels")
        self.gpu_module_body = gpu_module.bodyRegion.blocks.append()
        types = [param_type(kind) for _, kind in self.params]
        with ir.InsertionPoint(self.gpu_module_body):
            self.func = gpu.GPUFuncOp(ir.TypeAttr.get(ir.FunctionType.get(types, [])),
                                      sym_name=self.name, kernel=True,
                                      known_block_size=list(self.block))
        if self.cluster:
            self.func.attributes["known_cluster_size"] = ir.DenseI32ArrayAttr.get(list(self.cluster))
        self.entry = self.func.body.blocks.append(*types)
        stack.enter_context(ir.InsertionPoint(self.entry))
        _BUILDERS.append(self)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """Close the kernel and verify the module: a broken IR rule raises
        ``ValueError`` with the verifier's located message."""
        try:
            if exc_type is None:
                gpu.ReturnOp([])
        finally:
            _BUILDERS.remove(self)
            self._stack.close()
        fix_columns(self.module.operation)
        if exc_type is None:
            if self._deferred_error:
                raise RuntimeError(self._deferred_error)
            try:
                self.module.operation.verify()
            except ir.MLIRError as e:
                raise verification_error(e) from None

    def defer_error(self, message: str, op: ir.OpView | ir.Operation) -> None:
        """Make the kernel fail with `message`, located at `op`, when its
        ``with`` block ends (for a mistake found where raising would leave
        the IR broken). The first such error wins."""
        if self._deferred_error is None:
            fix_columns(op)
            where = location_text(op.operation.location)
            self._deferred_error = (f"{where}: " if where else "") + message

    def unique_symbol(self, stem: str) -> str:
        """A symbol name not used before in this kernel's module."""
        self._symbols += 1
        return f"__{stem}_{self._symbols}"

    def module_insertion_point(self) -> ir.InsertionPoint:
        """The start of the ``gpu.module``'s body (for globals)."""
        return ir.InsertionPoint.at_block_begin(self.gpu_module_body)

    def param(self, name: str) -> Value:
        """The kernel parameter `name`."""
        for i, (pname, _) in enumerate(self.params):
            if pname == name:
                return V.wrap(self.entry.arguments[i])
        where = caller_location_text()
        names = ", ".join(repr(pname) for pname, _ in self.params) or "none"
        raise ParameterError(f"{where + ': ' if where else ''}error: kernel {self.name!r} has no "
                       f"parameter {name!r} (its parameters: {names}; Kernel(..., "
                       "params=[(name, kind), ...]) declares them)")

    @property
    def cluster_size(self) -> int | None:
        """CTAs per cluster, or None for a kernel without a cluster."""
        return math.prod(self.cluster) if self.cluster else None
