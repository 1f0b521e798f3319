"""`Kernel`: a context manager that builds one `gpu.func` kernel in a
`gpu.module` (the builder context of :mod:`.builder`), with the frontend's
calls on it: the values every barrier kernel needs, barriers among threads,
memory access, the prologue and epilogue, and ``compile()``. Each call is
the function of the layer that owns it (:mod:`.threads`, :mod:`.smem`,
:mod:`.prologue`, ...)."""
from __future__ import annotations

from typing import Any, ContextManager, Mapping, Sequence

from mlir import ir

from ..compiler import CompiledKernel
from ..compiler import compile as compile_module
from . import prologue as _prologue
from . import smem as _smem
from . import threads as _threads
from .named_barriers import NamedBarrier
from .barriers import MBarrier, fence_barrier_init
from .builder import Builder, Dims
from .bulk_store import fence_proxy_async
from .control import if_then
from .pipeline import Pipeline
from .sequence import OrderedSequence
from .smem import MemRef, SmemPool
from .values import DType, IntLike, Value

__all__ = ["Kernel"]


class Kernel(Builder):
    """Build one kernel (a ``gpu.func`` in a ``gpu.module``)::

        with Kernel("pingpong", block=32, cluster=2,
                    params=[("out", "ptr"), ("iters", "i32")]) as k:
            ...  # emit ops: k.param("out"), k.thread_rank(), k.cluster_rank(), ...
        compiled = k.compile()   # .ptx, .cubin, .launch(...)

    `block`, `grid` and `cluster` are 1- to 3-dimensional (padded with 1);
    `grid` defaults to one cluster (or one CTA). A parameter kind is
    ``"ptr"`` (a global-memory pointer) or an element type name (``"i32"``,
    ``"i64"``, ``"f32"``, ...). `chip` is the default target of ``compile()``,
    `debug_waits` its default bound in nanoseconds of every blocking wait
    (0: off; checked by :func:`mbarrier_dialect.compile`).
    """

    def __init__(self, name: str, *, block: Dims, grid: Dims | None = None,
                 cluster: Dims | None = None, chip: str | None = None,
                 params: Sequence[tuple[str, DType]] = (),
                 context: ir.Context | None = None, debug_waits: int = 0):
        super().__init__(name, block=block, grid=grid, cluster=cluster, params=params,
                         context=context)
        self.chip = chip
        self.debug_waits = debug_waits

    def __enter__(self) -> "Kernel":
        """Create the module and the kernel function; ops built inside the
        ``with`` block go into the kernel's body."""
        super().__enter__()
        return self

    def smem_pool(self) -> SmemPool:
        """A new shared-memory pool (see :class:`SmemPool`)."""
        return SmemPool(self)

    # The values every barrier kernel needs (lang.threads).
    def thread_rank(self) -> Value:
        """Linear thread index within the CTA (``%tid``), i32."""
        return _threads.thread_rank(self)

    def is_thread(self, rank: IntLike) -> Value:
        """``thread_rank() == rank``: an i1."""
        return _threads.is_thread(self, rank)

    def cluster_rank(self) -> Value:
        """``%cluster_ctarank``: this CTA's rank in its cluster, i32."""
        return _threads.cluster_rank()

    def block_rank(self) -> Value:
        """``%ctaid.x``, i32."""
        return _threads.block_rank()

    def block_count(self) -> Value:
        """``%nctaid.x``: the CTAs of the launch's grid along x, i32."""
        return _threads.block_count()

    # Barriers and fences (lang.threads, lang.barriers).
    def fence_barrier_init(self) -> None:
        """``fence.mbarrier_init.release.cluster``: makes the barrier inits
        of this thread visible to the cluster (before a cluster barrier)."""
        fence_barrier_init()

    def fence_proxy_async(self) -> None:
        """``fence.proxy.async.shared::cta``: this thread's writes of shared
        memory are ordered before later async-proxy reads of it (a TMA
        store of the buffer it wrote; lang.bulk_store)."""
        fence_proxy_async()

    def cluster_sync(self) -> None:
        """``barrier.cluster.arrive`` + ``barrier.cluster.wait``: every
        thread of every CTA of the cluster."""
        _threads.cluster_sync()

    def sync_threads(self) -> None:
        """``bar.sync 0``: every thread of the CTA (``gpu.barrier``)."""
        _threads.sync_threads()

    def sync_warp(self) -> None:
        """``bar.warp.sync -1``: the lanes of the warp meet, and their memory
        accesses before it are ordered before those after it (so one lane's
        release arrival, e.g. a pipeline release, covers the whole warp's
        reads of a stage)."""
        _threads.sync_warp()

    def named_barrier(self, threads: int, id: int | None = None,
                      name: str | None = None) -> NamedBarrier:
        """A named barrier (``bar.sync`` / ``bar.arrive`` / ``bar.red``) of
        `threads` threads, with the hardware id `id` or one the compiler
        assigns (see :mod:`.named_barriers`): ``.sync()``, ``.arrive()``,
        ``.red_popc(pred)``, ``.red_and(pred)``, ``.red_or(pred)``."""
        return NamedBarrier(self, threads, id, name)

    # The prologue and the epilogue (lang.prologue).
    def prologue(self, barriers: Mapping[MBarrier, IntLike] | None = None, *,
                 pipes: Sequence[Pipeline] = (), sequences: Sequence[OrderedSequence] = (),
                 leader: ir.Value | None = None) -> None:
        """The start of a barrier kernel, for several groups at once: the
        leader (default: thread rank 0) initializes every barrier of every
        group with its arrival count, ``fence.mbarrier_init`` makes the inits
        visible, and one barrier (``barrier.cluster`` in a cluster kernel,
        ``bar.sync`` otherwise) keeps every thread from arriving before::

            k.prologue({full: 32, empty: 32})
            k.prologue(pipes=[pipe])           # a Pipeline's counts are its own
            k.prologue(sequences=[order])      # so are an OrderedSequence's
        """
        _prologue.prologue(self, barriers, pipes=pipes, sequences=sequences, leader=leader)

    def epilogue(self) -> None:
        """The safe end of a cluster kernel: a final ``barrier.cluster``
        (arrive + wait by every thread), so that no CTA exits, and its
        shared memory goes away, while another CTA may still arrive on its
        barriers or access its buffers. Emits nothing in a kernel without a
        cluster (no other CTA can reach its shared memory)."""
        _prologue.epilogue(self)

    @staticmethod
    def if_then(cond: ir.Value) -> ContextManager[None]:
        """``with k.if_then(pred):``, the module-level :func:`if_then`."""
        return if_then(cond)

    # Global and shared memory (lang.smem).
    def element_ptr(self, ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
                    dtype: DType | None = None) -> ir.Value:
        """The address of element `index` of `ref` (a buffer, a remote buffer
        or a pointer value; a tuple index for a multi-dimensional buffer)."""
        return _smem.element_ptr(ref, index, dtype)

    def load(self, ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
             dtype: DType | None = None) -> Value:
        """``ref[index]``, naturally aligned. The element type is the
        buffer's; for a pointer value it is `dtype` (default ``i32``)."""
        return _smem.load(ref, index, dtype)

    def store(self, value: Value | int | float, ref: MemRef,
              index: IntLike | Sequence[IntLike] = 0, dtype: DType | None = None) -> None:
        """``ref[index] = value``, naturally aligned. A Python number becomes
        a constant of the element type (a buffer's, else `dtype`, else
        ``i32``/``f32``); a value must have the element type already."""
        _smem.store(value, ref, index, dtype)

    def compile(self, chip: str | None = None, **kwargs: Any) -> CompiledKernel:
        """Compile with :func:`mbarrier_dialect.compile` (for `chip`, else
        the kernel's, else the default; ``debug_waits=`` defaults to the
        kernel's). The result's ``launch()`` defaults to this kernel's grid,
        block and cluster."""
        kwargs.setdefault("debug_waits", self.debug_waits)
        compiled = compile_module(self.module, chip or self.chip, **kwargs)
        compiled.launch_shapes[self.name] = (self.grid, self.block, self.cluster)
        return compiled
