"""MBarrier, TMABar, TCGen05Bar: barrier objects in a frontend's shape.

They state intent and emit `mbarrier` ops at the current insertion point.
The IR rules (ownership, index, counts, bytes, phase, `sem`, ranks) are the
C++ verifier's: each op is verified as soon as it is built, and a broken
rule raises ``ValueError`` with the verifier's message at the caller's
file:line. Arguments that decide an op's form are keyword-only everywhere:
``cta_id=``, ``tx_count=``, ``count=``, ``pred=``, ``sem=``, ``scope=``
(``init``'s one argument, the arrival count, may be positional:
``bar.init(1)``).
"""
from __future__ import annotations

from typing import Sequence, Union

from mlir import ir
from mlir.dialects import llvm, nvvm

from ..dialects import mbarrier
from ..dialects.mbarrier import Scope, Semantics
from ..locations import caller_location_text, user_location
from . import values as V
from .builder import check_same_kernel, current_kernel, make_type, verified
from .control import if_then
from .smem import SmemBuffer, SmemPool, element_ptr
from .threads import is_thread
from .values import IntLike, Value

__all__ = ["MBarrier", "TMABar", "TCGen05Bar", "init_group", "fence_barrier_init",
           "cp_async_bulk", "cp_async_bulk_tensor", "prefetch_tensormap", "SemLike", "ScopeLike"]

#: A memory-order argument: the enum or its PTX name.
SemLike = Union[Semantics, str, None]
ScopeLike = Union[Scope, str, None]


def _enum(value, enum, what: str):
    if value is None or isinstance(value, enum):
        return value
    if isinstance(value, str):
        try:
            return enum[value.lstrip(".")]
        except KeyError:
            pass
        names = ", ".join(repr(m.name) for m in enum)
        raise ValueError(f"{what} {value!r} is not one of {names}")
    raise TypeError(f"{what} is a {enum.__name__} or its name ("
                    f"{', '.join(repr(m.name) for m in enum)}), got {type(value).__name__}")


def sem_of(sem: SemLike) -> Semantics | None:
    """`sem` as a ``Semantics`` (from the enum or a name such as ``"relaxed"``)."""
    return _enum(sem, Semantics, "sem")


def scope_of(scope: ScopeLike) -> Scope | None:
    """`scope` as a ``Scope`` (from the enum or a name such as ``"cluster"``)."""
    return _enum(scope, Scope, "scope")


def _opt_i32(x: IntLike | None) -> Value | None:
    return None if x is None else V.as_i32(x)


def _opt_i1(x: ir.Value | None) -> Value | None:
    return None if x is None else V.as_i1(x)


