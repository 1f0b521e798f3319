"""The TMA store (shared -> global), next to the load of :mod:`.barriers`,
and a store pipeline: a ring of shared staging buffers whose reuse waits
on ``cp.async.bulk.wait_group.read`` (CUTLASS's ``PipelineTmaStore``)::

    stores = StorePipeline(pool, depth=2, shape=(64, 64), dtype="f32")
    pool.commit()
    for t in lang.range(tiles):
        with if_then(tid == 0):
            stores.acquire()                  # wait_group.read depth-1
        k.sync_threads()                      # ... then everyone may write
        k.store(v, stores.buffer(t), i)       # stage t % depth
        fence_proxy_async()                   # each writer, before the barrier
        k.sync_threads()
        with if_then(tid == 0):
            stores.store(t, tmap, [row, col])   # fence, store, commit_group
    with if_then(tid == 0):
        stores.tail()                         # wait_group.read 0

A bulk store carries no mbarrier: it joins the issuing thread's bulk
async-group, ``commit_group`` closes the group, and only that thread's
``wait_group.read n`` tells when a source buffer may be written again.
The checker (docs/checker.md, "Staging buffers") reports a buffer written
before that wait.
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import llvm, nvvm

from . import values as V
from .barriers import _tensor_map_ptr
from .builder import verified
from .smem import SmemBuffer, SmemPool
from .values import DType, IntLike

__all__ = ["cp_async_bulk_tensor_store", "fence_proxy_async", "bulk_commit_group",
           "bulk_wait_group_read", "StorePipeline"]


def fence_proxy_async() -> None:
    """``fence.proxy.async.shared::cta``: orders the calling thread's
    generic-proxy accesses of its CTA's shared memory (``k.store`` into a
    staging buffer) before its later async-proxy ones (a TMA store reading
    the buffer). Every thread that wrote the buffer fences, then a CTA or
    named barrier, then one thread stores."""
    verified(nvvm.FenceProxyOp(nvvm.ProxyKind.async_shared, space=nvvm.SharedSpace.shared_cta))


def cp_async_bulk_tensor_store(src: SmemBuffer | ir.Value, tensor_map: ir.Value,
                               coords: Sequence[IntLike]) -> None:
    """``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group``, after
    ``fence.proxy.async.shared::cta``: a tiled TMA store of the shared
    buffer `src` (or an ``!llvm.ptr<3>``) to the box at `coords` (numpy
    order, like the load's) of the tensor `tensor_map` describes. The store
    joins the thread's open bulk async-group: ``bulk_commit_group()``
    closes it, and ``bulk_wait_group_read(n)`` by the same thread waits
    until at most `n` newer groups still read their sources; only then may
    `src` be written again."""
    ptr = src.ptr if isinstance(src, SmemBuffer) else src
    if not isinstance(ptr, ir.Value) or str(ptr.type) != "!llvm.ptr<3>":
        raise TypeError(f"the store's source is a shared-memory buffer or an !llvm.ptr<3>, got "
                        f"{getattr(ptr, 'type', type(src).__name__)}")
    coords = list(coords)
    if not 1 <= len(coords) <= 5:
        raise ValueError(f"a tensor store has 1 to 5 coordinates, got {len(coords)}")
    for c in coords:
        V._refuse_bool(c, "a coordinate")
    box = [V.as_i32(c) for c in reversed(coords)]
    fence_proxy_async()
    verified(nvvm.CpAsyncBulkTensorSharedCTAToGlobalOp(_tensor_map_ptr(tensor_map), ptr, box))


def bulk_commit_group() -> None:
    """``cp.async.bulk.commit_group``: the calling thread's bulk copies
    since its last commit become one bulk async-group."""
    verified(nvvm.CpAsyncBulkCommitGroupOp())


def bulk_wait_group_read(n: int) -> None:
    """``cp.async.bulk.wait_group.read n``: wait until at most `n` of the
    calling thread's newest bulk async-groups still read their shared
    sources (the buffers of the older ones may be written again)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"wait_group.read takes a constant number of groups >= 0, got {n!r}")
    verified(nvvm.CpAsyncBulkWaitGroupOp(n, read=True))


class StorePipeline:
    """`depth` staging buffers of `shape` elements of `dtype` in `pool`,
    each the source of one TMA store at a time. Store `t` (a running count,
    an int or an integer value) uses buffer ``t % depth``; each store is
    its own bulk async-group, so before buffer ``t % depth`` is written
    for store `t`, the store ``t - depth`` that read it must have finished
    reading: ``acquire()`` (``wait_group.read depth - 1``) by the thread
    that issues the stores, then a barrier for the writers."""

    def __init__(self, pool: SmemPool, depth: int, shape: Sequence[int], dtype: DType, *,
                 align: int = 128):
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"a store pipeline has at least one staging buffer, got {depth!r}")
        self.depth = depth
        self.buffers = pool.alloc((depth, *shape), dtype, align=align)
        self.stage_bytes = self.buffers.nbytes // depth

    def buffer(self, t: IntLike) -> ir.Value:
        """The ``!llvm.ptr<3>`` of staging buffer ``t % depth``."""
        V._refuse_bool(t, "the store count")
        i8 = ir.IntegerType.get_signless(8)
        offset = V.as_i32(t % self.depth if isinstance(t, int) else V.wrap(t) % self.depth)
        base = self.buffers.ptr
        return llvm.GEPOp(base.type, base, [offset * self.stage_bytes], [-2**31], i8,
                          llvm.GEPNoWrapFlags.none).result

    def acquire(self) -> None:
        """By the issuing thread, before the next buffer is written: wait
        until the store that last read it is done reading
        (``wait_group.read depth - 1``)."""
        bulk_wait_group_read(self.depth - 1)

    def store(self, t: IntLike, tensor_map: ir.Value, coords: Sequence[IntLike]) -> None:
        """By the issuing thread: TMA-store buffer ``t % depth`` to the box
        at `coords` (after ``fence.proxy.async``) and commit it as one bulk
        async-group."""
        cp_async_bulk_tensor_store(self.buffer(t), tensor_map, coords)
        bulk_commit_group()

    def tail(self) -> None:
        """By the issuing thread, before the CTA exits (its shared memory
        goes away): every store has finished reading (``wait_group.read 0``)."""
        bulk_wait_group_read(0)
