"""Where a thread is and how threads meet: the ranks every barrier kernel
needs (``%tid``, ``%cluster_ctarank``, ``%ctaid``) and the barriers among
the threads of a warp, a CTA and a cluster. ``Kernel`` gives them as
methods (``k.thread_rank()``, ``k.sync_threads()``, ...); and the
warp-specialized split of a CTA into a producer warpgroup and consumer
warpgroups (``WarpgroupRoles``)."""
from __future__ import annotations

import contextlib
from typing import Iterator

from mlir.dialects import gpu, nvvm

from . import values as V
from .builder import Builder
from .control import if_else
from .values import IntLike, Value

__all__ = ["thread_rank", "is_thread", "cluster_rank", "block_rank", "block_count", "sync_threads",
           "sync_warp", "cluster_sync", "WarpgroupRoles", "WARPGROUP"]

#: Threads of a warpgroup (4 warps): the unit of ``wgmma`` and ``setmaxnreg``.
WARPGROUP = 128


def thread_rank(kernel: Builder) -> Value:
    """Linear thread index within the CTA (``%tid``) of `kernel`, i32."""
    def tid(dim):
        return V.as_i32(gpu.ThreadIdOp(getattr(gpu.Dimension, dim)).result)

    bx, by, bz = kernel.block
    x = tid("x")
    if by == 1 and bz == 1:
        return x
    return x + (tid("y") + tid("z") * by) * bx


def is_thread(kernel: Builder, rank: IntLike) -> Value:
    """``thread_rank(kernel) == rank``: an i1."""
    return thread_rank(kernel) == rank


def cluster_rank() -> Value:
    """``%cluster_ctarank``: this CTA's rank in its cluster, i32."""
    return V.wrap(nvvm.read_ptx_sreg_cluster_ctarank(V.i32()))


def block_rank() -> Value:
    """``%ctaid.x``, i32."""
    return V.as_i32(gpu.BlockIdOp(gpu.Dimension.x).result)


def block_count() -> Value:
    """``%nctaid.x``: the CTAs of the grid along x, i32 (a persistent
    kernel's stride over its tiles)."""
    return V.as_i32(gpu.GridDimOp(gpu.Dimension.x).result)


def sync_threads() -> None:
    """``bar.sync 0``: every thread of the CTA. Built as ``gpu.barrier``,
    which upstream lowers to the CTA barrier of its NVVM (``nvvm.barrier0``
    in MLIR 22; ``nvvm.barrier`` after llvm-project#195608 removes
    ``nvvm.barrier0``), so the IR lang builds stays valid across the
    change. (``nvvm.barrier`` itself does not parse back from text with a
    location alias in MLIR 22.)"""
    gpu.BarrierOp()


def sync_warp() -> None:
    """``bar.warp.sync -1``: the lanes of the warp meet, and their memory
    accesses before it are ordered before those after it (so one lane's
    release arrival, e.g. a pipeline release, covers the whole warp's
    reads of a stage)."""
    nvvm.SyncWarpOp(V.as_i32(-1))


def cluster_sync() -> None:
    """``barrier.cluster.arrive`` + ``barrier.cluster.wait``: every thread
    of every CTA of the cluster."""
    nvvm.ClusterArriveOp()
    nvvm.ClusterWaitOp()


class WarpgroupRoles:
    """The warp-specialized CTA: warpgroup 0 the producer, the others the
    consumers, each side first moving its register budget with
    ``setmaxnreg`` (the producer gives registers away, the consumers take
    them)::

        roles = WarpgroupRoles(k, producer_regs=40, consumer_regs=232)
        with roles.producer():
            ...                                # the TMA loop
        with roles.consumers():
            cw = roles.warpgroup - 1           # 0 for warpgroup 1, ...
            ...                                # the MMA loop

    `tid` is the thread's rank in the CTA, `warpgroup` its warpgroup."""

    def __init__(self, kernel: Builder, producer_regs: int, consumer_regs: int):
        self.producer_regs, self.consumer_regs = producer_regs, consumer_regs
        self.tid = thread_rank(kernel)
        self.warpgroup = self.tid // WARPGROUP
        self._split = if_else(self.warpgroup == 0)

    @contextlib.contextmanager
    def producer(self) -> Iterator[None]:
        """The body of warpgroup 0, after ``setmaxnreg.dec``."""
        with self._split.then():
            nvvm.SetMaxRegisterOp(self.producer_regs, nvvm.SetMaxRegisterAction.decrease)
            yield

    @contextlib.contextmanager
    def consumers(self) -> Iterator[None]:
        """The body of the other warpgroups, after ``setmaxnreg.inc``."""
        with self._split.otherwise():
            nvvm.SetMaxRegisterOp(self.consumer_regs, nvvm.SetMaxRegisterAction.increase)
            yield
