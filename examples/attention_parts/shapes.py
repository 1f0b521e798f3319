"""The shapes examples/attention.py's kernel can do and its launch geometry,
MLIR-free (bench/attention/run.py imports it on the GPU machine, where only
numpy, torch and cuda-bindings exist)."""
from __future__ import annotations

import numbers


def check_shape(batch: int, heads: int, seq: int, head_dim: int, kernel_head_dim: int) -> None:
    """Refuse, before any CUDA call, a problem the kernel cannot do. Q, K,
    V and O are [batch, heads, seq, head_dim] bf16, contiguous (the TMA maps
    see them as [batch*heads, seq, head_dim]); the head dim is the kernel's;
    any seq >= 1 (the tail tile reads zeros, its scores are masked, its
    rows are not stored)."""
    for name, v in (("batch", batch), ("heads", heads), ("seq", seq), ("head_dim", head_dim)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if head_dim != kernel_head_dim:
        raise ValueError(f"head_dim {head_dim}: this kernel is built for head dim "
                         f"{kernel_head_dim}")
    if seq >= 2 ** 31 or batch * heads >= 2 ** 31:
        raise ValueError("seq and batch*heads must be below 2^31 (i32 coordinates)")


def grid(batch: int, heads: int, seq: int, block_m: int, sms: int | None = None) -> int:
    """CTAs to launch: one per (query tile, batch x head), or (a persistent
    kernel, `sms` its SMs) at most one per SM, each walking the tiles."""
    tiles = -(-seq // block_m) * batch * heads
    return tiles if sms is None else min(tiles, sms)


def flops(batch: int, heads: int, seq: int, head_dim: int, causal: bool) -> float:
    """4 b h s^2 d (two GEMMs), halved for causal."""
    f = 4.0 * batch * heads * seq * seq * head_dim
    return f / 2 if causal else f
