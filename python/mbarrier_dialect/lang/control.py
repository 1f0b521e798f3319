"""Structured control flow of `lang`: ``if_then``, ``if_else`` (with
results), ``for_range``, ``range`` (a Python ``for`` loop that builds an
``scf.for``) and ``unrolled_range``. Loops carry values, and objects that
stand for an SSA value (:class:`Carried`: a pipeline side or slot)."""
from __future__ import annotations

import abc
import builtins
import contextlib
from typing import Callable, ContextManager, Iterator, Sequence

from mlir import ir
from mlir.dialects import arith, scf

from . import values as V
from .builder import building
from .values import IntLike, Value

__all__ = ["if_then", "if_else", "IfElse", "for_range", "Loop", "range", "Range",
           "unrolled_range", "Carried"]


class Carried(abc.ABC):
    """An object that a loop carries by its SSA value (a pipeline side or
    slot): ``_carry_value()`` gives the value to carry, ``_bind(v)`` rebinds
    the object to the value of the next iteration or of the loop's result.
    Subclass it to pass such objects in ``carry=[...]``."""

    @abc.abstractmethod
    def _carry_value(self) -> ir.Value:
        """The SSA value that stands for the object."""

    @abc.abstractmethod
    def _bind(self, value: ir.Value) -> None:
        """Make the object stand for `value`."""


@contextlib.contextmanager
def if_then(cond: ir.Value) -> Iterator[None]:
    """``with if_then(pred):`` emits the body under an ``scf.if``: it runs
    where the i1 `pred` holds. A Python bool is a ``TypeError``."""
    op = scf.IfOp(V.as_i1(cond))
    with ir.InsertionPoint(op.then_block):
        try:
            yield
        finally:  # (also when the body raised: the kernel stays well-formed)
            scf.YieldOp([])


class IfElse:
    """Two branches, optionally yielding values::

        branch = if_else(rank == 0)
        with branch.then():
            branch.yield_(a)
        with branch.otherwise():
            branch.yield_(b)
        (x,) = branch.results

    Both branches must yield the same number of values; their types are
    unified as a binary operator's operands are (a Python number takes the
    other branch's type, or i32/f32).
    """

    def __init__(self, cond: ir.Value):
        self._cond = V.as_i1(cond)
        self.op = scf.IfOp(self._cond, [], has_else=True)
        self._branch: str | None = None
        self._yields: dict[str, list | None] = {"then": None, "otherwise": None}
        self._done: set[str] = set()
        self._results: list[Value] | None = None

    @contextlib.contextmanager
    def _build(self, name: str, block: ir.Block) -> Iterator[None]:
        if name in self._done or self._branch is not None:
            raise RuntimeError(f"if_else: the {name} branch is built once, not nested in the other")
        self._branch = name
        try:
            with ir.InsertionPoint(block):
                yield
        except BaseException:
            self._yields[name] = None  # the branch is abandoned: terminate it
            raise
        finally:
            self._branch = None
            self._done.add(name)
            if self._yields[name] is None:
                with ir.InsertionPoint(block):
                    scf.YieldOp([])

    def then(self) -> ContextManager[None]:
        """``with branch.then():`` the code that runs where the condition holds."""
        return self._build("then", self.op.then_block)

    def otherwise(self) -> ContextManager[None]:
        """``with branch.otherwise():`` the code that runs where it does not."""
        return self._build("otherwise", self.op.else_block)

    def yield_(self, *values: Value | int | float) -> None:
        """The values this branch gives to ``results`` (``scf.yield``)."""
        if self._branch is None:
            raise RuntimeError("yield_() belongs inside `with branch.then():` or "
                               "`with branch.otherwise():`")
        if self._yields[self._branch] is not None:
            raise RuntimeError(f"the {self._branch} branch already yielded")
        for v in values:
            V._refuse_bool(v, "a yielded value")
        self._yields[self._branch] = list(values)

    @property
    def results(self) -> list[Value]:
        """The values the branches yielded (after both are built)."""
        if self._results is None:
            self._results = self._finish()
        return self._results

    def _finish(self) -> list[Value]:
        if self._done != {"then", "otherwise"}:
            raise RuntimeError("if_else results exist once both branches are built")
        then, other = self._yields["then"], self._yields["otherwise"]
        if then is None and other is None:
            return []
        if then is None or other is None or len(then) != len(other):
            raise ValueError(f"if_else branches yield {0 if then is None else len(then)} and "
                             f"{0 if other is None else len(other)} values: they must match")
        types = []
        for a, b in zip(then, other):
            ta = a.type if isinstance(a, ir.Value) else None
            tb = b.type if isinstance(b, ir.Value) else None
            if ta is None and tb is None:
                types.append(V.const(a).type if not isinstance(a, float) else V.dtype("f32"))
            elif ta is None or tb is None:
                types.append(ta or tb)
            else:
                types.append(V._common_type(ta, tb, "if_else results"))
        # scf.if results are fixed when the op is created: build the op with
        # them and move both branches' ops into it.
        with ir.InsertionPoint(self.op):
            new = scf.IfOp(self._cond, types, has_else=True)
        for old, block, values in ((self.op.then_block, new.then_block, then),
                                   (self.op.else_block, new.else_block, other)):
            for op in list(old.operations):
                block.append(op)
            with ir.InsertionPoint(block):
                scf.YieldOp([_to_type(v, t) for v, t in zip(values, types)])
        self.op.operation.erase()
        self.op = new
        return [V.wrap(r) for r in new.results]


