"""MBarrier, TMABar, TCGen05Bar: barrier objects in a frontend's shape.

They state intent and emit `mbarrier` ops at the current insertion point.
Misuse raises ValueError at once with the verifier's wording; the C++
verifier holds every rule again for IR built any other way.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ..dialects import mbarrier
from ..dialects.mbarrier import Semantics
from . import values as V
from .kernel import current_kernel, if_then


def _check_sem(sem, allowed, instruction: str) -> None:
    """`sem` must be a form the instruction has (the verifier's rule)."""
    if sem is not None and Semantics(sem) not in allowed:
        names = " or ".join(a.name for a in allowed)
        raise ValueError(f"sem {Semantics(sem).name} cannot be expressed by {instruction}, "
                         f"which is {names}")


_ARRIVE_SEMS = (Semantics.release, Semantics.relaxed)
_WAIT_SEMS = (Semantics.acquire, Semantics.relaxed)


def _check_phase(phase) -> None:
    if isinstance(phase, int) and phase not in (0, 1):
        raise ValueError(f"phase must be 0 or 1, got {phase}")


class MBarrier:
    """`depth` mbarrier objects taken from a shared-memory pool.

    `phase_offset` (0 or 1) is XOR-ed into every wait's phase. `leader` is
    the i1 that selects the thread that initializes (default: thread rank 0).
    """

    _kind = "MBarrier"

    def __init__(self, pool, depth: int, phase_offset: int = 0, leader=None):
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"an mbarrier group needs at least one barrier, got depth {depth!r}")
        if phase_offset not in (0, 1):
            raise ValueError(f"phase_offset must be 0 or 1, got {phase_offset!r}")
        self.depth = depth
        self.phase_offset = phase_offset
        self.leader = leader
        self._remote_view: ir.Value | None = None  # set on remote views only
        self._group: ir.Value | None = None
        self._slot = pool.alloc((depth,), "uint64", align=8)
        pool.on_commit(self._make_group)

    def _make_group(self) -> None:
        self._group = mbarrier.ViewOp(mbarrier.GroupType.get(self.depth), self._slot.ptr).result

    # -- what the object stands for ------------------------------------------
    @property
    def is_remote(self) -> bool:
        return self._remote_view is not None

    @property
    def value(self) -> ir.Value:
        """The `!mbarrier.group` (or `!mbarrier.remote`) SSA value."""
        if self._remote_view is not None:
            return self._remote_view
        if self._group is None:
            raise ValueError("the barrier's shared-memory pool is not committed yet: call pool.commit()")
        return self._group

    def _reject_remote(self, action: str) -> None:
        if self.is_remote:
            raise ValueError(
                f"{self._kind}.remote_view(): a barrier cannot be {action} through a remote view; "
                "only the CTA that owns it can"
            )

    def _stage(self, stage) -> ir.Value:
        if isinstance(stage, int) and not 0 <= stage < self.depth:
            raise ValueError(
                f"barrier index {stage} is out of range for a barrier of depth {self.depth}"
            )
        return V.as_index(stage)

    # -- operations ----------------------------------------------------------
    def init(self, count) -> None:
        """The leader initializes every barrier with arrival count `count`."""
        self._reject_remote("initialized")
        V.check_range(count, 1, V.MAX_ARRIVE_COUNT, "arrival count")
        leader = self.leader if self.leader is not None else current_kernel().is_thread(0)
        with if_then(leader):
            count = V.as_i32(count)
            for i in range(self.depth):
                mbarrier.InitOp(self.value, V.as_index(i), count)

    def _check_wait(self, phase, sem) -> None:
        self._reject_remote("waited on")
        _check_phase(phase)
        _check_sem(sem, _WAIT_SEMS, "an mbarrier wait")

    def wait(self, stage, phase, *, sem=None, scope=None) -> None:
        """Block until the phase with parity `phase ^ phase_offset` completed."""
        self._check_wait(phase, sem)
        mbarrier.WaitOp(self.value, self._stage(stage), V.as_i32(phase),
                        phase_offset=self.phase_offset or None, sem=sem, scope=scope)

    def try_wait(self, stage, phase, *, sem=None, scope=None) -> ir.Value:
        """One potentially blocking test of the phase: an i1."""
        self._check_wait(phase, sem)
        return mbarrier.TryWaitOp(self.value, self._stage(stage), V.as_i32(phase),
                                  phase_offset=self.phase_offset or None,
                                  sem=sem, scope=scope).result

    def test_wait(self, stage, phase, *, sem=None, scope=None) -> ir.Value:
        """A non-blocking test of the phase: an i1."""
        self._check_wait(phase, sem)
        return mbarrier.TestWaitOp(self.value, self._stage(stage), V.as_i32(phase),
                                   phase_offset=self.phase_offset or None,
                                   sem=sem, scope=scope).result

    def _target(self, cta_id):
        """The cta_id operand: the view's own rank wins, a second one is an error."""
        if self.is_remote and cta_id is not None:
            raise ValueError(f"{self._kind}.remote_view().arrive() cannot also specify cta_id")
        if cta_id is None:
            return None
        current_kernel().check_cta_rank(cta_id)
        return V.as_i32(cta_id)

    def arrive(self, stage, cta_id=None, pred=None, count=None, *, sem=None, scope=None) -> None:
        """Arrive locally; on CTA `cta_id`'s barrier (cluster form); or, on a
        remote view, on the view's CTA (cluster form)."""
        target = self._target(cta_id)
        V.check_range(count, 1, V.MAX_ARRIVE_COUNT, "arrival count")
        _check_sem(sem, _ARRIVE_SEMS, "an mbarrier arrive")
        mbarrier.ArriveOp(self.value, self._stage(stage),
                          count=None if count is None else V.as_i32(count),
                          cta_id=target, pred=None if pred is None else V.as_i1(pred),
                          sem=sem, scope=scope)

    def remote_view(self, rank) -> "MBarrier":
        """This barrier as owned by CTA `rank` of the cluster: arrive-only."""
        if self.is_remote:
            raise ValueError(f"{self._kind}.remote_view() cannot be applied to a remote view")
        current_kernel().check_cta_rank(rank)
        if isinstance(rank, int):
            view = mbarrier.RemoteViewOp(self.value, cta_rank=rank).result
        else:
            view = mbarrier.RemoteViewOp(self.value, rank=V.as_i32(rank)).result
        remote = object.__new__(type(self))
        remote.__dict__.update(self.__dict__)
        remote._remote_view = view
        return remote

    def ptr_to(self, stage) -> ir.Value:
        """`!llvm.ptr<3>` of barrier `stage`, or `!llvm.ptr<7>` through a view."""
        space = 7 if self.is_remote else 3
        return mbarrier.PtrOp(ir.Type.parse(f"!llvm.ptr<{space}>"), self.value,
                              self._stage(stage)).result


