"""The online softmax of examples/attention.py on one consumer warpgroup's
S fragment (m64nBN f32 accumulator, see mma.py): each thread holds two rows
(``half`` 0: row 16 w + l / 4, 1: that + 8), BN/4 values of each; the four
lanes l, l^1, l^2, l^3 hold the rest of those rows (``shfl.sync.bfly``).

Statistics are in log2 units: ``x = s * scale_log2`` (scale_log2 =
softmax_scale * log2 e), the running row maximum ``m`` of x, the running
sum ``l`` of ``exp2(x - m)`` (per thread: its own columns; the four lanes'
partial sums are added once at the end), so ``exp2`` is ``ex2.approx.ftz``
and ``lse = (m + log2 l) * ln 2``."""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, llvm, nvvm

from mbarrier_dialect import lang

LN2 = math.log(2.0)


def f32() -> ir.Type:
    return ir.F32Type.get()


def fconst(x: float) -> ir.Value:
    return arith.ConstantOp(f32(), ir.FloatAttr.get(f32(), x)).result


def fmax(a, b):
    return llvm.MaxNumOp(a, b).res


def fadd(a, b):
    return llvm.FAddOp(a, b).res


def fmul(a, b):
    return llvm.FMulOp(a, b).res


def fma(a, b, c):
    return llvm.FMAOp(a, b, c).res


def exp2(x):
    """``ex2.approx.ftz.f32``."""
    return llvm.CallIntrinsicOp(f32(), "llvm.nvvm.ex2.approx.ftz.f", [x], [], []).results[0]


def log2(x):
    """``lg2.approx.ftz.f32``."""
    return llvm.CallIntrinsicOp(f32(), "llvm.nvvm.lg2.approx.ftz.f", [x], [], []).results[0]


def rcp(x):
    """``rcp.approx.ftz.f32``."""
    return llvm.CallIntrinsicOp(f32(), "llvm.nvvm.rcp.approx.ftz.f", [x], [], []).results[0]


def tree(op, vals):
    vals = list(vals)
    while len(vals) > 1:
        vals = [op(vals[i], vals[i + 1]) if i + 1 < len(vals) else vals[i]
                for i in range(0, len(vals), 2)]
    return vals[0]


def quad(op, v):
    """`op` over the four lanes of a row (``shfl.sync.bfly`` 1, 2)."""
    mask = lang.const(-1)
    clamp = lang.const(0x1F)
    for off in (1, 2):
        other = nvvm.ShflOp(f32(), mask, v, lang.const(off), clamp,
                            nvvm.ShflKind.bfly).res
        v = op(v, other)
    return v


def row_values(vals, half):
    """The accumulator values of row `half` (0 or 1) of this thread."""
    return [v for j, v in enumerate(vals) if (j // 2) % 2 == half]


def mask_scores(vals, limit_rel, lane):
    """-inf where the column is at or past the limit: value j's column
    relative to the block is 8 (j / 4) + 2 (l % 4) + j % 2; `limit_rel[h]`
    is the first masked column of row half h relative to the block (i32)."""
    ninf = fconst(float("-inf"))
    lim = [limit_rel[h] - (lane % 4) * 2 for h in (0, 1)]
    out = []
    for j, v in enumerate(vals):
        c = 8 * (j // 4) + j % 2
        keep = lim[(j // 2) % 2] > c
        out.append(arith.SelectOp(keep, v, ninf).result)
    return out


def online_softmax(s_vals, m, l, scale_log2):
    """One kv block's step for this thread's two rows: new maxima, the
    probabilities P = exp2(s scale_log2 - m_new), the factors exp2(m - m_new)
    the output must be rescaled by, the new partial sums. Returns (p, m_new,
    l_new, rescale), each of m/l/rescale a pair (one per row half)."""
    p = [None] * len(s_vals)
    m_new, l_new, rescale = [], [], []
    for h in (0, 1):
        idx = [j for j in range(len(s_vals)) if (j // 2) % 2 == h]
        mx = quad(fmax, tree(fmax, [s_vals[j] for j in idx]))
        mn = fmax(m[h], fmul(mx, scale_log2))
        neg = fmul(mn, fconst(-1.0))
        for j in idx:
            p[j] = exp2(fma(s_vals[j], scale_log2, neg))
        r = exp2(fadd(m[h], neg))
        rescale.append(r)
        m_new.append(mn)
        l_new.append(fma(l[h], r, tree(fadd, [p[j] for j in idx])))
    return p, m_new, l_new, rescale


def rescale_output(o_vals, rescale):
    """O's values of row half h times rescale[h]."""
    return [fmul(v, rescale[(j // 2) % 2]) for j, v in enumerate(o_vals)]


def finish(o_vals, m, l):
    """O / l and the log-sum-exp (natural log) of each row half: the four
    lanes' partial sums first."""
    inv, lse = [], []
    for h in (0, 1):
        total = quad(fadd, l[h])
        inv.append(rcp(total))
        lse.append(fmul(fadd(m[h], log2(total)), fconst(LN2)))
    return [fmul(v, inv[(j // 2) % 2]) for j, v in enumerate(o_vals)], lse