def _to_type(v, ty: ir.Type) -> ir.Value:
    if isinstance(v, ir.Value):
        return V._convert(v, ty)
    return V.const(v, ty)


def if_else(cond: ir.Value) -> IfElse:
    """Two branches on the i1 `cond` (see :class:`IfElse`). A Python bool
    is a ``TypeError``."""
    return IfElse(cond)


def _bounds(lower, upper, step) -> tuple[ir.Value, ir.Value, ir.Value]:
    """Loop bounds of one integer type: the values' common type (``index``
    if one is an index), else i32; Python ints become constants of it."""
    for b in (lower, upper, step):
        V._refuse_bool(b, "a loop bound")
        if not isinstance(b, (int, ir.Value)):
            raise TypeError(f"a loop bound is an int or an integer value, got {type(b).__name__}")
        if isinstance(b, ir.Value) and (not V._is_int(b.type) or V._is_i1(b.type)):
            raise TypeError(f"a loop bound is an integer value, got a {b.type} value")
    ty = None
    for b in (lower, upper, step):
        if isinstance(b, ir.Value):
            ty = b.type if ty is None else V._common_type(ty, b.type, "loop bounds")
    ty = ty or V.i32()
    if isinstance(step, int) and step <= 0:
        raise ValueError(f"a loop step must be positive, got {step}")
    return tuple(V.as_value(b, ty) for b in (lower, upper, step))  # type: ignore[return-value]


def _carry(values) -> list[ir.Value]:
    out = []
    for v in values:
        if isinstance(v, Carried):
            out.append(v._carry_value())
            continue
        V._refuse_bool(v, "a carried value")
        out.append(v if isinstance(v, ir.Value) else V.const(v))
    return out


class Loop:
    """An ``scf.for`` being built: ``iv`` (the induction variable),
    ``carry`` (the loop-carried values in this iteration), ``next(*values)``
    (the carried values of the next iteration), ``results`` (after the loop:
    the carried values at the end)."""

    def __init__(self, op: scf.ForOp, carried: Sequence = ()):
        self.op = op
        self.iv = V.wrap(op.induction_variable)
        # A carried handle (a pipeline side) is rebound to the iteration's
        # value and stands for itself in `carry`.
        self._handles = [(i, h) for i, h in enumerate(carried) if isinstance(h, Carried)]
        self.carry = [V.wrap(v) for v in op.inner_iter_args]
        for i, h in self._handles:
            h._bind(op.inner_iter_args[i])
            self.carry[i] = h
        self._next: list | None = None

    def next(self, *values: Value | int | float) -> None:
        """Set the carried values of the next iteration (``scf.yield``)."""
        if len(values) != len(self.carry):
            raise ValueError(f"the loop carries {len(self.carry)} values, next() got {len(values)}")
        values = tuple(v._carry_value() if isinstance(v, Carried) else v for v in values)
        types = [a.type for a in self.op.inner_iter_args]
        self._next = [_to_type(v, t) for v, t in zip(values, types)]

    @property
    def results(self) -> list[Value]:
        """The carried values after the last iteration."""
        return [V.wrap(r) for r in self.op.results]

    def _terminate(self) -> None:
        if self._next is None and self.carry:
            if len(self._handles) != len(self.carry):
                raise ValueError("a loop with carried values must call loop.next(...)")
            # Only handles: each carries the value it holds at the end.
            self._next = [h._carry_value() for _, h in self._handles]
        scf.YieldOp(self._next or [])

    def _rebind_after(self) -> None:
        """After the loop, each carried handle holds the loop's result."""
        for i, h in self._handles:
            h._bind(self.op.results[i])


@contextlib.contextmanager
def for_range(lower: IntLike, upper: IntLike, step: IntLike = 1,
              carry: Sequence[Value | int | float] = ()) -> Iterator[Loop]:
    """An ``scf.for`` from `lower` to `upper` (exclusive) by `step`::

        with for_range(0, n, carry=[0]) as loop:     # loop.iv; loop.carry == [phase]
            (phase,) = loop.carry
            ...
            loop.next(phase ^ 1)
        (phase,) = loop.results

    The induction variable is i32 (what GPU loop counters are; an index
    counter lowers to 64-bit arithmetic) unless a bound is a value of
    another integer type (``index`` wins, then the widest). A carried Python
    int starts as an i32 constant. A Python bool is a ``TypeError``.
    """
    lower, upper, step = _bounds(lower, upper, step)
    op = scf.ForOp(lower, upper, step, _carry(carry))
    loop = Loop(op, carry)
    with ir.InsertionPoint(op.body):
        try:
            yield loop
        except BaseException:
            # The body raised: terminate it anyway, so that a caller that
            # handles the error still has a well-formed kernel.
            loop._next = loop._next or list(op.inner_iter_args)
            loop._terminate()
            raise
        loop._terminate()
    loop._rebind_after()


