"""Split-K (examples/gemm_parts/splitk.py, ``Config(split_k=S)``) and the
tiles of bn % 64 more columns (p1_144_ts, p1_224_ts): they compile with the
checker silent, store what they should, their K slices partition K, the
reduction sums in slice order, the schedule picks them where they fill the
machine, and the refusals name their rule."""
import re
import warnings

import numpy as np
import pytest

from examples.gemm_parts import schedule, shapes

pytest.importorskip("mlir")

from examples import gemm  # noqa: E402
from examples.gemm_parts import splitk  # noqa: E402


def _compile(cfg, M=264, N=1032, K=1032):
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # a checker warning fails the test
        c = gemm.build(M, N, K, cfg=cfg).compile()
    assert c.warnings == []
    return c


@pytest.mark.parametrize("name", ["sk_256_k2", "sk_128_k3"])
def test_split_k_compiles_silent_and_stores_f32_partials_directly(name):
    cfg = gemm.Config(**schedule.CONFIG_KWARGS[name])
    c = _compile(cfg)
    # The partials: pairs of f32 straight from registers (one value at a
    # time where N is odd), no TMA store; per warpgroup 64 x bn / 128 threads.
    assert len(re.findall(r"st\.global\.v2\.b32", c.ptx)) == cfg.bn // 4
    assert len(re.findall(r"st\.global\.b32", c.ptx)) == cfg.bn // 2
    assert "cp.async.bulk.tensor.2d.global.shared" not in c.ptx
    assert not re.search(r"st\.global(\.v2)?\.b16|cvt\.rn\.bf16", c.ptx)   # no bf16 C here
    # work units = tiles x slices, one persistent CTA per SM at most
    assert cfg.grid(264, 1032) == min(cfg.tiles(264, 1032) * cfg.split_k, 132)
    assert cfg.grid(8192, 8192) == 132
    assert cfg.name.endswith(f"_p_k{cfg.split_k}_bf16")


