"""The shapes examples/gemm.py's kernel can do, MLIR-free (bench/gemm/run.py
imports it on the GPU machine, where only numpy and cuda-bindings exist)."""
from __future__ import annotations

import numbers


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