class Range:
    """``for i in range(n):`` / ``range(start, stop, step, carry=[...])``:
    an ``scf.for`` written as a Python loop. The body is built once (it is
    not run per iteration at build time); ``i`` is the induction variable.
    With carried values, read them from ``.carry`` and set the next ones
    with ``.next()``::

        loop = range(n, carry=[0])
        for i in loop:
            (phase,) = loop.carry
            loop.next(phase ^ 1)
        (phase,) = loop.results

    ``break``, ``continue`` and ``return`` cannot leave the body: they are
    Python statements that run while the kernel is built, so ``break`` or
    ``return`` makes the kernel fail when its ``with`` block ends.
    """

    def __init__(self, start: IntLike, stop: IntLike | None = None, step: IntLike = 1, *,
                 carry: Sequence[Value | int | float] = ()):
        if stop is None:
            start, stop = 0, start
        self._args = (start, stop, step)
        self._carry = list(carry)
        self._loop: Loop | None = None

    def __iter__(self) -> Iterator[Value]:
        if self._loop is not None:
            raise RuntimeError("a lang.range is iterated once")
        kernel = building()
        lower, upper, step = _bounds(*self._args)
        op = scf.ForOp(lower, upper, step, _carry(self._carry))
        self._loop = loop = Loop(op, self._carry)
        ip = ir.InsertionPoint(op.body)
        ip.__enter__()
        finished = False
        try:
            yield loop.iv
            finished = True
        finally:
            if not finished:
                # break/return (or an exception) left the body: close the
                # loop so the IR stays well-formed, and make the kernel fail.
                loop._next = loop._next or list(op.inner_iter_args)
                if kernel is not None:
                    kernel.defer_error(
                        "a lang.range loop body was left early (break or return): the body "
                        "is built once, at build time, so Python's break/return cannot end "
                        "the loop when the kernel runs; guard code with if_then instead", op)
            try:
                loop._terminate()
            finally:
                ip.__exit__(None, None, None)
            loop._rebind_after()

    def _built(self) -> Loop:
        if self._loop is None:
            raise RuntimeError("iterate the range first: `for i in loop:`")
        return self._loop

    @property
    def carry(self) -> list[Value]:
        """The carried values in this iteration (inside the body)."""
        return self._built().carry

    def next(self, *values: Value | int | float) -> None:
        """Set the carried values of the next iteration."""
        self._built().next(*values)

    @property
    def results(self) -> list[Value]:
        """The carried values after the loop."""
        return self._built().results


def range(start: IntLike, stop: IntLike | None = None, step: IntLike = 1, *,  # noqa: A001
          carry: Sequence[Value | int | float] = ()) -> Range:
    """Python's ``range`` for kernels: ``for i in range(n):`` builds an
    ``scf.for`` (see :class:`Range`). Bounds follow :func:`for_range`."""
    return Range(start, stop, step, carry=carry)


def unrolled_range(lower: IntLike, upper: IntLike,
                   body: Callable[..., Sequence[Value] | None], *, unroll: int,
                   carry: Sequence[Value | int | float] = ()) -> list[Value]:
    """A loop whose body the frontend copies `unroll` times per trip, then a
    remainder loop for the last ``(upper - lower) % unroll`` iterations.

    ``body(iv, *carry)`` emits one iteration and returns the next carry
    values; the final carry values are returned. LLVM does not runtime-unroll
    loops around the (convergent) NVVM barrier intrinsics; the frontend
    knows that its barrier protocol may be repeated, so it can unroll it.
    """
    if isinstance(unroll, bool) or not isinstance(unroll, int) or unroll < 1:
        raise ValueError(f"unroll must be a positive int, got {unroll!r}")
    lower, upper, _ = _bounds(lower, upper, 1)
    lower, upper = V.wrap(lower), V.wrap(upper)
    trips = arith.DivSIOp(upper - lower, V.as_value(unroll, upper.type)).result
    main_end = lower + V.wrap(trips) * unroll
    with for_range(lower, main_end, unroll, carry) as loop:
        values = loop.carry
        for j in builtins.range(unroll):
            iv = loop.iv + j if j else loop.iv
            values = list(body(iv, *values) or [])
        loop.next(*values)
    with for_range(main_end, upper, 1, loop.results) as rest:
        rest.next(*(body(rest.iv, *rest.carry) or []))
    return rest.results
