"""The shapes examples/gemm.py's kernel can do, MLIR-free (bench/gemm/run.py
imports it on the GPU machine, where only numpy and cuda-bindings exist)."""
from __future__ import annotations

import numbers

#: split-K (gemm_parts/splitk.py): at most MAX_SPLIT slices; the reduction's
#: threads per CTA and f32 values per thread (one 16-byte load a slice).
MAX_SPLIT = 16
REDUCE_THREADS = 256
REDUCE_VEC = 4


def check_shape(M: int, N: int, K: int) -> None:
    """Refuse, before any CUDA call, a shape the GEMM cannot do: the TMA
    tensor maps of A (M x K) and B (N x K) need a row stride of K * 2 bytes
    that is a multiple of 16 (``cuTensorMapEncodeTiled``'s globalStrides
    rule), so K is a multiple of 8; every extent is at least 1. Any M and N,
    odd or below the tile, are handled (edges read as zeros, not stored)."""
    for name, v in (("M", M), ("N", N), ("K", K)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if K % 8:
        raise ValueError(f"K = {K}: the row stride of A and B, K * 2 = {2 * K} bytes, must be "
                         f"a multiple of 16 (the TMA globalStrides rule), so K a multiple of 8")


def tiles(M: int, N: int, bm: int, bn: int, cluster: int) -> int:
    """Output tiles of an M x N output in bm x bn tiles, the M tiles padded
    to whole clusters."""
    tm = -(-M // bm)
    return -(-tm // cluster) * cluster * -(-N // bn)


def grid(M: int, N: int, bm: int, bn: int, cluster: int, persistent: bool,
         sms: int = 132, split_k: int = 1) -> int:
    """CTAs to launch for an M x N output (``gemm.Config.grid``): one per
    tile, or (persistent) one per SM, whole clusters, at most one per work
    unit (a tile, or with split-K each of its `split_k` K slices)."""
    n = tiles(M, N, bm, bn, cluster) * split_k
    return min(n, sms - sms % cluster) if persistent else n


def slice_elements(M: int, N: int) -> int:
    """Elements from one slice of the workspace to the next."""
    return -(-(M * N) // 8) * 8


def workspace_elements(M: int, N: int, split_k: int) -> int:
    return split_k * slice_elements(M, N)


def reduce_grid(M: int, N: int) -> int:
    """CTAs of the reduction for an M x N C."""
    per_cta = REDUCE_THREADS * REDUCE_VEC
    return max(1, -(-(M * N) // per_cta))


def reduce_name(split_k: int) -> str:
    return f"gemm_splitk_reduce_s{split_k}"
