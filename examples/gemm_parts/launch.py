"""``python -m examples.gemm --run``: one launch of a compiled GEMM on the
GPU on random bf16 inputs, checked against a float64 reference."""
from __future__ import annotations

import numpy as np

from .shapes import check_shape
from mbarrier_dialect.lang.wgmma import BK
from mbarrier_dialect.manifest import from_bf16_bits, to_bf16_bits


def run_and_check(compiled, cfg, threads: int, M: int = 512, N: int = 512,
                  K: int = 512) -> float:
    """Launch `compiled` (built from `cfg`) on M x N x K; the relative error."""
    from mbarrier_dialect import runtime as rt
    rt.require_gpu()
    check_shape(M, N, K)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((M, K), np.float32), rng.standard_normal((N, K), np.float32)
    ab, bb = to_bf16_bits(a), to_bf16_bits(b)
    da, db = rt.DeviceBuffer.from_numpy(ab), rt.DeviceBuffer.from_numpy(bb)
    dc = rt.DeviceBuffer.empty((M, N), np.float32 if cfg.out == "f32" else np.uint16)
    ta = rt.encode_tensor_map_tiled(da, "bfloat16", (M, K), (cfg.bm, BK), swizzle="128B")
    tb = rt.encode_tensor_map_tiled(db, "bfloat16", (N, K), (cfg.b_box_rows, BK),
                                    swizzle="128B")
    with rt.Module.load(compiled.cubin) as mod:
        rt.launch(mod.function(cfg.name), cfg.grid(M, N), threads,
                  [ta, tb, dc, np.int32(M), np.int32(N), np.int32(K)],
                  cluster=cfg.cluster if cfg.cluster > 1 else None,
                  shared_mem=cfg.smem_bytes)
    got = dc.to_numpy()
    got = got if cfg.out == "f32" else from_bf16_bits(got)
    ref = from_bf16_bits(ab).astype(np.float64) @ from_bf16_bits(bb).astype(np.float64).T
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
