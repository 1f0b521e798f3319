"""The rules of a launch's shape, checked without CUDA (part of the runtime:
runtime.py loads this file beside it and re-exports its names).

Standard library only, so that it runs wherever runtime.py runs: on a GPU
machine without MLIR, or on one without a GPU, where a wrong shape still
raises before any driver call.
"""
from __future__ import annotations

import math
import operator

PORTABLE_CLUSTER_LIMIT = 8
# The most CTAs a cluster can have (sm_90); above the portable 8 the launch
# must allow non-portable sizes, and the device may refuse a kernel's shape.
MAX_CLUSTER_SIZE = 16
MAX_THREADS_PER_BLOCK = 1024
# Dynamic shared memory above this needs the kernel's attribute raised first.
DEFAULT_SHARED_MEM_LIMIT = 48 * 1024


def _fmt(dims) -> str:
    return "(" + ",".join(str(d) for d in dims) + ")"


def _dims(value, what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} must have 1 to 3 dimensions, got {dims!r}")
    dims = tuple(operator.index(d) for d in dims) + (1,) * (3 - len(dims))
    if any(d < 1 for d in dims):
        raise ValueError(f"{what} {_fmt(dims)} has a dimension < 1")
    return dims


def validate_launch_shape(grid, block, cluster=None):
    """Check and pad launch dimensions without touching CUDA.

    Returns ``(grid, block, cluster)`` as 3-tuples (``cluster`` stays None
    when not given); raises ``ValueError`` for a dimension < 1, a block of
    more than 1024 threads, a cluster of more than 16 CTAs (the most a
    cluster can have; more than 8 is non-portable, see :func:`launch`) or a
    grid that is not a multiple of the cluster.
    """
    grid = _dims(grid, "grid")
    block = _dims(block, "block")
    threads = math.prod(block)
    if threads > MAX_THREADS_PER_BLOCK:
        raise ValueError(f"block {_fmt(block)} has {threads} threads, more than "
                         f"the limit of {MAX_THREADS_PER_BLOCK}")
    if cluster is not None:
        cluster = _dims(cluster, "cluster")
        ctas = math.prod(cluster)
        if ctas > MAX_CLUSTER_SIZE:
            raise ValueError(f"cluster of {ctas} CTAs exceeds the limit of {MAX_CLUSTER_SIZE} "
                             f"(more than {PORTABLE_CLUSTER_LIMIT} is non-portable)")
        if any(g % c for g, c in zip(grid, cluster)):
            raise ValueError(f"grid {_fmt(grid)} is not a multiple of cluster {_fmt(cluster)}")
    return grid, block, cluster


class ClusterSizeError(ValueError):
    """The device cannot run a cluster of this size for this kernel (its
    block and shared memory): ``cuOccupancyMaxActiveClusters`` found room for
    no cluster at all."""
