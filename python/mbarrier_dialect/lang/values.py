"""Values of `lang`: IR values that take Python operators, element types by
name, and the conversion of Python numbers to IR constants.

Every value `lang` returns (ranks, thread ids, loop induction variables and
carried values, loads, kernel parameters, operator results) is a
:class:`Value`: an ``ir.Value`` (so upstream op builders accept it) whose
Python operators build ``arith`` ops::

    rank = k.cluster_rank()            # i32
    peer = (rank + 1) % 4              # arith.addi, then a floor modulo
    with if_then(rank == 0): ...       # arith.cmpi eq: an i1 value

The integer rules (see docs/lang.md, "Values and operators"):

* Integer values are **signed**, as CUDA's ``int``: ``<``, ``<=``, ``>``,
  ``>=`` compare signed; ``>>`` is the arithmetic shift (``shr.s32``).
* ``//`` and ``%`` are Python's: ``//`` rounds toward negative infinity and
  ``a % b`` has the sign of ``b`` (so ``(rank - 1) % 4`` is 3 for rank 0).
  C's truncating forms are ``arith.DivSIOp``/``arith.RemSIOp``.
* ``+ - * <<`` wrap modulo 2**width (two's complement), as PTX ``add.s32``
  does. A shift count must be in [0, width): a constant count outside it is a
  ``ValueError``, a run-time one is undefined (LLVM poison).
* A Python ``int`` operand becomes a constant of the other operand's type
  and must fit it (signed range), else ``ValueError``.
* Two values of different integer types: ``index`` wins over ``iN`` (the
  ``iN`` one is sign-extended with ``arith.index_cast``), else the wider
  ``iN`` wins (the narrower is sign-extended). ``i1`` (a predicate) mixes
  with nothing and takes only ``& | ^ ~ == !=``; ``.to("i32")`` makes it 0 or 1.
* Floating-point values take ``+ - * /``, unary ``-`` and the comparisons
  (ordered; ``!=`` is unordered-or-not-equal, as Python's ``nan != nan``).
  A float never mixes with an integer implicitly: convert with ``.to()``.
* A Python ``bool`` is never an operand, a predicate or a loop bound: it
  would decide at build time what code is emitted. ``TypeError`` says so;
  a constant predicate is spelled ``const(True)``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith

from .dtypes import (DTYPE_NAMES, DType, IntLike, _convert, _i1, _is_float, _is_i1, _is_int,  # noqa: F401
                     _refuse_bool, _width, check_fits, dtype, dtype_nbytes, i32, index)

__all__ = ["Value", "DType", "IntLike", "const", "dtype", "dtype_nbytes", "wrap", "select",
           "as_value", "as_i32", "as_index", "as_i1", "i32", "index"]


# -- constants ----------------------------------------------------------------

def _int_constant(x: int, ty: ir.Type) -> "Value":
    check_fits(x, ty)
    return Value(arith.ConstantOp(ty, x).result)


def const(x: int | float | bool, ty: DType | None = None) -> "Value":
    """An explicit constant: ``const(True)`` is an ``i1`` (the way to spell
    a constant predicate), an int is an ``i32`` and a float an ``f32``
    unless `ty` names another type."""
    if isinstance(x, (bool, np.bool_)):
        if ty is not None and not _is_i1(dtype(ty)):
            raise TypeError(f"a bool constant is an i1, not {ty}")
        return Value(arith.ConstantOp(_i1(), int(bool(x))).result)
    if isinstance(x, (int, np.integer)):
        t = dtype(ty if ty is not None else "i32")
        if _is_float(t):
            return Value(arith.ConstantOp(t, float(x)).result)
        if _is_i1(t):
            raise TypeError("an i1 constant is spelled const(True) or const(False)")
        return _int_constant(int(x), t)
    if isinstance(x, (float, np.floating)):
        t = dtype(ty if ty is not None else "f32")
        if not _is_float(t):
            raise TypeError(f"the float {x} cannot be a constant of {t}")
        return Value(arith.ConstantOp(t, float(x)).result)
    raise TypeError(f"const() takes a bool, int or float, got {type(x).__name__}")


def wrap(x: ir.Value | ir.OpView | ir.Operation) -> "Value":
    """`x` (an ``ir.Value``, or an op with one result) as a :class:`Value`
    that takes Python operators; a Value is returned as it is."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (ir.OpView, ir.Operation)):
        x = x.result
    if not isinstance(x, ir.Value):
        raise TypeError(f"expected an ir.Value, got {type(x).__name__}")
    return Value(x)


# -- conversions --------------------------------------------------------------

