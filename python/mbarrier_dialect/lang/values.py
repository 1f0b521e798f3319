"""Turning Python ints into IR values of the type an operand needs."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

MAX_ARRIVE_COUNT = (1 << 20) - 1  # PTX: count in [1, 2^20 - 1]
MAX_TX_COUNT = (1 << 20) - 1  # PTX: tx-count in [0, 2^20 - 1]


def i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def index() -> ir.Type:
    return ir.IndexType.get()


def const(value: int, ty: ir.Type) -> ir.Value:
    return arith.ConstantOp(ty, value).result


def as_value(x, ty: ir.Type) -> ir.Value:
    """An int becomes a constant of `ty`; a Value of another integer or
    index type is cast to `ty`; a Value of `ty` passes through."""
    if isinstance(x, bool):
        return const(int(x), ty)
    if isinstance(x, int):
        return const(x, ty)
    if isinstance(x, ir.Value):
        if x.type == ty:
            return x
        if isinstance(x.type, ir.IndexType) or isinstance(ty, ir.IndexType):
            return arith.IndexCastOp(ty, x).result
        src, dst = ir.IntegerType(x.type).width, ir.IntegerType(ty).width
        if src < dst:
            return arith.ExtUIOp(ty, x).result
        return arith.TruncIOp(ty, x).result
    raise TypeError(f"expected an int or an ir.Value, got {type(x).__name__}")


def as_i32(x) -> ir.Value:
    return as_value(x, i32())


def as_index(x) -> ir.Value:
    return as_value(x, index())


def as_i1(x) -> ir.Value:
    """A predicate: a Python bool or an i1 Value."""
    if isinstance(x, bool):
        return const(int(x), ir.IntegerType.get_signless(1))
    if isinstance(x, ir.Value) and x.type == ir.IntegerType.get_signless(1):
        return x
    raise TypeError("a predicate must be a bool or an i1 ir.Value")


def check_range(x, lo: int, hi: int, what: str) -> None:
    """For an int operand, the same range rule the C++ verifier applies."""
    if isinstance(x, int) and not lo <= x <= hi:
        raise ValueError(f"{what} {x} is out of range [{lo}, {hi}]")
