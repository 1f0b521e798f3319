"""matmul's operands swapped for a small N (examples/gemm.py's
``Config(store_transposed=True)``, gemm_parts/schedule.py's ``_t`` twins):
the kernel computes the N x M product C^T = B A^T, torch's ``b`` as its A and
``a`` as its B, and stores it transposed into the row-major M x N C: through
the TMA-store staging buffers written transposed (each 64 x 64 chunk a box
of C at (col0 + 64 j, row0)), or value by value where C's rows are not
16-byte aligned. The same kernels run 2-6 % faster with the small side as M
than as N (BENCHMARKS.md runs 3 and 4)."""
import re

import pytest

from examples import gemm
from bench.gemm import build as bench_build
from examples.gemm_parts import api, schedule
from examples.gemm_parts.epilogue import _staging_offset
from test_gemm import compiled  # build + compile, a checker warning fails
from test_gemm_matmul import FakeTensor, _prefilled, fake  # noqa: F401  (the fixture)


def unswizzle(offset: int) -> tuple[int, int]:
    """(row, column) of the bf16 at byte `offset` of a 64 x 64 box in the
    TMA's 128-byte swizzle (the 16-byte chunk bits 4-6 XORed with the row's
    bits 7-9), written independently of the epilogue's formula."""
    row, in_row = offset // 128, offset % 128
    chunk = (in_row // 16) ^ (row % 8)
    return row, (chunk * 16 + in_row % 16) // 2


@pytest.mark.parametrize("transposed", [False, True])
def test_every_accumulator_value_lands_at_its_box_place(transposed):
    """The m64nN fragment (value j of thread t: row 16 (t/32) + t%32/4 +
    8 (j/2%2), column 8 (j/4) + 2 (t%4) + j%2) of one 64-column chunk goes
    to (row, column) of C's box, or (column, row) transposed: all 4096 places,
    each once."""
    seen = {}
    for wtid in range(128):
        warp, lane = wtid // 32, wtid % 32
        swz = lane // 4
        for half in range(2):
            rr = warp * 16 + swz + 8 * half
            for jj in range(8):
                for e in range(2):
                    col = 8 * jj + 2 * (lane % 4) + e
                    off = _staging_offset(rr, jj, swz, lane, transposed, e)
                    if not transposed:
                        off += 2 * e       # the pair's second value: the next element
                    seen[unswizzle(off)] = (col, rr) if transposed else (rr, col)
    assert len(seen) == 64 * 64 and all(place == value for place, value in seen.items())


def test_the_schedule_swaps_the_operands_where_n_is_small():
    expect = {(8192, 64, 8192): "pp_64x64_ts_t", (8192, 128, 8192): "pp_64x128_ts_t",
              (8192, 256, 8192): "p1_128_ts_t",
              # the mirrors, and shapes outside the rule, are not swapped
              (64, 8192, 8192): "pp_64x64_ts", (256, 8192, 8192): "p1_128_ts",
              (512, 128, 8192): schedule.config_for(512, 128, 8192),
              (4096, 264, 4096): schedule.config_for(4096, 264, 4096)}
    for shape, name in expect.items():
        assert schedule.config_for(*shape) == name, shape
    assert not schedule.config_for(512, 128, 8192).endswith("_t")
    assert not schedule.config_for(4096, 264, 4096).endswith("_t")
    # only the built twins; none: not swapped
    assert schedule.config_for(8192, 128, 8192, available={"pp_64x64_ts_t"}) == "pp_64x64_ts_t"
    assert schedule.config_for(8192, 128, 8192, available={"pp_64x128_ts"}) == "pp_64x128_ts"


def test_a_swapped_configuration_takes_b_as_its_a():
    config = api.config_for_layout(8192, 128, 8192, "MN", "K", 132)
    assert config["store_transposed"] and (config["a_major"], config["b_major"]) == ("K", "MN")
    # an M-major a is the kernel's MN-major B: whole 64-row chunks
    assert api.builds("pp_64x64_ts_t", "MN", "K") and api.builds("pp_64x64_ts_t", "K", "MN")
    assert not api.builds("p1_144_ts", "K", "MN")


def test_matmul_launches_the_swapped_kernel_on_n_x_m(fake, tmp_path):  # noqa: F811
    """The kernel's A map is b's (N x K), its B map a's (M x K), C's map the
    M x N output as ever; the kernel's M and N are N and M."""
    M, N, K = 8192, 128, 1024
    a = FakeTensor((M, K))
    b = FakeTensor((N, K), ptr=0x7f0000200000).t()
    out = FakeTensor((M, N), ptr=0x7f0000300000)
    config = api.config_for_layout(M, N, K, "K", "K", 132)
    assert config["store_transposed"]
    cache = _prefilled(tmp_path, config, bm=64, b_box_rows=config["bn"])
    api.matmul(a, b, out, cache=cache)
    (pa, da, _, ba), (pb, db, _, bb), (pc, dc, _, bc) = fake.maps
    assert (pa, da, ba) == (b.data_ptr(), [K, N], [64, 64])
    assert (pb, db, bb) == (a.data_ptr(), [K, M], [64, config["bn"]])
    assert (pc, dc, bc) == (out.data_ptr(), [N, M], [64, 64])
    launches = [c for c in fake.calls if c[0] == "cuLaunchKernelEx"]
    tiles = (N // 64) * (M // config["bn"])
    assert launches[0][2] == (min(tiles, 132), 1, 1)


def test_the_transposed_store_writes_staging_value_by_value_and_boxes_at_col_row():
    c = compiled(**schedule.CONFIG_KWARGS["pp_64x128_ts_t"])
    plain = compiled(**schedule.CONFIG_KWARGS["pp_64x128_ts"])
    assert c.ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 2
    # 64 values a thread per 64 x 64 chunk... 32: one 2-byte store each
    assert len(re.findall(r"st\.shared\.b16", c.ptx)) >= 2 * 32
    assert not re.findall(r"st\.shared\.b16", plain.ptx)
    assert gemm.Config(**schedule.CONFIG_KWARGS["p1_128_ts_t"]).name.endswith("_ct")


def test_the_case_expects_c_transposed_and_the_manifest_has_the_twins():
    """The exact case of a swapped kernel (its M x N product, C its
    transpose: N x M, C's TMA map over N x M when M % 8 == 0)."""
    cfg = gemm.Config(**schedule.CONFIG_KWARGS["p1_128_ts_t"])
    case = gemm.case(136, 200, 72, cfg, seed=3, sms=4)
    assert case.expect["c"].shape == (200, 136)
    c_buf = next(x for x in case.args if x.get("kind") == "buffer" and x.get("name") == "c")
    assert list(c_buf["shape"]) == [200, 136]
    c_map = [x for x in case.args if x.get("kind") == "tensormap" and x.get("buffer") == "c"]
    assert [m["shape"] for m in c_map] == [[200, 136]]
    # M % 8 != 0: C's rows are not 16-byte aligned, no map of C (A's stands in)
    odd = gemm.case(130, 200, 72, cfg, seed=3, sms=4)
    assert not [x for x in odd.args if x.get("kind") == "tensormap" and x.get("buffer") == "c"]
    names = {name for name, *_ in bench_build.EXACT}
    assert {"pp_64x128_ts_t", "p1_128_ts_t", "pp_64x64_ts_t", "pp_128x128_ts_t"} <= names


def test_store_transposed_rules():
    with pytest.raises(TypeError, match="store_transposed is a bool"):
        gemm.Config(store_transposed=1)
    with pytest.raises(ValueError, match="store_transposed takes split_k=1"):
        gemm.Config(**{**schedule.CONFIG_KWARGS["sk_128_k2"], "store_transposed": True})
