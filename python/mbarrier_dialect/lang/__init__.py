"""A small frontend over the mbarrier dialect, in the shape GPU compilers use:
a kernel builder, a shared-memory pool and barrier objects.

    from mbarrier_dialect.lang import Kernel, MBarrier

    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, depth=1)
        pool.commit()
        bar.init(1)
        ...
    print(k.compile().ptx)

Everything here emits ops of `mbarrier_dialect.dialects.mbarrier`; it is
sugar, not a second dialect.
"""
from .barriers import MBarrier, TCGen05Bar, TMABar, initialized_barrier
from .kernel import Kernel, current_kernel, for_range, if_else, if_then, unrolled_range
from .smem import SmemBuffer, SmemPool

__all__ = ["Kernel", "MBarrier", "TMABar", "TCGen05Bar", "initialized_barrier", "SmemPool", "SmemBuffer",
           "current_kernel", "for_range", "if_else", "if_then", "unrolled_range"]
