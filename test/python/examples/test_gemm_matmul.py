"""examples/gemm.py's torch entry, ``matmul`` (gemm_parts/api.py), and the
four operand layouts (gemm_parts/layouts.py), without a GPU or torch: fake
tensors (shape, stride(), data_ptr(), dtype, device) and the stand-in
driver of test/python/runtime/fake_cuda_driver.py, extended with the tensor-map and device
calls. A layout the kernel cannot take is a ValueError before any CUDA
call; a layout it can take is launched with tensor maps of that layout,
made once and reused (what a CUDA-graph capture needs); a configuration is
compiled once per cache."""
import importlib.util
import json
import re
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from examples.gemm_parts import api, layouts, schedule

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def _fake_cuda_driver():
    """The runtime tests' stand-in driver (test/python/runtime/), by path:
    pytest puts a test module's own folder on the path, not its
    neighbours'. One module object under its own name, whoever loads it
    first."""
    module = sys.modules.get("fake_cuda_driver")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "fake_cuda_driver", ROOT / "test" / "python" / "runtime" / "fake_cuda_driver.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


FakeDriver = _fake_cuda_driver().FakeDriver


class FakeTensor:
    """What matmul reads of a torch tensor. `storage`: elements behind the
    start, so that a view's strides stay within its allocation."""

    def __init__(self, shape, strides=None, ptr=0x7f0000000000, dtype="torch.bfloat16"):
        self.shape = tuple(shape)
        self._strides = tuple(strides) if strides else (shape[1], 1)
        self._ptr = ptr
        self.dtype = dtype
        self.device = SimpleNamespace(type="cuda")

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def t(self):
        return FakeTensor(self.shape[::-1], self._strides[::-1], self._ptr, self.dtype)


class TmaDriver(FakeDriver):
    """FakeDriver plus cuTensorMapEncodeTiled (recording its dimensions and
    strides) and the device attributes."""
    CUtensorMapDataType = SimpleNamespace(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16=9)
    CUtensorMapInterleave = SimpleNamespace(CU_TENSOR_MAP_INTERLEAVE_NONE=0)
    CUtensorMapSwizzle = SimpleNamespace(**{f"CU_TENSOR_MAP_SWIZZLE_{s}": i for i, s in
                                            enumerate(("NONE", "32B", "64B", "128B"))})
    CUtensorMapL2promotion = SimpleNamespace(**{f"CU_TENSOR_MAP_L2_PROMOTION_{s}": i for i, s in
                                                enumerate(("NONE", "L2_64B", "L2_128B",
                                                           "L2_256B"))})
    CUtensorMapFloatOOBfill = SimpleNamespace(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0,
                                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA=1)
    CUdevice_attribute = SimpleNamespace(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16)
    cuuint64_t = cuuint32_t = int

    def cuTensorMapEncodeTiled(self, dtype, rank, ptr, dims, strides, box, elem, *rest):
        self.maps = getattr(self, "maps", []) + [(ptr, list(dims), list(strides), list(box))]
        return self._call("cuTensorMapEncodeTiled"), SimpleNamespace(opaque=[0] * 16)

    def cuDeviceGetAttribute(self, attr, device):
        return self._call("cuDeviceGetAttribute"), 132


def _load_runtime(name):
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "python" / "mbarrier_dialect" / "runtime.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake(monkeypatch):
    rt = _load_runtime("mbarrier_runtime_matmul")
    driver = TmaDriver()
    monkeypatch.setattr(rt, "_driver", lambda: driver)
    monkeypatch.setattr(rt.atexit, "register", lambda fn: None)
    api.use_runtime(rt)
    api.clear()
    yield driver
    api.clear()
    api.use_runtime(None)


def _prefilled(tmp_path, config, **meta_fields):
    """A cache holding a stand-in build of `config` (what the compiler
    would write; `meta_fields` over the defaults), for a machine without MLIR."""
    cache = api.KernelCache(tmp_path, compiler=None)
    folder = tmp_path / api.source_digest(config)
    folder.mkdir(parents=True)
    bm = config.get("bm", 128)
    meta = {"entry": "gemm_fake", "config": config, "bm": bm, "bn": config["bn"], "cluster": 1,
            "persistent": True, "epilogue": "tma", "out": "bf16", "b_box_rows": config["bn"],
            "threads": 384, "smem_bytes": 200000, "a_major": config["a_major"],
            "b_major": config["b_major"], **meta_fields}
    (folder / "fakecc.json").write_text(json.dumps(meta))
    (folder / "fakecc.cubin").write_bytes(b"\x7fELF stand-in")
    return cache