class MBarrier:
    """`depth` mbarrier objects (a ``!mbarrier.group<depth>``) taken from a
    shared-memory pool; usable once the pool is committed.

    `phase_offset` (0 or 1) is XOR-ed into every wait's phase (an `empty`
    barrier of a ring starts "released": ``phase_offset=1``). `leader` is
    the i1 that selects the thread that initializes (default: thread 0).
    """

    _kind = "MBarrier"

    def __init__(self, pool: SmemPool, depth: int = 1, *, phase_offset: int = 0,
                 leader: ir.Value | None = None):
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError(f"depth is an int, got {type(depth).__name__}")
        if isinstance(phase_offset, bool) or not isinstance(phase_offset, int):
            raise TypeError(f"phase_offset is an int, got {type(phase_offset).__name__}")
        # The type's own rules (at least one barrier, fits shared memory).
        self._type = make_type(lambda: mbarrier.GroupType.get(depth))
        self.depth = depth
        self.phase_offset = phase_offset
        self.leader = leader
        self._remote_view: ir.Value | None = None  # set on remote views only
        self._group: ir.Value | None = None
        self._slot = pool.alloc((depth,), "i64", align=8)
        self._kernel = pool.kernel
        # The group is built at commit, located here (debug waits name it so).
        self._where = user_location()
        pool.on_commit(self._make_group)

    def _make_group(self) -> None:
        self._group = verified(mbarrier.ViewOp(self._type, self._slot.ptr, loc=self._where)).result

    # -- what the object stands for ------------------------------------------
    @property
    def is_remote(self) -> bool:
        """Whether this is a remote view (another CTA's barrier)."""
        return self._remote_view is not None

    @property
    def value(self) -> ir.Value:
        """The ``!mbarrier.group`` (or ``!mbarrier.remote``) SSA value."""
        check_same_kernel(self._kernel, f"this {type(self).__name__}")
        if self._remote_view is not None:
            return self._remote_view
        if self._group is None:
            raise ValueError("the barrier's shared-memory pool is not committed yet: call pool.commit()")
        return self._group

    def stage_phase(self, i: IntLike) -> tuple[Value, Value]:
        """Where the `i`-th use (i >= 0) of a ring of `depth` barriers falls:
        ``(i % depth, (i // depth) & 1)``, the barrier index and the parity
        of its phase to wait for."""
        i = V.as_i32(i) if isinstance(i, int) else V.wrap(i)
        return i % self.depth, (i // self.depth) & 1

    # -- operations ----------------------------------------------------------
    def init(self, count: IntLike) -> None:
        """The leader initializes every barrier of the group with arrival
        count `count` (``mbarrier.init``): ``bar.init(1)`` or
        ``bar.init(count=1)``. Publish the init before anyone arrives:
        ``k.prologue(...)`` does all of it for several groups."""
        leader = self.leader if self.leader is not None else is_thread(current_kernel(), 0)
        with if_then(leader):
            init_group(self, count)

    def inval(self, stage: IntLike) -> None:
        """``mbarrier.inval`` of barrier `stage` (owner only)."""
        verified(mbarrier.InvalOp(self.value, V.as_index(stage)))

    def _wait_args(self, stage, phase, sem, scope) -> dict:
        return dict(barriers=self.value, index=V.as_index(stage), phase=V.as_i32(phase),
                    phase_offset=self.phase_offset or None, sem=sem_of(sem),
                    scope=scope_of(scope))

    def wait(self, stage: IntLike, phase: IntLike, *, sem: SemLike = None,
             scope: ScopeLike = None) -> None:
        """Block until the phase of barrier `stage` with parity
        ``phase ^ phase_offset`` has completed (a ``try_wait.parity`` loop)."""
        verified(mbarrier.WaitOp(**self._wait_args(stage, phase, sem, scope)))

    def try_wait(self, stage: IntLike, phase: IntLike, *, sem: SemLike = None,
                 scope: ScopeLike = None) -> Value:
        """One potentially blocking test of the phase (``mbarrier.try_wait``): an i1."""
        return V.wrap(verified(mbarrier.TryWaitOp(**self._wait_args(stage, phase, sem, scope))).result)

    def test_wait(self, stage: IntLike, phase: IntLike, *, sem: SemLike = None,
                  scope: ScopeLike = None) -> Value:
        """A non-blocking test of the phase (``mbarrier.test_wait``): an i1."""
        return V.wrap(verified(mbarrier.TestWaitOp(**self._wait_args(stage, phase, sem, scope))).result)

    def arrive(self, stage: IntLike, *, cta_id: IntLike | None = None,
               pred: ir.Value | None = None, count: IntLike | None = None,
               sem: SemLike = None, scope: ScopeLike = None,
               tx_count: IntLike | None = None) -> None:
        """``mbarrier.arrive`` on barrier `stage`: locally; on CTA
        `cta_id`'s barrier (the ``shared::cluster`` form); or, on a remote
        view, on the view's CTA (``shared::cluster``). `count` arrivals at
        once; only where the i1 `pred` holds. `tx_count` is a TMABar's
        (a TypeError here, saying so)."""
        if tx_count is not None:
            where = caller_location_text()
            raise TypeError(f"{where + ': ' if where else ''}error: tx_count (expect_tx: the "
                            "bytes a copy brings) is an arrival on a TMABar; this group is an "
                            "MBarrier: make it with TMABar(pool, depth) for barriers that bulk "
                            "and TMA copies complete on")
        verified(mbarrier.ArriveOp(self.value, V.as_index(stage), count=_opt_i32(count),
                                   cta_id=_opt_i32(cta_id), pred=_opt_i1(pred),
                                   sem=sem_of(sem), scope=scope_of(scope)))

    def remote_view(self, rank: IntLike) -> "MBarrier":
        """This barrier as owned by CTA `rank` of the cluster
        (``mbarrier.remote_view``): arrivals through it are the
        ``shared::cluster`` forms; only the owner inits and waits."""
        V._refuse_bool(rank, "the CTA rank")
        if isinstance(rank, int):
            V.check_fits(rank, V.i32())  # an i32 attribute
            view = verified(mbarrier.RemoteViewOp(self.value, cta_rank=rank)).result
        else:
            view = verified(mbarrier.RemoteViewOp(self.value, rank=V.as_i32(rank))).result
        remote = object.__new__(type(self))
        remote.__dict__.update(self.__dict__)
        remote._remote_view = view
        return remote

    def ptr_to(self, stage: IntLike) -> ir.Value:
        """``!llvm.ptr<3>`` of barrier `stage`, or ``!llvm.ptr<7>``
        (``mapa``'d) through a remote view: for ops that take an address."""
        space = 7 if self.is_remote else 3
        return verified(mbarrier.PtrOp(ir.Type.parse(f"!llvm.ptr<{space}>"), self.value,
                                       V.as_index(stage))).result


class TMABar(MBarrier):
    """A barrier that bulk copies (TMA) complete: arrivals may carry the
    transaction bytes to expect (``arrive.expect_tx``)."""

    _kind = "TMABar"

    def arrive(self, stage: IntLike, *, tx_count: IntLike | None = None,
               cta_id: IntLike | None = None, pred: ir.Value | None = None,
               count: IntLike | None = None, sem: SemLike = None,
               scope: ScopeLike = None) -> None:
        """With `tx_count`: ``mbarrier.arrive.expect_tx`` (its arrival
        counts `count`, default 1); without: a plain arrive."""
        if tx_count is None:
            return super().arrive(stage, cta_id=cta_id, pred=pred, count=count,
                                  sem=sem, scope=scope)
        verified(mbarrier.ArriveExpectTxOp(self.value, V.as_index(stage), V.as_i32(tx_count),
                                           count=_opt_i32(count), cta_id=_opt_i32(cta_id),
                                           pred=_opt_i1(pred), sem=sem_of(sem),
                                           scope=scope_of(scope)))

    def expect_tx(self, stage: IntLike, *, tx_count: IntLike, sem: SemLike = None,
                  scope: ScopeLike = None) -> None:
        """``mbarrier.expect_tx``: the current phase also waits for
        `tx_count` more bytes (no arrival)."""
        verified(mbarrier.ExpectTxOp(self.value, V.as_index(stage), V.as_i32(tx_count),
                                     sem=sem_of(sem), scope=scope_of(scope)))


class TCGen05Bar(MBarrier):
    """A barrier that tcgen05 operations complete (sm_100a):
    ``arrive`` is ``tcgen05.commit``."""

    _kind = "TCGen05Bar"

    def arrive(self, stage: IntLike, *, cta_group: int = 1,  # type: ignore[override]
               cta_mask: IntLike | None = None, pred: ir.Value | None = None) -> None:
        """``tcgen05.commit`` on barrier `stage`: it arrives once the
        tcgen05 operations issued before complete; with `cta_mask` (i16), on
        the barrier at the same offset in every CTA of the mask; only where
        the i1 `pred` holds."""
        mask = None if cta_mask is None else V.as_value(cta_mask, ir.IntegerType.get_signless(16))
        if pred is None:
            verified(mbarrier.Tcgen05CommitOp(self.value, V.as_index(stage), mask=mask,
                                              cta_group=cta_group))
            return
        with if_then(pred):
            verified(mbarrier.Tcgen05CommitOp(self.value, V.as_index(stage), mask=mask,
                                              cta_group=cta_group))

    commit = arrive


def init_group(group: MBarrier, count: IntLike) -> None:
    """``mbarrier.init`` of every barrier of `group` with arrival count
    `count`, by every thread that runs it: the caller selects the thread
    (``MBarrier.init`` and ``k.prologue`` put it under the leader's
    ``if_then``)."""
    count = V.as_i32(count)
    for i in range(group.depth):
        verified(mbarrier.InitOp(group.value, V.as_index(i), count))


def fence_barrier_init() -> None:
    """``fence.mbarrier_init.release.cluster``: makes the barrier inits of
    this thread visible to the cluster (before a cluster barrier)."""
    verified(mbarrier.FenceInitOp())


def cp_async_bulk(dst: SmemBuffer, src: ir.Value, *, bar: TMABar, stage: IntLike = 0,
                  src_index: IntLike = 0, nbytes: IntLike | None = None) -> None:
    """``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes``:
    copy `nbytes` (default: all of `dst`) from global memory, starting at
    element `src_index` of `src` (elements of `dst`'s type), into the shared
    buffer `dst`. The copy completes on barrier `stage` of `bar`: post the
    bytes first (``bar.arrive(stage, tx_count=nbytes)``), then wait on the
    phase. Addresses and `nbytes` must be multiples of 16 bytes."""
    if not isinstance(dst, SmemBuffer):
        raise TypeError(f"the destination is a shared-memory buffer, got {type(dst).__name__}")
    if not isinstance(bar, TMABar):
        raise TypeError(f"the copy completes on a TMABar, got {type(bar).__name__}")
    nbytes = dst.nbytes if nbytes is None else nbytes
    V._refuse_bool(nbytes, "nbytes")
    if isinstance(nbytes, int) and (nbytes <= 0 or nbytes % 16 or nbytes > dst.nbytes):
        raise ValueError(f"cp.async.bulk copies a positive multiple of 16 bytes that fits the "
                         f"buffer ({dst.nbytes} bytes), got {nbytes}")
    source = element_ptr(src, src_index, dst.dtype)
    verified(nvvm.CpAsyncBulkGlobalToSharedClusterOp(dst.ptr, source, bar.ptr_to(stage),
                                                     V.as_i32(nbytes)))


def _tensor_map_ptr(tensor_map: ir.Value) -> ir.Value:
    """`tensor_map` (a ``ptr`` parameter: ``!llvm.ptr<1>``, or a generic
    ``!llvm.ptr``) as the generic pointer the TMA ops take."""
    ty = str(tensor_map.type) if isinstance(tensor_map, ir.Value) else ""
    if not (ty == "!llvm.ptr" or (ty.startswith("!llvm.ptr<") and ty.endswith(">"))):
        raise TypeError(f"the tensor map is a pointer to its descriptor (a 'ptr' parameter), got "
                        f"{ty or type(tensor_map).__name__}")
    space = 0 if ty == "!llvm.ptr" else int(ty[len("!llvm.ptr<"):-1])
    if space == 0:
        return tensor_map
    if space != 1:
        raise TypeError(f"the tensor map descriptor lives in global memory, got a pointer in "
                        f"address space {space}")
    return llvm.AddrSpaceCastOp(ir.Type.parse("!llvm.ptr"), tensor_map).result


def cp_async_bulk_tensor(dst: SmemBuffer, tensor_map: ir.Value, coords: Sequence[IntLike], *, bar: TMABar,
                         stage: IntLike = 0, multicast_mask: IntLike | None = None) -> None:
    """``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes``:
    a tiled TMA load of the box at `coords` of the tensor that `tensor_map`
    describes into the shared buffer `dst`, completing on barrier `stage`
    of `bar` (``mbarrier.ptr`` of the group).

    `tensor_map` is the kernel's pointer to the 128-byte descriptor in
    global memory (a ``ptr`` parameter that ``launch`` fills from a
    ``runtime.TensorMap``); `coords` are the box's first element, one i32
    per dimension in numpy order (outermost first, like the tensor map's
    shape and box; the PTX order is the reverse). Coordinates may be
    negative or past the end: out-of-bounds elements read as the map's
    fill, and still count as bytes. Post the box bytes first
    (``bar.arrive(stage, tx_count=tensor_map.box_bytes)``), then wait on
    the phase. With `multicast_mask` (i16; bit i is the CTA of cluster rank
    i) the box lands at the same offset in the shared memory of every CTA
    in the mask and completes on each one's barrier at the same offset
    (``.multicast::cluster``)."""
    if not isinstance(dst, SmemBuffer):
        raise TypeError(f"the destination is a shared-memory buffer, got {type(dst).__name__}")
    if not isinstance(bar, TMABar):
        raise TypeError(f"the copy completes on a TMABar, got {type(bar).__name__}")
    if bar.is_remote:
        raise ValueError("the copy completes on a barrier of this CTA, not a remote view "
                         "(use multicast_mask to complete on other CTAs' barriers)")
    coords = list(coords)
    if not 1 <= len(coords) <= 5:
        raise ValueError(f"a tensor copy has 1 to 5 coordinates, got {len(coords)}")
    for c in coords:
        V._refuse_bool(c, "a coordinate")
    if dst.align < 16:
        raise ValueError(f"a tensor copy's destination is 16-byte aligned (128 with a swizzle), "
                         f"the buffer is {dst.align}-byte aligned")
    mask = None
    if multicast_mask is not None:
        V._refuse_bool(multicast_mask, "multicast_mask")
        if isinstance(multicast_mask, int) and not 0 < multicast_mask < 1 << 16:
            raise ValueError(f"multicast_mask is a non-zero 16-bit CTA mask, got {multicast_mask}")
        mask = V.as_value(multicast_mask, ir.IntegerType.get_signless(16))
    descriptor = _tensor_map_ptr(tensor_map)
    box = [V.as_i32(c) for c in reversed(coords)]
    # A shared::cta address is a shared::cluster address of this CTA.
    cluster_dst = llvm.AddrSpaceCastOp(ir.Type.parse("!llvm.ptr<7>"), dst.ptr).result
    verified(nvvm.CpAsyncBulkTensorGlobalToSharedClusterOp(
        cluster_dst, descriptor, box, bar.ptr_to(stage), [], multicastMask=mask))


def prefetch_tensormap(tensor_map: ir.Value) -> None:
    """``prefetch.tensormap``: bring the descriptor at `tensor_map` (a
    ``ptr`` parameter) into the cache before the first tensor copy uses it."""
    verified(nvvm.PrefetchOp(_tensor_map_ptr(tensor_map), tensormap=True))