class TMABar(MBarrier):
    """A barrier that bulk copies (TMA) complete: arrivals may carry tx bytes."""

    _kind = "TMABar"

    def arrive(self, stage, tx_count=None, cta_id=None, pred=None, count=None, *,
               sem=None, scope=None) -> None:
        """With `tx_count`: arrive.expect_tx (its arrival counts `count`,
        default 1); without: a plain arrive."""
        if tx_count is None:
            return super().arrive(stage, cta_id=cta_id, pred=pred, count=count,
                                  sem=sem, scope=scope)
        target = self._target(cta_id)
        V.check_range(tx_count, 0, V.MAX_TX_COUNT, "tx byte count")
        V.check_range(count, 1, V.MAX_ARRIVE_COUNT, "arrival count")
        _check_sem(sem, _ARRIVE_SEMS, "an mbarrier arrive")
        mbarrier.ArriveExpectTxOp(self.value, self._stage(stage), V.as_i32(tx_count),
                                  count=None if count is None else V.as_i32(count),
                                  cta_id=target,
                                  pred=None if pred is None else V.as_i1(pred),
                                  sem=sem, scope=scope)

    def expect_tx(self, stage, tx_count) -> None:
        V.check_range(tx_count, 0, V.MAX_TX_COUNT, "tx byte count")
        mbarrier.ExpectTxOp(self.value, self._stage(stage), V.as_i32(tx_count))


class TCGen05Bar(MBarrier):
    """A barrier that tcgen05 operations complete (sm_100a)."""

    _kind = "TCGen05Bar"

    def arrive(self, stage, cta_group: int = 1, cta_mask=None, pred=None) -> None:
        if self.is_remote:
            raise ValueError("TCGen05Bar.remote_view().arrive(): tcgen05_commit cannot target "
                             "a remote view; signal other CTAs with cta_mask")
        if cta_group not in (1, 2):
            raise ValueError(f"cta_group must be 1 or 2, got {cta_group!r}")
        mask = None
        if cta_mask is not None:
            mask = V.as_value(cta_mask, ir.IntegerType.get_signless(16))
        with if_then(True if pred is None else pred):
            mbarrier.Tcgen05CommitOp(self.value, self._stage(stage), mask=mask,
                                     cta_group=cta_group)


def initialized_barrier(kernel, count, depth: int = 1, *, phase_offset: int = 0,
                        cls=MBarrier) -> MBarrier:
    """The prologue of most barrier kernels in one call: a barrier group in a
    pool of its own, initialized with `count` by the leader, and the init made
    visible before anyone arrives (fence_init + a cluster barrier in a
    cluster kernel, a CTA barrier otherwise)."""
    pool = kernel.smem_pool()
    bar = cls(pool, depth, phase_offset=phase_offset)
    pool.commit()
    bar.init(count)
    kernel.fence_barrier_init()
    if kernel.cluster:
        kernel.cluster_sync()
    else:
        kernel.sync_threads()
    return bar


__all__ = ["MBarrier", "TMABar", "TCGen05Bar", "initialized_barrier"]