# -- the stride rules: ValueError, no CUDA call --------------------------------------

@pytest.mark.parametrize("make, match", [
    # a transposed A in a K-major-only world used to give relative error 1.41;
    # here every refusal names its rule.
    (lambda: (FakeTensor((64, 64), (2, 128)), FakeTensor((64, 64))), "neither of its dimensions"),
    (lambda: (FakeTensor((100, 64), (1, 100)), FakeTensor((64, 64))), "multiple of 8"),
    (lambda: (FakeTensor((64, 64), (60, 1)), FakeTensor((64, 64))), "below the contiguous"),
    (lambda: (FakeTensor((64, 64), ptr=0x7f0000000008), FakeTensor((64, 64))), "16-byte"),
    (lambda: (FakeTensor((64, 64), dtype="torch.float16"), FakeTensor((64, 64))), "bfloat16"),
    (lambda: (FakeTensor((64, 64)), FakeTensor((72, 64))), "inner dimensions"),
    (lambda: (FakeTensor((64, 60)), FakeTensor((60, 64))), "multiple of 8"),
    (lambda: (FakeTensor((64, 64)), FakeTensor((64, 64), (0, 1))), "below the contiguous"),
])
def test_a_layout_it_cannot_take_is_refused_before_any_cuda_call(fake, make, match):
    a, b = make()
    with pytest.raises(ValueError, match=match):
        api.matmul(a, b, FakeTensor((a.shape[0], b.shape[1])))
    assert fake.calls == []


@pytest.mark.parametrize("out, match", [
    (FakeTensor((64, 64), (1, 64)), "row-major"),
    (FakeTensor((64, 32)), "64 x 64 bfloat16"),
    (FakeTensor((64, 64), ptr=0x7f0000000004), "16-byte"),
])
def test_an_out_it_cannot_write_is_refused_before_any_cuda_call(fake, out, match):
    with pytest.raises(ValueError, match=match):
        api.matmul(FakeTensor((64, 64)), FakeTensor((64, 64)), out)
    assert fake.calls == []


def test_the_four_layouts_and_padded_leading_dimensions():
    op = layouts.operand
    assert op("a", (100, 64), (64, 1), 0, k_dim=1).major == "K"
    assert op("a", (100, 64), (1, 104), 0, k_dim=1) == layouts.Operand("a", 100, 64, "MN", 104, 0)
    # b (K x N): column-major is K-major (a Linear weight's .t()), row-major N-major
    assert op("b", (64, 100), (1, 72), 0, k_dim=0) == layouts.Operand("b", 100, 64, "K", 72, 0)
    assert op("b", (64, 96), (96, 1), 0, k_dim=0).major == "MN"
    # an extent of 1 has no stride that matters
    assert op("a", (1, 64), (1, 1), 0, k_dim=1).major == "K"
    mn = layouts.Operand("a", 100, 64, "MN", 104, 0)
    assert mn.map_shape() == (64, 100) and mn.map_strides() == (208, 2)
    assert mn.box(128) == (64, 64) and mn.extent_bytes() == (63 * 104 + 100) * 2
    assert layouts.Operand("a", 100, 64, "K", 64, 0).box(128) == (128, 64)


# -- launching (stand-in driver and cache) ---------------------------------------------

@pytest.mark.parametrize("a_major, b_major", [("K", "K"), ("K", "MN"), ("MN", "K"),
                                              ("MN", "MN")])