def test_the_k_slices_partition_k_and_sum_to_the_product():
    rng = np.random.default_rng(0)
    for M, N, K, S in [(37, 51, 1032, 4), (20, 9, 136, 4), (64, 64, 200, 3)]:
        a = rng.integers(-3, 4, (M, K)).astype(np.float32)
        b = rng.integers(-3, 4, (N, K)).astype(np.float32)
        ws = splitk.partials(a, b, S)
        step = shapes.slice_elements(M, N)
        assert ws.shape == (S * step,) and step % 8 == 0 and step >= M * N
        slices = [ws[s * step:s * step + M * N].reshape(M, N) for s in range(S)]
        np.testing.assert_array_equal(sum(slices), a @ b.T)
        assert all((ws[s * step + M * N:(s + 1) * step] == -1).all() for s in range(S))
        kt = -(-K // 64)
        blocks = [kt * (s + 1) // S - kt * s // S for s in range(S)]
        assert sum(blocks) == kt and max(blocks) - min(blocks) <= 1
    # K of 3 blocks in 4 slices: one slice of no block, its partial zeros
    assert not splitk.partials(np.ones((20, 136), np.float32), np.ones((9, 136), np.float32),
                               4)[:180].any()


def test_the_reduction_sums_the_slices_in_order_into_bf16():
    k = splitk.build_reduce(3, grid=shapes.reduce_grid(130, 777))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = k.compile()
    assert c.warnings == []
    # the whole-group path: one 16-byte load per slice, the element-wise
    # tail one 4-byte load per slice and element
    assert len(re.findall(r"ld\.global\.v4\.(f32|b32)", c.ptx)) == 3
    assert len(re.findall(r"ld\.global\.(f32|b32)\s", c.ptx)) == 3 * 4
    case = splitk.reduce_case(130, 777, 3, seed=3)
    ws, step = case.inputs["ws"], shapes.slice_elements(130, 777)
    total = ws[:130 * 777] + ws[step:step + 130 * 777] + ws[2 * step:2 * step + 130 * 777]
    np.testing.assert_array_equal(case.expect["c"].ravel(), gemm.to_bf16_bits(total))
    assert shapes.reduce_grid(130, 777) == -(-(130 * 777) // 1024)
    with pytest.raises(ValueError, match="2 to 16 slices"):
        splitk.build_reduce(1)


@pytest.mark.parametrize("kw, err, match", [
    (dict(split_k=0), ValueError, "1 to 16"),
    (dict(split_k=17), ValueError, "1 to 16"),
    (dict(split_k=True), TypeError, "an int"),
    (dict(split_k=2, persistent=False), ValueError, "persistent=True"),
    (dict(split_k=2, persistent=True, epilogue="tma"), ValueError, "epilogue='direct'"),
    (dict(split_k=2, persistent=True, bm=64, consumers="pingpong"), ValueError,
     "consumers='cooperative'"),
    (dict(split_k=2, persistent=True, out="f32"), ValueError, "out='bf16'"),
    (dict(split_k=2, persistent=True, cluster=2), ValueError, "cluster=1"),
])
def test_split_k_refusals(kw, err, match):
    base = dict(bn=128, stages=6, cluster=1, epilogue="direct")
    with pytest.raises(err, match=match):
        gemm.Config(**{**base, **kw})


@pytest.mark.parametrize("name, bn", [("p1_144_ts", 144), ("p1_224_ts", 224)])
def test_tiles_past_the_last_tma_box_store_the_rest_directly(name, bn):
    c = _compile(gemm.Config(**schedule.CONFIG_KWARGS[name]))
    # bn // 64 TMA boxes per warpgroup, then the bn % 64 columns as bf16 pairs
    stores = re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta", c.ptx)
    assert len(stores) == bn // 64          # one code path for both warpgroups
    assert re.search(r"st\.global\.b32", c.ptx)
    # an N-major B loads whole 64-row chunks: no such build
    with pytest.raises(ValueError, match="64-row chunks"):
        gemm.Config(**schedule.CONFIG_KWARGS[name], b_major="MN")


def test_the_schedule_fills_the_last_wave_and_splits_k_where_tiles_are_few():
    # 1536^3: 132 tiles of 128 x 144; 5120^3: 920 of 128 x 224 (6.97 waves)
    assert shapes.tiles(1536, 1536, 128, 144, 1) == 132
    assert shapes.tiles(5120, 5120, 128, 224, 1) == 920
    assert schedule.config_for(1536, 1536, 1536) == "p1_144_ts"
    assert schedule.config_for(5120, 5120, 5120) == "p1_224_ts"
    # ... not with an N-major B (64-row chunks)
    assert schedule.config_for(1536, 1536, 1536, b_major="MN") == "p1_192_ts"
    assert schedule.config_for(5120, 5120, 5120, b_major="MN") == "pp_128x128_ts"
    # few tiles and a long K: split-K (measured, run 3: 0.78 and 0.81 of
    # cuBLAS against 0.60 and 0.74 unsplit)
    assert schedule.config_for(256, 1024, 8192) == "sk_128_k4"
    assert schedule.config_for(128, 2048, 4096) == "sk_128_k4"
    # M <= 256 at K 1024-2048: the 64-row ping-pong tiles, as measured
    expect = {(256, 4096, 1024): "pp_64x128_ts", (128, 8192, 1024): "pp_64x128_ts",
              (128, 4096, 2048): "pp_64x64_ts", (64, 4096, 1536): "pp_64x64_ts",
              (256, 2048, 2048): "pp_64x64_ts", (128, 1024, 2048): "pp_64x64_ts",
              (1024, 1024, 1024): "pp_64x128_ts"}
    for shape, name in expect.items():
        assert schedule.config_for(*shape) == name, shape
    # many tiles: never split
    for shape in [(4096, 4096, 4096), (8192, 8192, 1024), (2048, 2048, 2048),
                  (8192, 256, 8192), (256, 8192, 8192), (128, 8192, 8192)]:
        assert not schedule.config_for(*shape).startswith("sk_"), shape
