"""OrderedSequence: groups of threads that take turns in order (CUTLASS's
``OrderedSequenceBarrier``), building the ``mbarrier.seq.*`` ops
(docs/pipelines.md, "Ordered sequences")::

    order = OrderedSequence(pool, depth=2, groups=2, arrivals=128)
    pool.commit()
    k.prologue(sequences=[order])             # seq.init, fence, barrier

    me = order.start(warpgroup)               # this group's state
    for t in lang.range(tiles, carry=[me]):   # the state is carried
        turn = me.wait()                      # stage 0: the mainloop, in order
        ... MMAs ...
        turn.arrive()                         # the next group's turn
        turn = me.wait()                      # stage 1: the epilogue, in order
        ...
        turn.arrive()

Group 0 goes first at every stage; each turn is handed to group
``(g + 1) % groups`` by ``arrive()``. The counts and phases are the IR's;
the C++ verifier checks that each turn is arrived exactly once and each
state waited on once, reported at the caller's line.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import mbarrier
from . import values as V
from .barriers import MBarrier
from .builder import check_same_kernel, make_type, verified
from .control import Carried
from .smem import SmemPool
from .values import IntLike

__all__ = ["OrderedSequence", "SequenceState", "Turn"]


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is an int, got {type(value).__name__}")
    return value


class OrderedSequence:
    """`groups` groups that take turns at each of `depth` stages
    (``!mbarrier.ordered_seq``), its `depth` x `groups` barriers taken
    from a shared-memory pool. `arrivals`: the arrivals that hand a turn on
    (every thread of a 128-thread warp group: 128; one elected lane per
    warp: 4, with ``arrive(pred=...)``)."""

    def __init__(self, pool: SmemPool, depth: int, groups: int, *, arrivals: int = 1):
        depth = _count(depth, "depth")
        groups = _count(groups, "groups")
        arrivals = _count(arrivals, "arrivals")
        text = f"!mbarrier.ordered_seq<{depth}, {groups}, arrivals = {arrivals}>"
        with pool.kernel.context:
            self.type = make_type(lambda: ir.Type.parse(text))
        self.depth, self.groups, self.arrivals = depth, groups, arrivals
        self._barriers = MBarrier(pool, depth * groups)
        self._value: ir.Value | None = None
        pool.on_commit(self._create)

    def _create(self) -> None:
        self._value = verified(mbarrier.SeqCreateOp(self.type, self._barriers.value)).result

    @property
    def value(self) -> ir.Value:
        """The ``!mbarrier.ordered_seq`` SSA value."""
        check_same_kernel(self._barriers._kernel, "this OrderedSequence")
        if self._value is None:
            raise ValueError("the sequence's shared-memory pool is not committed yet: call "
                             "pool.commit()")
        return self._value

    def init(self) -> None:
        """``mbarrier.seq.init`` by the calling thread (``k.prologue(
        sequences=[...])`` guards it, fences it and synchronizes)."""
        verified(mbarrier.SeqInitOp(self.value))

    def start(self, group: IntLike) -> "SequenceState":
        """The state of group `group` (an int or an i32 value, 0 to
        ``groups - 1``) before its first turn."""
        V._refuse_bool(group, "the group")
        op = verified(mbarrier.SeqStartOp(self.value, V.as_i32(group)))
        return SequenceState(self, op.result)


class SequenceState(Carried):
    """One group's position in an ordered sequence: ``wait()`` takes its
    turn at the next stage. Carry it through loops:
    ``lang.range(n, carry=[state])``."""

    def __init__(self, seq: OrderedSequence, state: ir.Value):
        self.seq = seq
        self.state = state

    def _carry_value(self) -> ir.Value:
        return self.state

    def _bind(self, value: ir.Value) -> None:
        self.state = value

    def wait(self) -> "Turn":
        """Wait until it is this group's turn at the state's stage; advances
        the state. The :class:`Turn` is arrived exactly once."""
        # Not verified on its own: the turn's arrive comes later; the
        # kernel's verification at its end checks the pair.
        op = mbarrier.SeqWaitOp(self.seq.value, self.state)
        self.state = op.next
        return Turn(self.seq, op.turn)


class Turn(Carried):
    """A turn this group holds: ``arrive()`` hands it to the next group."""

    def __init__(self, seq: OrderedSequence, turn: ir.Value):
        self.seq = seq
        self.value = turn

    def _carry_value(self) -> ir.Value:
        return self.value

    def _bind(self, value: ir.Value) -> None:
        self.value = value

    def arrive(self, *, pred: ir.Value | None = None) -> None:
        """``mbarrier.seq.arrive``: this thread's arrival on the next
        group's barrier of the stage (only where the i1 `pred` holds)."""
        verified(mbarrier.SeqArriveOp(self.seq.value, self.value,
                                      pred=None if pred is None else V.as_i1(pred)))