def test_matmul_launches_the_layouts_build_once_prepared(fake, tmp_path, a_major, b_major):
    M, N, K = 256, 512, 192
    a = FakeTensor((M, K)) if a_major == "K" else FakeTensor((K, M), ptr=0x7f0000100000).t()
    b = FakeTensor((N, K), ptr=0x7f0000200000).t() if b_major == "K" else \
        FakeTensor((K, N), ptr=0x7f0000200000)
    out = FakeTensor((M, N), ptr=0x7f0000300000)
    config = api.config_for_layout(M, N, K, a_major, b_major, 132)
    assert config["a_major"] == a_major and config["b_major"] == b_major
    cache = _prefilled(tmp_path, config)
    assert api.matmul(a, b, out, cache=cache) is out
    launches = [c for c in fake.calls if c[0] == "cuLaunchKernelEx"]
    assert len(launches) == 1 and launches[0][1] == "fn:gemm_fake"
    # A's map: (M, K) K-major, or (K, M) M-major, in the driver's order
    # (innermost first), boxes of bm x 64 or 64 x 64; C's map last.
    (pa, da, sa, ba), (pb, db, sb, bb), (pc, dc, _, bc) = fake.maps
    assert (da, sa) == (([K, M], [K * 2]) if a_major == "K" else ([M, K], [M * 2]))
    assert ba == ([64, config.get("bm", 128)] if a_major == "K" else [64, 64])
    assert (db, sb) == (([K, N], [K * 2]) if b_major == "K" else ([N, K], [N * 2]))
    assert bb == ([64, config["bn"]] if b_major == "K" else [64, 64])
    assert (pc, dc, bc) == (out.data_ptr(), [N, M], [64, 64])
    # The same tensors again: only the launch (no map, no allocation, no
    # copy, no device query): what a call during CUDA-graph capture may do.
    before = len(fake.calls)
    api.matmul(a, b, out, cache=cache)
    assert [c[0] for c in fake.calls[before:]] == ["cuLaunchKernelEx"]
    # ... but the same address with other strides is checked again.
    strided = FakeTensor(a.shape, (2, 2 * M), a.data_ptr())
    with pytest.raises(ValueError, match="neither of its dimensions"):
        api.matmul(strided, b, out, cache=cache)


