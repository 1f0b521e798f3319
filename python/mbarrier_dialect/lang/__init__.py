"""A small frontend over the mbarrier dialect, in the shape GPU compilers use:
a kernel builder, values with Python operators, structured control flow, a
shared-memory pool and barrier objects::

    from mbarrier_dialect import lang
    from mbarrier_dialect.lang import Kernel, MBarrier, if_then

    with Kernel("signal_peer", block=32, cluster=2, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        ready = MBarrier(pool, depth=1)
        pool.commit()
        k.prologue({ready: 1})                 # init, fence_init, cluster barrier
        rank = k.cluster_rank()
        with if_then((rank == 0) & k.is_thread(0)):
            ready.remote_view(1).arrive(0)     # shared::cluster arrive on CTA 1
        with if_then(rank == 1):
            ready.wait(0, 0)
            k.store(rank, k.param("out"), 0)
        k.epilogue()                           # no CTA exits while a peer may reach it
    print(k.compile().ptx)

Everything here emits ops of `mbarrier_dialect.dialects.mbarrier` (and
upstream `arith`/`scf`/`llvm`/`nvvm`); it is sugar, not a second dialect.
The guide is docs/lang.md.

The package is in layers, each module importing only those below it
(test/python/meta/test_layering.py checks it)::

    dtypes      element types, their names, sizes and conversions
    values      Value: IR values with Python operators, constants
    builder     the kernel being built: context, module, insertion points,
                locations, the C++ verifier's check (verified)
    control     if_then, if_else, for_range, range, unrolled_range
    threads     ranks (%tid, %cluster_ctarank), barriers among threads,
                the warpgroup role split (WarpgroupRoles)
    named_barriers  NamedBarrier: bar.sync / bar.arrive / bar.red by name
    smem        the shared-memory pool, dynamic shared memory, views at a
                pointer, remote buffers, load/store
    wgmma       tensor cores: 128-byte-swizzled wgmma descriptors, the
                m64nNk16 bf16 wgmma, one 64-deep K block (lang.wgmma.*)
    barriers    MBarrier, TMABar, TCGen05Bar, bulk copies
    pipeline    Pipeline and its producer/consumer sides and slots
    sequence    OrderedSequence, its groups' states and turns
    bulk_store  the TMA store, bulk async-groups, StorePipeline
    prologue    the prologue and epilogue of a barrier kernel
    kernel      Kernel: the builder with every call above as a method
"""
import inspect

from .barriers import (MBarrier, TCGen05Bar, TMABar, cp_async_bulk, cp_async_bulk_tensor,
                       fence_barrier_init, prefetch_tensormap, scope_of, sem_of)
from .builder import current_kernel, needs_kernel, verified
from .bulk_store import (StorePipeline, bulk_commit_group, bulk_wait_group_read,
                         cp_async_bulk_tensor_store, fence_proxy_async)
from .control import IfElse, Loop, Range, for_range, if_else, if_then, range, unrolled_range
from .kernel import Kernel
from .named_barriers import NamedBarrier
from .pipeline import Consumer, ConsumerSlot, Pipeline, Producer, ProducerSlot
from .prologue import initialized_barrier
from .sequence import OrderedSequence, SequenceState, Turn
from .smem import RemoteBuffer, SmemBuffer, SmemPool, byte_offset
from .threads import WARPGROUP, WarpgroupRoles
from .values import Value, as_i1, as_i32, as_index, const, dtype, select, wrap
from . import wgmma  # noqa: E402  (lang.wgmma.wgmma(...), not re-exported by name)

# `range` is exported by name (lang.range) but left out of `import *`, which
# would shadow the builtin.
__all__ = ["Kernel", "NamedBarrier", "MBarrier", "TMABar", "TCGen05Bar", "initialized_barrier", "SmemPool",
           "SmemBuffer", "RemoteBuffer", "Value", "const", "dtype", "select", "wrap",
           "as_i1", "as_i32", "as_index", "current_kernel", "verified", "for_range", "Loop",
           "fence_barrier_init",
           "Range", "if_else", "IfElse", "if_then", "unrolled_range", "sem_of", "scope_of",
           "cp_async_bulk", "cp_async_bulk_tensor", "prefetch_tensormap", "Pipeline", "Producer",
           "Consumer", "ProducerSlot", "ConsumerSlot", "OrderedSequence", "SequenceState", "Turn",
           "cp_async_bulk_tensor_store", "fence_proxy_async", "bulk_commit_group",
           "bulk_wait_group_read", "StorePipeline", "byte_offset", "WarpgroupRoles", "WARPGROUP"]


# Every call that builds IR first checks that a kernel is being built (or an
# insertion point of the caller's is set): outside, a located RuntimeError
# that says so, not MLIR's "requires a Context". The calls that need no
# kernel: the Kernel's constructor, its compile() and param(), the
# frontend's own queries, and Value (whose values exist only inside one).
_BUILD_ANYWHERE = {"Kernel.__init__", "Kernel.compile", "Kernel.param", "current_kernel",
                   "verified", "sem_of", "scope_of", "dtype", "wrap"}


def _guard_calls() -> None:
    for name in [*__all__, "range"]:
        obj = globals()[name]
        if obj is Value or name in _BUILD_ANYWHERE:
            continue
        if inspect.isfunction(obj):
            globals()[name] = needs_kernel(obj, f"lang.{name}")
            continue
        if not inspect.isclass(obj):
            continue
        for attr, fn in list(vars(obj).items()):
            qualified = f"{name}.{attr}"
            if (not inspect.isfunction(fn) or qualified in _BUILD_ANYWHERE
                    or (attr.startswith("_") and attr != "__init__")
                    or getattr(fn, "__lang_needs_kernel__", False)):
                continue
            setattr(obj, attr, needs_kernel(fn, name if attr == "__init__" else qualified))


_guard_calls()
del _guard_calls, inspect
