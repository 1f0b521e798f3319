"""The two row kernels around the backward pass's dK/dV kernel
(backward.py), one thread per row (or per pair of dQ values), no barriers:

* ``preprocess``: for every row r of every batch x head, padded to
  ``seq_pad`` (seq rounded up to 64): ``delta = sum_d dO O`` (fp32),
  ``lse2 = lse log2 e`` (the kernel's exp2 units), and the row of dq_accum
  zeroed; padding rows get ``delta = 0``, ``lse2 = +inf`` (so their P and
  dS are exactly 0 in the main kernel). O and dO are read through their
  [batch*heads, seq, head_dim] views' strides (elements).
* ``convert``: ``dq = bf16(scale dq_accum)`` for the rows below seq,
  contiguous [batch*heads, seq, head_dim].

**dq_accum's layout** ([batch*heads, seq_pad, head_dim] f32, each 64-row
block of 64 x head_dim floats contiguous): within a block, in the order
the dK/dV kernel's wgmma fragments hold it (FA3's permuted dQaccum), so
that its shared dQ tile is written with conflict-free 16-byte stores and
added with one bulk reduction (:func:`fragment_offset`).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import llvm

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, if_then

from . import mma, softmax as sm

THREADS = 128
LOG2E = 1.0 / math.log(2.0)

PRE_PARAMS = [("o", "ptr"), ("do", "ptr"), ("lse", "ptr"), ("lse2", "ptr"), ("delta", "ptr"),
              ("dq_accum", "ptr"), ("seq", "i32"), ("seq_pad", "i32"), ("rows", "i32"),
              ("o_head", "i64"), ("o_row", "i64"), ("do_head", "i64"), ("do_row", "i64")]
CONVERT_PARAMS = [("dq_accum", "ptr"), ("dq", "ptr"), ("seq", "i32"), ("seq_pad", "i32"),
                  ("pairs", "i32"), ("scale", "f32")]


def _bf16_pair(word):
    """The two f32 of a b32 holding two bf16 (the lower half first)."""
    f32 = ir.F32Type.get()
    lo = llvm.BitcastOp(f32, word << 16).res
    hi = llvm.BitcastOp(f32, word & -65536).res
    return lo, hi


def fragment_offset(r, c):
    """The float offset of element (row r, column c) in a 64-row block of
    dq_accum (ints or values): column half c / 64 (4096 floats each), then
    value j = 4 i + 2 h + e of thread t of an m64n64 accumulator fragment
    (mma.py: row 16 w + l / 4 + 8 h, column 8 i + 2 (l % 4) + e, t = 32 w +
    l) at 4 (128 i + t) + 2 h + e."""
    cc = c % 64
    t = (r // 16) * 32 + (r % 8) * 4 + (cc % 8) // 2
    return (c // 64) * 4096 + ((cc // 8) * 128 + t) * 4 + ((r % 16) // 8) * 2 + cc % 2


def preprocess(head_dim: int, name: str | None = None) -> Kernel:
    """``attn_bwd_pre(o, do, lse, lse2, delta, dq_accum, seq, seq_pad, rows,
    o_head, o_row, do_head, do_row)``: launch ``ceil(rows / 128)`` CTAs of
    128 threads, rows = batch*heads*seq_pad."""
    D = head_dim
    with Kernel(name or f"attn_bwd_pre_d{D}", block=THREADS, grid=4, chip="sm_90a",
                params=PRE_PARAMS) as k:
        f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
        g = k.block_rank() * THREADS + k.thread_rank()
        seq, seq_pad = k.param("seq"), k.param("seq_pad")
        with if_then(g < k.param("rows")):
            bh, r = g // seq_pad, g % seq_pad
            inside = r < seq
            rc = lang.select(inside, r, seq - 1).to("i64")   # a row that exists
            total = sm.fconst(0.0)
            bf16 = ir.BF16Type.get()
            o_row = k.element_ptr(k.param("o"), bh.to("i64") * k.param("o_head")
                                  + rc * k.param("o_row"), bf16)
            do_row = k.element_ptr(k.param("do"), bh.to("i64") * k.param("do_head")
                                   + rc * k.param("do_row"), bf16)
            for c in range(0, D, 2):
                a = _bf16_pair(lang.wrap(llvm.LoadOp(i32, k.element_ptr(o_row, c, bf16),
                                                     alignment=4).res))
                b = _bf16_pair(lang.wrap(llvm.LoadOp(i32, k.element_ptr(do_row, c, bf16),
                                                     alignment=4).res))
                total = sm.fma(a[0], b[0], sm.fma(a[1], b[1], total))
            lse = llvm.LoadOp(f32, k.element_ptr(k.param("lse"), bh.to("i64") * seq.to("i64")
                                                 + rc, f32), alignment=4).res
            zero = sm.fconst(0.0)
            delta = lang.select(inside, lang.wrap(total), lang.wrap(zero))
            lse2 = lang.select(inside, lang.wrap(sm.fmul(lse, sm.fconst(LOG2E))),
                               lang.wrap(sm.fconst(float("inf"))))
            llvm.StoreOp(delta, k.element_ptr(k.param("delta"), g, f32), alignment=4)
            llvm.StoreOp(lse2, k.element_ptr(k.param("lse2"), g, f32), alignment=4)
            v4 = ir.VectorType.get([4], f32)
            zeros = llvm.mlir_zero(v4)
            acc_row = k.element_ptr(k.param("dq_accum"), g.to("i64") * D, f32)
            for c in range(0, D, 4):
                llvm.StoreOp(zeros, k.element_ptr(acc_row, c, f32), alignment=16)
    return k


def convert(head_dim: int, name: str | None = None) -> Kernel:
    """``attn_bwd_dq(dq_accum, dq, seq, seq_pad, pairs, scale)``: launch
    ``ceil(pairs / 128)`` CTAs of 128 threads, pairs = batch*heads*seq*D/2."""
    D = head_dim
    with Kernel(name or f"attn_bwd_dq_d{D}", block=THREADS, grid=4, chip="sm_90a",
                params=CONVERT_PARAMS) as k:
        f32 = ir.F32Type.get()
        v2 = ir.VectorType.get([2], f32)
        e = k.block_rank() * THREADS + k.thread_rank()
        seq, seq_pad = k.param("seq"), k.param("seq_pad")
        with if_then(e < k.param("pairs")):
            row, c = e // (D // 2), (e % (D // 2)) * 2
            bh, r = row // seq, row % seq
            block = bh.to("i64") * seq_pad.to("i64") + (r // 64 * 64).to("i64")
            src = block * D + fragment_offset(r % 64, c).to("i64")   # c even: c, c + 1 adjacent
            v = llvm.LoadOp(v2, k.element_ptr(k.param("dq_accum"), src, f32), alignment=8).res
            scale = k.param("scale")
            lo, hi = (sm.fmul(llvm.ExtractElementOp(v, lang.const(i)).res, scale) for i in (0, 1))
            llvm.StoreOp(mma.bf16x2(lo, hi),
                         k.element_ptr(k.param("dq"), e.to("i64") * 2, ir.BF16Type.get()),
                         alignment=4)
    return k