def test_split_k_launches_the_gemm_into_a_workspace_then_the_reduction(fake, tmp_path):
    """matmul with a split-K configuration (gemm_parts/splitk.py): one f32
    workspace of S slices allocated on the first call, then per call two
    launches in stream order, the GEMM (its grid: the work units, at most
    one CTA per SM) and the reduction (its grid: C's elements, 1024 per
    CTA); no allocation on later calls (a CUDA graph may capture them)."""
    M, N, K = 257, 1031, 1032
    config = {**schedule.CONFIG_KWARGS["sk_128_k3"], "a_major": "K", "b_major": "K"}
    cache = _prefilled(tmp_path, config, split_k=3, epilogue="direct")
    reduce = tmp_path / api.source_digest(api.reduce_config(3))
    reduce.mkdir(parents=True)
    (reduce / "fakecc.json").write_text(json.dumps({"entry": "reduce_fake", "threads": 256}))
    (reduce / "fakecc.cubin").write_bytes(b"\x7fELF stand-in")
    a, b = FakeTensor((M, K)), FakeTensor((N, K), ptr=0x7f0000200000).t()
    out = FakeTensor((M, N), ptr=0x7f0000300000)
    api.matmul(a, b, out, cache=cache, config="sk_128_k3")
    allocs = [c[1] for c in fake.calls if c[0] == "cuMemAlloc" and c[1] != 128]   # not a map
    assert allocs == [3 * (-(-(M * N) // 8) * 8) * 4]
    launches = [c for c in fake.calls if c[0] == "cuLaunchKernelEx"]
    tiles = 3 * 9                                  # 128 x 128 tiles: 3 x 9, x 3 slices
    assert launches == [("cuLaunchKernelEx", "fn:gemm_fake", (min(tiles * 3, 132), 1, 1), None),
                        ("cuLaunchKernelEx", "fn:reduce_fake", (-(-(M * N) // 1024), 1, 1),
                         None)]
    assert len(fake.maps) == 2                     # A and B: the partials need no TMA map
    before = len(fake.calls)
    api.matmul(a, b, out, cache=cache, config="sk_128_k3")
    assert [c[0] for c in fake.calls[before:]] == ["cuLaunchKernelEx"] * 2
    api.clear()                                    # frees the workspace
    assert [c[0] for c in fake.calls].count("cuMemFree") >= 1


def test_a_cache_without_the_build_names_the_fill_command(fake, tmp_path):
    with pytest.raises(RuntimeError, match="--fill"):
        api.matmul(FakeTensor((64, 64)), FakeTensor((64, 64)), FakeTensor((64, 64)),
                   cache=api.KernelCache(tmp_path, compiler=None))


def test_the_schedule_has_a_configuration_for_every_candidate():
    assert {c.name for c in schedule.CANDIDATES} <= set(schedule.CONFIG_KWARGS)


# -- the cache (compiles: needs MLIR) ---------------------------------------------------

def test_a_configuration_is_compiled_once_per_cache_and_keyed_by_its_source(tmp_path):
    pytest.importorskip("mlir")
    config = {**schedule.CONFIG_KWARGS["p1_128_ts"], "a_major": "MN", "b_major": "K"}
    first = api.KernelCache(tmp_path)
    meta, cubin = first.get(config)
    assert first.compiled == 1 and cubin and meta["entry"].endswith("_aMN_bK")
    again = api.KernelCache(tmp_path)
    assert again.get(config) == (meta, cubin) and again.compiled == 0
    # Another configuration, another build; the machine without a compiler
    # takes the one build of this source.
    assert api.source_digest({**config, "b_major": "MN"}) != api.source_digest(config)
    assert api.KernelCache(tmp_path, compiler=None).get(config)[1] == cubin


# -- the kernel in the four layouts ---------------------------------------------------

@pytest.mark.parametrize("a_major, b_major", [("K", "MN"), ("MN", "K"), ("MN", "MN")])
def test_the_layouts_set_the_transpose_bits_and_load_64_wide_boxes(a_major, b_major):
    pytest.importorskip("mlir")
    from examples import gemm
    cfg = gemm.Config(bn=256, stages=4, cluster=1, persistent=True, epilogue="tma",
                      a_major=a_major, b_major=b_major)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a checker warning fails the test
        c = gemm.build(cfg=cfg).compile()
    assert c.warnings == []
    # imm-trans-a, imm-trans-b: the last two immediates of every wgmma
    trans = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16"
                           r"[^;]*, (\d),\s+(\d);", c.ptx))
    assert trans == {(str(int(a_major == "MN")), str(int(b_major == "MN")))}
    # TMA loads: A one box (K-major) or 2 (128 M-major rows in 64-wide
    # boxes), B one or 4; plus the C store.
    loads = len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global", c.ptx))
    assert loads == (1 if a_major == "K" else 2) + (1 if b_major == "K" else 4)


def test_an_n_major_b_needs_64_row_chunks():
    pytest.importorskip("mlir")
    from examples import gemm
    with pytest.raises(ValueError, match="64-row chunks"):
        gemm.Config(bn=192, cluster=2, b_major="MN")
    with pytest.raises(ValueError, match="'K' or 'MN'"):
        gemm.Config(a_major="M")


# -- the benchmark's launcher (bench/gemm/run.py) checks strides too ---------------------

def test_the_benchmark_launcher_refuses_a_transposed_a_before_any_cuda_call(fake):
    """Issue 32: a transposed A passed to run.py's launcher gave relative
    error 1.41; now a layout the configuration was not built for is a
    ValueError, and so is a stride of neither layout."""
    spec = importlib.util.spec_from_file_location("gemm_bench_run", ROOT / "bench" / "gemm" /
                                                  "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    ours = object.__new__(run.Ours)
    ours.rt, ours.maps = api.runtime(), []
    ours.cfg = {"name": "p1_256_ts", "bm": 128, "bn": 256, "b_box_rows": 256, "cluster": 1}
    a_t = FakeTensor((256, 128)).t()          # M x K, M contiguous
    b = FakeTensor((256, 128), ptr=0x7f0000200000)
    c = FakeTensor((128, 256), ptr=0x7f0000300000)
    with pytest.raises(ValueError, match="takes a K-major a, got a MN-major one"):
        ours.prepare(a_t, b, c)
    with pytest.raises(ValueError, match="neither of its dimensions"):
        ours.prepare(FakeTensor((128, 128), (2, 512)), b, c)
    with pytest.raises(ValueError, match="dense row-major"):
        ours.prepare(FakeTensor((128, 128)), FakeTensor((256, 128)), FakeTensor((256, 128)).t())
    assert fake.calls == []
