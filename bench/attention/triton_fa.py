"""The forward kernel of Triton's fused-attention tutorial
(python/tutorials/06-fused-attention.py), written here after the
tutorial's structure for bench/attention/run.py's ``--triton`` column: one
program per (BLOCK_M query rows, batch x head), Q, K, V and O through host
TMA tensor descriptors (``triton.tools.tensor_descriptor``, the tutorial's
Hopper path), the online softmax in log2 units (``exp2``, scale *
log2(e)), causal as the tutorial's two stages (the blocks left of the
diagonal without a mask, then the diagonal block with it), autotuned over
a few of the tutorial's configurations. Like the tutorial it takes seq a
multiple of BLOCK_M (the benchmark's 1k..16k) and writes
M = m + log2(l) (log2 units) beside O.

    fwd(q, k, v, causal, sm_scale) -> (o, m)    # q, k, v: [b, h, s, d] bf16

Needs torch and triton (no MLIR).
"""
from __future__ import annotations

import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# (BLOCK_M, BLOCK_N, num_stages, num_warps): the tutorial's Hopper choices
# for head dims 64 and 128, a short list (autotuning runs on the device).
CONFIGS = [(128, 64, 3, 4), (128, 128, 3, 8), (128, 64, 4, 8)]
BLOCK_M_MAX = max(c[0] for c in CONFIGS)


def _set_boxes(nargs):
    """The descriptors' boxes from the configuration (the tutorial's
    pre-hook): Q and O take BLOCK_M rows, K and V BLOCK_N."""
    bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    nargs["desc_q"].block_shape = [bm, d]
    nargs["desc_o"].block_shape = [bm, d]
    nargs["desc_k"].block_shape = [bn, d]
    nargs["desc_v"].block_shape = [bn, d]


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    offs_m, offs_n, N_CTX):
    if STAGE == 1:          # causal, left of the diagonal: no mask
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:        # causal, the diagonal block: masked
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:                   # non-causal: every block
        lo, hi = 0, N_CTX
    offset_kv = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([offset_kv, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offset_kv, 0])
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offset_kv += BLOCK_N
    return acc, l_i, m_i


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w,
                           pre_hook=_set_boxes) for bm, bn, s, w in CONFIGS],
    key=["N_CTX", "HEAD_DIM", "STAGE"], warmup=5, rep=25)
@triton.jit
def _attn_fwd(sm_scale, M, H, desc_q, desc_k, desc_v, desc_o, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    offset_y = off_hz * N_CTX           # the rows of [b*h*s, d] where this bh starts
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m,
                                        qk_scale, BLOCK_M, BLOCK_N, 4 - STAGE, offs_m, offs_n,
                                        N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m,
                                        qk_scale, BLOCK_M, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([qo_offset_y, 0], acc.to(tl.bfloat16))


def fwd(q, k, v, causal: bool, sm_scale: float):
    """O and M (log2-unit log-sum-exp) of q, k, v [b, h, s, d] bf16, seq a
    multiple of the largest BLOCK_M (the tutorial's restriction)."""
    import torch
    b, h, s, d = q.shape
    if s % BLOCK_M_MAX or d not in (64, 128) or q.dtype != torch.bfloat16:
        raise ValueError(f"the tutorial kernel takes bf16, seq a multiple of {BLOCK_M_MAX} and "
                         f"head dim 64 or 128, got {tuple(q.shape)} {q.dtype}")
    o = torch.empty_like(q)
    m = torch.empty((b, h, s), device=q.device, dtype=torch.float32)
    rows = b * h * s
    dummy = [BLOCK_M_MAX, d]            # the pre-hook sets each box per configuration
    desc = [TensorDescriptor(t.view(rows, d), shape=[rows, d], strides=[d, 1], block_shape=dummy)
            for t in (q, k, v, o)]

    def grid(meta):
        return (triton.cdiv(s, meta["BLOCK_M"]), b * h, 1)
    _attn_fwd[grid](sm_scale, m, h, *desc, s, HEAD_DIM=d, STAGE=3 if causal else 1)
    return o, m
