"""The torch-facing backward entry of examples/attention.py, MLIR-free:
``backward(q, k, v, o, lse, do, causal=False, scale=None) -> (dq, dk, dv)``
on CUDA tensors [batch, heads, seq, head_dim] bf16 and the forward's lse
(f32 [batch, heads, seq], natural log).

* **Input checks** (api.py's, before any CUDA call or allocation): q, k, v
  as the forward takes them; o and do bf16 of q's shape on q's device, each
  with a [batch*heads, seq, head_dim] view (api.view3: do is loaded by the
  TMA, o read by the preprocess through the same strides); lse f32
  [batch, heads, seq] and contiguous; at most 2^31 pairs of dQ values (the
  convert kernel's i32 index).
* **Three launches** on torch's current stream, all capturable: the
  preprocess (backward_rows.py: delta, lse2, dq_accum zeroed), the dK/dV
  kernel (backward.py, dQ by bulk reductions into dq_accum) and the convert
  kernel (dq = bf16(scale dq_accum)). It allocates dq, dk, dv and its
  scratch (lse2, delta, dq_accum: 4 (2 + head_dim) bytes per padded row)
  from torch's caching allocator, nothing else.
* **The cache**: api.Cache's, the configurations named ``{"kernel":
  "bwd" | "bwd_pre" | "bwd_dq", "head_dim", "causal", "consumers"}``
  (consumers: the dK/dV kernel's consumer warpgroups, :data:`CONSUMERS`
  unless the entry is made with another).
"""
from __future__ import annotations

import math

from . import api

BLOCK = 64                       # query rows per block, keys per consumer warpgroup
THREADS = 128                    # the row kernels' CTA
#: The dK/dV kernel's consumer warpgroups per head dim (BENCHMARKS.md,
#: "The backward pass": at head dim 128 two are 1.17-1.29x one, both
#: measured in batch x head order; head dim 64 not timed, one kept).
CONSUMERS = {64: 1, 128: 2}


def fields(kernel: str, head_dim: int, causal: bool, consumers: int = 1) -> dict:
    """The cache's name of one of the three kernels (the row kernels have
    one variant per head dim)."""
    main = kernel == "bwd"
    return {"kernel": kernel, "head_dim": head_dim, "causal": causal and main,
            "consumers": consumers if main else 1}


def check_inputs(q, k, v, o, lse, do, causal, scale):
    """(batch, heads, seq, head_dim, scale, the q, k, v, do views, o's
    view) of a valid call; else a ValueError naming what is wrong."""
    b, h, s, d, scale, views = api._checked(q, k, v, causal, scale)
    more = {}
    for name, t in (("o", o), ("do", do)):
        api.check_tensor(name, t)
        if tuple(t.shape) != tuple(q.shape):
            raise ValueError(f"{name} has shape {tuple(t.shape)}, q {tuple(q.shape)}: they "
                             f"must be equal")
        if t.device != q.device:
            raise ValueError(f"{name} is on {t.device}, q on {q.device}")
        more[name] = api.view3(name, t)
    api.check_tensor("lse", lse, dtype="float32", rank=3)
    if tuple(lse.shape) != (b, h, s):
        raise ValueError(f"lse has shape {tuple(lse.shape)}: it must be [batch, heads, seq] = "
                         f"{(b, h, s)}")
    if lse.device != q.device:
        raise ValueError(f"lse is on {lse.device}, q on {q.device}")
    dense = (h * s, s, 1)            # a dimension of size 1 may have any stride
    if any(n > 1 and int(st) != dn for n, st, dn in zip(lse.shape, lse.stride(), dense)):
        raise ValueError(f"lse must be contiguous (the forward's), its strides are "
                         f"{tuple(lse.stride())}; pass lse.contiguous()")
    if b * h * s * d // 2 >= 2 ** 31:
        raise ValueError(f"batch*heads*seq*head_dim = {b * h * s * d}: at most 2^32 values of "
                         f"dQ (the convert kernel's i32 index)")
    return b, h, s, d, scale, [*views, more["do"]], more["o"]


class Backward(api.Forward):
    """The backward entry over an api.Cache whose compiler builds the three
    kernels (attention.backward_kernel_for); `consumers` overrides
    :data:`CONSUMERS` (bench/attention/bwd_run.py measures both)."""

    def __init__(self, cache: api.Cache, consumers: int | None = None):
        super().__init__(cache)
        self.consumers = consumers

    def __call__(self, q, k, v, o, lse, do, causal=False, scale=None):
        b, h, s, d, scale, views, o_view = check_inputs(q, k, v, o, lse, do, causal, scale)
        fns = {name: self._chosen(name, d, causal) for name in ("bwd_pre", "bwd", "bwd_dq")}
        torch = api._torch()
        bh, s_pad = b * h, -(-s // BLOCK) * BLOCK
        dq, dk, dv = (torch.empty((b, h, s, d), dtype=torch.bfloat16, device=q.device)
                      for _ in range(3))
        lse2 = torch.empty((bh * s_pad,), dtype=torch.float32, device=q.device)
        delta = torch.empty((bh * s_pad,), dtype=torch.float32, device=q.device)
        dq_accum = torch.empty((bh * s_pad * d,), dtype=torch.float32, device=q.device)
        capturing = bool(torch.cuda.is_current_stream_capturing())
        handle = int(torch.cuda.current_stream(q.device).cuda_stream)
        maps = [self.descriptors.address(int(t.data_ptr()), shape, strides,
                                         (1, BLOCK, api.CHUNK), handle, capturing)
                for t, (shape, strides) in zip((q, k, v, do), views)]
        import numpy as np
        ptr = [np.uint64(int(t.data_ptr())) for t in (o, do, lse, lse2, delta, dq_accum,
                                                      dk, dv, dq)]
        P_O, P_DO, P_LSE, P_LSE2, P_DELTA, P_ACC, P_DK, P_DV, P_DQ = ptr
        (_, o_st), (_, do_st) = o_view, views[3]
        rows, pairs = bh * s_pad, bh * s * d // 2
        launches = [
            ("bwd_pre", -(-rows // THREADS),
             [P_O, P_DO, P_LSE, P_LSE2, P_DELTA, P_ACC, np.int32(s), np.int32(s_pad),
              np.int32(rows), np.int64(o_st[0] // 2), np.int64(o_st[1] // 2),
              np.int64(do_st[0] // 2), np.int64(do_st[1] // 2)]),
            ("bwd", -(-s // (BLOCK * fns["bwd"][1]["consumers"])) * bh,
             [*(np.uint64(a) for a in maps), P_ACC, P_DK, P_DV, P_LSE2, P_DELTA, np.int32(s),
              np.float32(scale * math.log2(math.e)), np.float32(scale)]),
            ("bwd_dq", -(-pairs // THREADS),
             [P_ACC, P_DQ, np.int32(s), np.int32(s_pad), np.int32(pairs),
              np.float32(scale)]),
        ]
        for name, grid, args in launches:
            fn, launch = fns[name]
            key = (id(fn), grid, handle, *(a.item() for a in args))
            issue = self.launches.get(key)
            if issue is None:
                issue = api.runtime().prepare_launch(fn, grid, launch["threads"], args, None,
                                                     launch["smem_bytes"], handle)
                if len(self.launches) >= 1024:
                    self.launches.clear()
                self.launches[key] = issue
            issue()
        return dq, dk, dv

    def _chosen(self, name: str, d: int, causal: bool):
        key = (name, d, causal)
        if key not in self.chosen:
            c = self.consumers or CONSUMERS[d]
            self.chosen[key] = self._function(fields(name, d, causal, c))
        return self.chosen[key]
