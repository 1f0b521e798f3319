"""Element types of `lang`: the names a dtype may be given by, their sizes,
the type predicates the operators and loops use, the check that a Python
int fits a type, and the ``arith`` conversions between element types (the
rules are in :mod:`.values`' docstring and docs/lang.md, "Values and
operators"). It builds no :class:`~.values.Value`: that is the layer above."""
from __future__ import annotations

from typing import Union

import numpy as np
from mlir import ir
from mlir.dialects import arith

__all__ = ["DType", "IntLike", "DTYPE_NAMES", "dtype", "dtype_nbytes", "i32", "index",
           "check_fits"]

#: What a dtype may be given as: a name ("i32", "f32", "bf16", "int32",
#: "float32", ...), an ``ir.Type``, or a numpy dtype / scalar type.
DType = Union[str, ir.Type, np.dtype, type]
#: An integer operand: a Python ``int`` (made a constant) or an IR value.
IntLike = Union[int, ir.Value]

# Element-type names: the MLIR spelling and numpy's. Unsigned numpy names map
# to the signless integer of their width (the ops decide signedness).
_INT_NAMES = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
              "int8": 8, "int16": 16, "int32": 32, "int64": 64,
              "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
_FLOAT_NAMES = {"f16": "f16", "float16": "f16", "half": "f16",
                "bf16": "bf16", "bfloat16": "bf16",
                "f32": "f32", "float32": "f32", "f64": "f64", "float64": "f64"}
DTYPE_NAMES = tuple(sorted({*_INT_NAMES, *_FLOAT_NAMES, "index"}))


def dtype(spec: DType) -> ir.Type:
    """The ``ir.Type`` of an element type given by name (``"i32"``,
    ``"f32"``, ``"bf16"``, ``"int32"``, ``"uint64"``, ``"index"``, ...), as an
    ``ir.Type``, or as a numpy dtype (``np.int32``). Needs an active Context."""
    if isinstance(spec, ir.Type):
        return spec
    if isinstance(spec, (np.dtype, type)):
        try:
            spec = np.dtype(spec).name
        except TypeError:
            raise TypeError(f"{spec!r} is not an element type") from None
    if not isinstance(spec, str):
        raise TypeError(f"an element type is a name such as 'i32' or 'f32', an ir.Type or a "
                        f"numpy dtype, got {type(spec).__name__}")
    if spec in _INT_NAMES:
        return ir.IntegerType.get_signless(_INT_NAMES[spec])
    if spec == "index":
        return ir.IndexType.get()
    if spec in _FLOAT_NAMES:
        return {"f16": ir.F16Type, "bf16": ir.BF16Type, "f32": ir.F32Type,
                "f64": ir.F64Type}[_FLOAT_NAMES[spec]].get()
    raise ValueError(f"unknown element type {spec!r}; one of: {', '.join(DTYPE_NAMES)}")


def dtype_nbytes(ty: ir.Type) -> int:
    """Bytes of one element of `ty` (``index`` is 64-bit on NVPTX)."""
    if isinstance(ty, ir.IndexType):
        return 8
    width = _width(ty)
    if width is None:
        raise TypeError(f"{ty} has no element size")
    return max(1, width // 8)


def i32() -> ir.Type:
    """The ``i32`` type."""
    return ir.IntegerType.get_signless(32)


def index() -> ir.Type:
    """The ``index`` type."""
    return ir.IndexType.get()


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


# -- type predicates --------------------------------------------------------

def _is_int(ty: ir.Type) -> bool:
    return isinstance(ty, (ir.IntegerType, ir.IndexType))


def _is_i1(ty: ir.Type) -> bool:
    return isinstance(ty, ir.IntegerType) and ir.IntegerType(ty).width == 1


def _is_float(ty: ir.Type) -> bool:
    return isinstance(ty, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def _width(ty: ir.Type) -> int | None:
    if isinstance(ty, ir.IntegerType):
        return ir.IntegerType(ty).width
    if isinstance(ty, ir.IndexType):
        return 64
    if isinstance(ty, (ir.F16Type, ir.BF16Type)):
        return 16
    if isinstance(ty, ir.F32Type):
        return 32
    if isinstance(ty, ir.F64Type):
        return 64
    return None


_BOOL_MESSAGE = ("a Python bool would decide at build time what code is emitted; "
                 "use an i1 value (a comparison such as `rank == 0`), or spell a "
                 "constant predicate lang.const(True)")


def _refuse_bool(x, what: str) -> None:
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} is the Python bool {bool(x)}: {_BOOL_MESSAGE}")


def check_fits(x: int, ty: ir.Type) -> None:
    """A ``ValueError`` unless the int `x` fits the integer type `ty` (signed)."""
    width = _width(ty)
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if not lo <= x <= hi:
        raise ValueError(f"the int {x} does not fit in {ty} (signed: {lo} to {hi})")


# -- conversions between element types ---------------------------------------

def _convert(v: ir.Value, ty: ir.Type) -> ir.Value:
    """`v` converted to `ty` under the rules of :mod:`.values`' docstring
    (the ``arith`` cast ops; an ``i1`` is zero-extended, other integers
    sign-extended)."""
    src = v.type
    if src == ty:
        return v
    if _is_int(src) and _is_int(ty):
        if isinstance(src, ir.IndexType) or isinstance(ty, ir.IndexType):
            if _is_i1(src):
                return arith.IndexCastUIOp(ty, v).result
            return arith.IndexCastOp(ty, v).result
        sw, dw = _width(src), _width(ty)
        if dw == 1:
            raise TypeError(f"a {src} value does not become an i1 by conversion: compare it, "
                            "e.g. `x != 0`")
        if sw < dw:
            op = arith.ExtUIOp if sw == 1 else arith.ExtSIOp
            return op(ty, v).result
        return arith.TruncIOp(ty, v).result
    if _is_float(src) and _is_float(ty):
        if _width(src) < _width(ty):
            return arith.ExtFOp(ty, v).result
        if _width(src) > _width(ty):
            return arith.TruncFOp(ty, v).result
        raise TypeError(f"no conversion between {src} and {ty}")  # f16 <-> bf16
    if _is_int(src) and _is_float(ty):
        if isinstance(src, ir.IndexType):
            v = arith.IndexCastOp(ir.IntegerType.get_signless(64), v).result
        op = arith.UIToFPOp if _is_i1(src) else arith.SIToFPOp
        return op(ty, v).result
    if _is_float(src) and _is_int(ty) and not _is_i1(ty):
        if isinstance(ty, ir.IndexType):
            return arith.IndexCastOp(ty, arith.FPToSIOp(ir.IntegerType.get_signless(64), v).result).result
        return arith.FPToSIOp(ty, v).result
    raise TypeError(f"no conversion from {src} to {ty}")
