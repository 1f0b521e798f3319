"""Named barriers: the sixteen hardware barriers of a CTA (``bar.sync`` /
``bar.arrive`` / ``bar.red``) under a name, for the warps of one role to
meet, or for one group to hand a turn to another (FA3's warp-scheduler
ping-pong, CUTLASS's epilogue barrier)::

    turn = [k.named_barrier(threads=256), k.named_barrier(threads=256)]
    with if_then(wg == 1):
        turn[0].arrive()          # WG1 starts
    ...
    turn[me].sync()               # wait my turn (256 = both warp groups)
    ...                           # the GEMM
    turn[other].arrive()          # hand the turn over

Each object is an ``mbarrier.named_barrier`` declaration in the kernel's
``gpu.module``: with ``id=None`` the compiler assigns the hardware id
(``mbarrier-allocate-named-barriers``, 0 reserved), with ``id=N`` it is N.
The thread count (a multiple of 32, at most the block) is the object's; the
C++ verifier checks it and the id, and the checker the protocol."""
from __future__ import annotations

from mlir import ir

from ..dialects import mbarrier
from . import values as V
from .builder import Builder, verified
from .values import Value

__all__ = ["NamedBarrier", "named_barrier"]

_RED_KINDS = {"popc": 0, "and": 1, "or": 2}


def _refuse_bool_number(name: str, x) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{name} must be an int, got {type(x).__name__}")
    return x


class NamedBarrier:
    """One named barrier of the kernel being built (see the module's
    docstring). `threads` is the count its ops use; `symbol` the declaration's
    name; `id` the explicit hardware id or None."""

    def __init__(self, kernel: Builder, threads: int, id: int | None = None,
                 name: str | None = None):
        self.threads = _refuse_bool_number("threads", threads)
        self.id = None if id is None else _refuse_bool_number("id", id)
        self.symbol = name or kernel.unique_symbol("named_barrier")
        attrs = {"sym_name": ir.StringAttr.get(self.symbol)}
        if self.id is not None:
            attrs["id"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), self.id)
        with kernel.module_insertion_point():
            op = ir.Operation.create("mbarrier.named_barrier", attributes=attrs)
        verified(op)

    def _attrs(self, threads: int | None) -> tuple[ir.FlatSymbolRefAttr, ir.IntegerAttr]:
        n = self.threads if threads is None else _refuse_bool_number("threads", threads)
        return (ir.FlatSymbolRefAttr.get(self.symbol),
                ir.IntegerAttr.get(ir.IntegerType.get_signless(32), n))

    def sync(self, threads: int | None = None) -> None:
        """``bar.sync id, threads``: arrive and wait until `threads` (default:
        the object's) threads have arrived."""
        verified(mbarrier.BarSyncOp(*self._attrs(threads)))

    def arrive(self, threads: int | None = None) -> None:
        """``bar.arrive id, threads``: count towards the barrier, no wait."""
        verified(mbarrier.BarArriveOp(*self._attrs(threads)))

    def _red(self, kind: str, pred: ir.Value, result: ir.Type,
             threads: int | None) -> Value:
        pred = V.as_i1(pred)
        kind_attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), _RED_KINDS[kind])
        symbol, count = self._attrs(threads)
        op = verified(mbarrier.BarRedOp(result, kind_attr, symbol, count, pred))
        return V.wrap(op.result)

    def red_popc(self, pred: ir.Value, threads: int | None = None) -> Value:
        """``bar.red.popc.u32``: sync, and the number of the threads where
        the i1 `pred` holds (an i32)."""
        return self._red("popc", pred, ir.IntegerType.get_signless(32), threads)

    def red_and(self, pred: ir.Value, threads: int | None = None) -> Value:
        """``bar.red.and.pred``: sync, and whether `pred` holds in all of
        the threads (an i1)."""
        return self._red("and", pred, ir.IntegerType.get_signless(1), threads)

    def red_or(self, pred: ir.Value, threads: int | None = None) -> Value:
        """``bar.red.or.pred``: sync, and whether `pred` holds in any of the
        threads (an i1)."""
        return self._red("or", pred, ir.IntegerType.get_signless(1), threads)


def named_barrier(kernel: Builder, threads: int, id: int | None = None,
                  name: str | None = None) -> NamedBarrier:
    """A new :class:`NamedBarrier` of `kernel`."""
    return NamedBarrier(kernel, threads, id, name)