def as_value(x: IntLike, ty: ir.Type) -> "Value":
    """An operand of integer type `ty`: an int becomes a constant of `ty`
    (it must fit), an integer Value of another width or ``index`` is
    converted (sign-extended or truncated). A bool, an ``i1`` value or a
    float is refused with ``TypeError``."""
    _refuse_bool(x, "the operand")
    if isinstance(x, (int, np.integer)):
        return _int_constant(int(x), ty)
    if isinstance(x, ir.Value):
        if x.type != ty:
            if _is_i1(x.type) and not _is_i1(ty):
                raise TypeError(f"an i1 value cannot be a {ty} operand: convert it with "
                                f".to('{ty}') (0 or 1)")
            if not _is_int(x.type):
                raise TypeError(f"a {x.type} value cannot be a {ty} operand")
        return wrap(_convert(x, ty))
    raise TypeError(f"expected an int or an ir.Value, got {type(x).__name__}")


def as_i32(x: IntLike) -> "Value":
    """`x` as an ``i32`` operand (see :func:`as_value`)."""
    return as_value(x, i32())


def as_index(x: IntLike) -> "Value":
    """`x` as an ``index`` operand (see :func:`as_value`)."""
    return as_value(x, index())


def as_i1(x: ir.Value) -> "Value":
    """A predicate: an ``i1`` value. A Python bool is a ``TypeError`` (it
    would decide at build time whether code runs); spell a constant
    predicate ``const(True)``."""
    _refuse_bool(x, "the predicate")
    if isinstance(x, ir.Value) and _is_i1(x.type):
        return wrap(x)
    got = f"a {x.type} value" if isinstance(x, ir.Value) else f"a {type(x).__name__}"
    raise TypeError(f"a predicate must be an i1 value (a comparison such as `rank == 0`), "
                    f"got {got}")


def select(cond: ir.Value, if_true: "Value | int | float", if_false: "Value | int | float") -> "Value":
    """``arith.select``: `if_true` where the i1 `cond` holds, else
    `if_false` (both converted to one type as a binary operator would)."""
    cond = as_i1(cond)
    a, b = _operands(if_true, if_false, "select")
    return Value(arith.SelectOp(cond, a, b).result)


# -- operators ----------------------------------------------------------------

def _operand_type(x, other_type: ir.Type | None, what: str) -> ir.Type | None:
    """The IR type of `x` if it is a value, else None (a Python number)."""
    _refuse_bool(x, f"an operand of {what}")
    if isinstance(x, ir.Value):
        return x.type
    if isinstance(x, (int, float, np.integer, np.floating)):
        return None
    raise TypeError(f"unsupported operand for {what}: {type(x).__name__}")


def _common_type(ta: ir.Type, tb: ir.Type, what: str) -> ir.Type:
    if ta == tb:
        return ta
    if _is_int(ta) and _is_int(tb):
        if _is_i1(ta) or _is_i1(tb):
            raise TypeError(f"{what} of {ta} and {tb}: an i1 mixes only with i1; convert "
                            "it with .to('i32') (0 or 1)")
        if isinstance(ta, ir.IndexType) or isinstance(tb, ir.IndexType):
            return index()
        return ta if _width(ta) > _width(tb) else tb
    if _is_float(ta) and _is_float(tb) and _width(ta) != _width(tb):
        return ta if _width(ta) > _width(tb) else tb
    raise TypeError(f"{what} of {ta} and {tb}: convert one with .to() first")


def _operands(a, b, what: str) -> tuple[ir.Value, ir.Value]:
    """`a` and `b` as IR values of one type (one of them may be a number)."""
    ta, tb = _operand_type(a, None, what), _operand_type(b, None, what)
    if ta is None and tb is None:
        raise TypeError(f"{what} needs at least one IR value")
    if ta is None or tb is None:
        ty = ta if ta is not None else tb
        number = a if ta is None else b
        if _is_i1(ty):
            raise TypeError(f"{what} of an i1 value and the number {number!r}: an i1 mixes "
                            "only with i1 values (spell a constant predicate const(True))")
        if isinstance(number, (float, np.floating)) and not _is_float(ty):
            raise TypeError(f"{what} of a {ty} value and the float {number!r}: convert the "
                            "value with .to('f32') first")
        if not (_is_int(ty) or _is_float(ty)):
            raise TypeError(f"{what} is not defined for {ty} values")
        c = const(number, ty)
        return (c, b) if ta is None else (a, c)
    ty = _common_type(ta, tb, what)
    return _convert(a, ty), _convert(b, ty)


def _kind(ty: ir.Type) -> str:
    if _is_i1(ty):
        return "i1"
    if _is_int(ty):
        return "int"
    if _is_float(ty):
        return "float"
    return "other"


_CMP_INT = {"==": "eq", "!=": "ne", "<": "slt", "<=": "sle", ">": "sgt", ">=": "sge"}
_CMP_FLOAT = {"==": "oeq", "!=": "une", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}


def _floordiv(a: ir.Value, b: ir.Value) -> ir.Value:
    # Python's //: the truncated quotient, one less where the remainder is
    # non-zero and its sign differs from the divisor's.
    q = arith.DivSIOp(a, b).result
    r = arith.RemSIOp(a, b).result
    return arith.SubIOp(q, _needs_floor_fix(r, b)).result


def _needs_floor_fix(r: ir.Value, b: ir.Value) -> ir.Value:
    """1 (of r's type) where r != 0 and sign(r) != sign(b), else 0."""
    zero = arith.ConstantOp(r.type, 0).result
    nonzero = arith.CmpIOp(arith.CmpIPredicate.ne, r, zero).result
    signs = arith.CmpIOp(arith.CmpIPredicate.slt, arith.XOrIOp(r, b).result, zero).result
    fix = arith.AndIOp(nonzero, signs).result
    if isinstance(r.type, ir.IndexType):
        return arith.IndexCastUIOp(r.type, fix).result
    return arith.ExtUIOp(r.type, fix).result


def _floormod(a: ir.Value, b: ir.Value) -> ir.Value:
    # Python's %: the truncated remainder, plus b where it is non-zero and
    # its sign differs from the divisor's.
    r = arith.RemSIOp(a, b).result
    fix = _needs_floor_fix(r, b)
    return arith.AddIOp(r, arith.MulIOp(fix, b).result).result


def _check_shift(count, ty: ir.Type) -> None:
    if isinstance(count, (int, np.integer)) and not isinstance(count, bool):
        if not 0 <= count < _width(ty):
            raise ValueError(f"shift count {count} is out of range for {ty} (0 to {_width(ty) - 1})")


# name -> {kind: builder(a, b) -> ir.Value}
_BINARY: dict[str, dict[str, Callable[[ir.Value, ir.Value], ir.Value]]] = {
    "+": {"int": lambda a, b: arith.AddIOp(a, b).result, "float": lambda a, b: arith.AddFOp(a, b).result},
    "-": {"int": lambda a, b: arith.SubIOp(a, b).result, "float": lambda a, b: arith.SubFOp(a, b).result},
    "*": {"int": lambda a, b: arith.MulIOp(a, b).result, "float": lambda a, b: arith.MulFOp(a, b).result},
    "/": {"float": lambda a, b: arith.DivFOp(a, b).result},
    "//": {"int": _floordiv},
    "%": {"int": _floormod},
    "&": {"int": lambda a, b: arith.AndIOp(a, b).result, "i1": lambda a, b: arith.AndIOp(a, b).result},
    "|": {"int": lambda a, b: arith.OrIOp(a, b).result, "i1": lambda a, b: arith.OrIOp(a, b).result},
    "^": {"int": lambda a, b: arith.XOrIOp(a, b).result, "i1": lambda a, b: arith.XOrIOp(a, b).result},
    "<<": {"int": lambda a, b: arith.ShLIOp(a, b).result},
    ">>": {"int": lambda a, b: arith.ShRSIOp(a, b).result},
}

_HINTS = {
    ("/", "int"): "integer division is // (Python's floor division)",
    ("//", "float"): "floating-point division is /",
}


def _binary(name: str, a, b) -> "Value":
    what = f"`{name}`"
    if name in ("<<", ">>"):
        _check_shift(b, a.type if isinstance(a, ir.Value) else b.type)
    x, y = _operands(a, b, what)
    kind = _kind(x.type)
    if name in _CMP_INT:
        if kind == "float":
            pred = getattr(arith.CmpFPredicate, _CMP_FLOAT[name].upper())
            return Value(arith.CmpFOp(pred, x, y).result)
        if kind == "i1" and name not in ("==", "!="):
            raise TypeError(f"{what} is not defined for i1 values (only == and !=)")
        if kind not in ("int", "i1"):
            raise TypeError(f"{what} is not defined for {x.type} values")
        return Value(arith.CmpIOp(getattr(arith.CmpIPredicate, _CMP_INT[name]), x, y).result)
    builders = _BINARY[name]
    if kind not in builders:
        hint = _HINTS.get((name, kind))
        only = "an i1 value takes only & | ^ ~ == !=" if kind == "i1" else hint
        raise TypeError(f"{what} is not defined for {x.type} values" + (f": {only}" if only else ""))
    return Value(builders[kind](x, y))


class Value(ir.Value):
    """An ``ir.Value`` whose Python operators build ``arith`` ops.

    Integer and ``index`` values: ``+ - * // % & | ^ << >>``, unary ``-``
    and ``~``, and ``== != < <= > >=`` (signed) yielding ``i1`` values.
    ``i1`` values: ``& | ^ ~ == !=``. Float values: ``+ - * /``, unary
    ``-`` and the comparisons. A Python int or float operand becomes a
    constant of the value's type. The rules are in this module's docstring.

    A Value has no Python truth value: ``if v:``, ``not v``, ``v and w``
    raise ``TypeError`` (use ``if_then``/``if_else``/``select``), and so do
    ``int(v)`` and ``range(v)`` (use ``for_range``/``range``). Since ``==``
    builds a comparison, test identity with ``is``; a Value is hashable (by
    the IR value) but is no dict key or ``in`` operand.
    """

    __hash__ = ir.Value.__hash__

    def __init__(self, value: ir.Value):
        super().__init__(value)

    # conversion
    def to(self, ty: DType) -> "Value":
        """This value converted to `ty`: integers are sign-extended (an
        ``i1`` zero-extended: 0 or 1) or truncated; ints and floats convert
        by value (``sitofp``/``fptosi``); floats extend or round."""
        return wrap(_convert(self, dtype(ty)))

    @property
    def dtype(self) -> ir.Type:
        """The value's type (``self.type``)."""
        return self.type

    # no build-time truth
    def __bool__(self):
        raise TypeError(f"this {self.type} IR value has no Python truth value: it is only known "
                        "when the kernel runs. Branch with if_then/if_else, pick a value with "
                        "select(), combine predicates with & | ~ (not `and`/`or`/`not`)")

    def __index__(self):
        raise TypeError(f"this {self.type} IR value is not a Python int: it is only known when "
                        "the kernel runs (loop with for_range/range, not Python's range)")

    __int__ = __index__

    def __float__(self):
        raise TypeError(f"this {self.type} IR value is not a Python float: it is only known when the kernel runs")

    # arithmetic
    def __add__(self, o): return _binary("+", self, o)
    def __radd__(self, o): return _binary("+", o, self)
    def __sub__(self, o): return _binary("-", self, o)
    def __rsub__(self, o): return _binary("-", o, self)
    def __mul__(self, o): return _binary("*", self, o)
    def __rmul__(self, o): return _binary("*", o, self)
    def __truediv__(self, o): return _binary("/", self, o)
    def __rtruediv__(self, o): return _binary("/", o, self)
    def __floordiv__(self, o): return _binary("//", self, o)
    def __rfloordiv__(self, o): return _binary("//", o, self)
    def __mod__(self, o): return _binary("%", self, o)
    def __rmod__(self, o): return _binary("%", o, self)
    def __and__(self, o): return _binary("&", self, o)
    def __rand__(self, o): return _binary("&", o, self)
    def __or__(self, o): return _binary("|", self, o)
    def __ror__(self, o): return _binary("|", o, self)
    def __xor__(self, o): return _binary("^", self, o)
    def __rxor__(self, o): return _binary("^", o, self)
    def __lshift__(self, o): return _binary("<<", self, o)
    def __rlshift__(self, o): return _binary("<<", o, self)
    def __rshift__(self, o): return _binary(">>", self, o)
    def __rrshift__(self, o): return _binary(">>", o, self)

    # comparisons (i1 results)
    def __eq__(self, o): return _binary("==", self, o)  # type: ignore[override]
    def __ne__(self, o): return _binary("!=", self, o)  # type: ignore[override]
    def __lt__(self, o): return _binary("<", self, o)
    def __le__(self, o): return _binary("<=", self, o)
    def __gt__(self, o): return _binary(">", self, o)
    def __ge__(self, o): return _binary(">=", self, o)

    # unary
    def __neg__(self) -> "Value":
        kind = _kind(self.type)
        if kind == "float":
            return Value(arith.NegFOp(self).result)
        if kind == "int":
            return _binary("-", 0, self)
        raise TypeError(f"unary - is not defined for {self.type} values")

    def __pos__(self) -> "Value":
        if _kind(self.type) not in ("int", "float"):
            raise TypeError(f"unary + is not defined for {self.type} values")
        return self

    def __invert__(self) -> "Value":
        kind = _kind(self.type)
        if kind == "i1":
            return Value(arith.XOrIOp(self, arith.ConstantOp(self.type, 1).result).result)
        if kind == "int":
            return Value(arith.XOrIOp(self, arith.ConstantOp(self.type, -1).result).result)
        raise TypeError(f"~ is not defined for {self.type} values")

    def __repr__(self) -> str:
        return f"lang.Value({ir.Value.__str__(self)})"
