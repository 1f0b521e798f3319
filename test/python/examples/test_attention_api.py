"""attention.forward's torch-facing entry (examples/attention_parts/api.py)
without a GPU or torch: duck-typed fake tensors and a fake torch, the fake
CUDA driver of fake_cuda_driver.py with the calls the entry adds (pinned
memory, the asynchronous copy, tensor-map encoding). Bad input is a
ValueError before any driver call or allocation; the cubin cache compiles a
configuration once per source and compiler version; launches go on torch's
stream, synchronise nothing and copy a descriptor only for a layout not seen
before (inside a capture as an asynchronous copy, no allocation)."""
from __future__ import annotations

import ctypes
import importlib.util
import json
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from examples.attention_parts import api, schedule  # examples/: pytest's pythonpath

ROOT = Path(__file__).resolve().parents[3]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_fake = _load("fake_cuda_driver", ROOT / "test" / "python" / "runtime" / "fake_cuda_driver.py")
OK, FakeDriver = _fake.OK, _fake.FakeDriver

RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"


class Driver(FakeDriver):
    """FakeDriver with what the attention entry calls besides."""
    cuuint64_t = cuuint32_t = int
    CUtensorMapDataType = SimpleNamespace(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16=9)
    CUtensorMapInterleave = SimpleNamespace(CU_TENSOR_MAP_INTERLEAVE_NONE=0)
    CUtensorMapSwizzle = SimpleNamespace(CU_TENSOR_MAP_SWIZZLE_128B=3)
    CUtensorMapL2promotion = SimpleNamespace(CU_TENSOR_MAP_L2_PROMOTION_L2_128B=2)
    CUtensorMapFloatOOBfill = SimpleNamespace(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0)
    CUdevice_attribute = SimpleNamespace(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16)

    def __init__(self):
        super().__init__()
        self.host = []               # pinned allocations (kept alive)
        self.launches = []           # (grid, stream, the argument words)
        self.maps = []               # (address, dims, strides, box) encoded

    def cuMemHostAlloc(self, nbytes, flags):
        err = self._call("cuMemHostAlloc", nbytes)
        buf = ctypes.create_string_buffer(nbytes)
        self.host.append(buf)
        return err, ctypes.addressof(buf)

    def cuMemcpyHtoDAsync(self, dst, src, nbytes, stream):
        err = self._call("cuMemcpyHtoDAsync", dst, nbytes, stream)
        base = max(a for a in self.memory if a <= dst)
        self.memory[base][dst - base:dst - base + nbytes] = ctypes.string_at(src, nbytes)
        return (err,)

    def cuMemcpyHtoD(self, dst, src, nbytes):
        err = self._call("cuMemcpyHtoD", dst, nbytes)
        base = max(a for a in self.memory if a <= dst)
        self.memory[base][dst - base:dst - base + nbytes] = ctypes.string_at(src, nbytes)
        return (err,)

    def cuTensorMapEncodeTiled(self, dtype, rank, address, dims, strides, box, elem, *rest):
        self._call("cuTensorMapEncodeTiled", address)
        self.maps.append((address, list(dims), list(strides), list(box)))
        words = [len(self.maps), address] + list(dims) + list(strides) + [0] * 16
        return OK, SimpleNamespace(opaque=words[:16])

    def cuDeviceGetAttribute(self, attribute, device):
        return self._call("cuDeviceGetAttribute", attribute), 132

    def cuLaunchKernelEx(self, config, function, params, extra):
        words = []
        n = self.arg_count
        for i in range(n):
            p = ctypes.c_uint64.from_address(params + 8 * i).value
            words.append(ctypes.c_uint64.from_address(p).value)
        self.launches.append(((config.gridDimX,), config.hStream, words))
        return (self._call("cuLaunchKernelEx", function),)


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


BF16, F32, F16 = Dtype("bfloat16"), Dtype("float32"), Dtype("float16")
CUDA0 = SimpleNamespace(type="cuda", index=0)


class Tensor:
    """What the entry reads of a torch tensor."""
    _next = 0x7000_0000

    def __init__(self, shape, dtype=BF16, device=CUDA0, strides=None, ptr=None):
        self.shape = tuple(shape)
        self.dtype, self.device = dtype, device
        if strides is None:
            strides, acc = [], 1
            for n in reversed(self.shape):
                strides.insert(0, acc)
                acc *= n
        self._strides = tuple(strides)
        if ptr is None:
            ptr = Tensor._next
            Tensor._next += 1 << 24
        self._ptr = ptr

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def permute(self, *order):
        return Tensor([self.shape[i] for i in order], self.dtype, self.device,
                      [self._strides[i] for i in order], self._ptr)


class Torch:
    """torch.empty, the dtypes, the current stream and capture state."""
    bfloat16, float32 = BF16, F32

    def __init__(self):
        self.capturing = False
        self.allocated = []
        self.cuda = SimpleNamespace(
            current_stream=lambda device=None: SimpleNamespace(cuda_stream=0x5717),
            is_current_stream_capturing=lambda: self.capturing)

    def empty(self, shape, dtype, device):
        t = Tensor(shape, dtype, device)
        self.allocated.append(t)
        return t


def _load_runtime():
    spec = importlib.util.spec_from_file_location("mbarrier_runtime_attention_api", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fakes(monkeypatch):
    rt = _load_runtime()
    driver, torch = Driver(), Torch()
    monkeypatch.setattr(rt, "_driver", lambda: driver)
    monkeypatch.setattr(rt.atexit, "register", lambda fn: None)
    monkeypatch.setattr(api, "_runtime", rt)
    monkeypatch.setattr(api, "_torch", lambda: torch)
    return SimpleNamespace(rt=rt, driver=driver, torch=torch)


class FakeCompiler:
    """api.Compiler over a made-up source: counts what it builds."""

    def __init__(self, version="v1", source="kernel source"):
        self.source, self.built = source, 0
        self.compiler = api.Compiler(self.build, lambda: version)

    def build(self, fields):
        cfg = schedule.choose(fields["head_dim"], 1024, fields["causal"])
        entry = f"attn_d{fields['head_dim']}"
        launch = {"entry": entry, "threads": 384, "smem_bytes": 164864,
                  "block_m": fields.get("block_m", 128), "block_n": 128,
                  "epilogue": fields.get("epilogue", "direct"),
                  "persistent": fields.get("persistent", False)}
        assert cfg["head_dim"] == fields["head_dim"]

        def compile_cubin():
            self.built += 1
            return b"\x7fELF" + self.source.encode() + json.dumps(fields).encode()
        return self.source + json.dumps(fields, sort_keys=True), launch, compile_cubin


def qkv(b=2, h=4, s=1000, d=128, **kw):
    return [Tensor((b, h, s, d), **kw) for _ in range(3)]


# ---------------------------------------------------------------------------
# bad input: a ValueError, no CUDA call, no allocation
# ---------------------------------------------------------------------------

def _refused(fakes, tmp_path, match, q, k, v, causal=False, scale=None):
    fwd = api.Forward(api.Cache(tmp_path, FakeCompiler().compiler))
    with pytest.raises(ValueError, match=match):
        fwd(q, k, v, causal, scale)
    assert fakes.driver.calls == [] and fakes.torch.allocated == []
    assert not (tmp_path / "index.json").exists()       # nothing compiled either


@pytest.mark.parametrize("which", [0, 1, 2])
def test_dtype_is_refused_by_name(fakes, tmp_path, which):
    t = qkv()
    t[which] = Tensor(t[which].shape, dtype=F16)
    _refused(fakes, tmp_path, f"{'qkv'[which]} must be torch.bfloat16, got torch.float16", *t)


def test_device_rank_shape_head_dim_causal_scale(fakes, tmp_path):
    cpu = SimpleNamespace(type="cpu", index=None)
    q, k, v = qkv()
    _refused(fakes, tmp_path, "k must be on a CUDA device", q, Tensor(q.shape, device=cpu), v)
    _refused(fakes, tmp_path, r"v must be \[batch, heads, seq, head_dim\], got shape \(4, 1000, 128\)",
             q, k, Tensor((4, 1000, 128)))
    _refused(fakes, tmp_path, r"k has shape \(2, 4, 999, 128\), q \(2, 4, 1000, 128\)",
             q, Tensor((2, 4, 999, 128)), v)
    _refused(fakes, tmp_path, r"head_dim 96 is not supported", *qkv(d=96))
    _refused(fakes, tmp_path, r"head_dim 512 is not supported.*\(64, 128, 256\)", *qkv(d=512))
    _refused(fakes, tmp_path, "causal is a bool, got int", q, k, v, causal=1)
    _refused(fakes, tmp_path, "scale must be a positive finite number", q, k, v, scale=-0.1)
    _refused(fakes, tmp_path, "scale must be a positive finite number", q, k, v,
             scale=float("nan"))
    other = SimpleNamespace(type="cuda", index=1)
    _refused(fakes, tmp_path, "must be on cuda:0", *qkv(device=other))
    _refused(fakes, tmp_path, "q must be a torch tensor, got list", [1], k, v)


def test_layouts_without_a_tma_view_are_refused_by_name(fakes, tmp_path):
    q, k, v = qkv()
    # [b, s, h, d] permuted to [b, h, s, d]: no [b*h, s, d] view when b > 1
    bshd = Tensor((2, 1000, 4, 128)).permute(0, 2, 1, 3)
    _refused(fakes, tmp_path, r"q: strides \(512000, 128, 512, 1\) have no \[batch\*heads, seq, "
             r"head_dim\] view.*q.contiguous\(\)", bshd, k, v)
    # the head dim transposed
    hds = Tensor((2, 4, 128, 1000)).permute(0, 1, 3, 2)
    _refused(fakes, tmp_path, "v: the head dim must be contiguous", q, k, hds)
    # a broadcast (expanded) head: stride 0
    expand = Tensor((1, 4, 1000, 128), strides=(1000 * 128, 0, 128, 1))
    q1, _, v1 = qkv(b=1)
    _refused(fakes, tmp_path, r"k: the head stride \(0 elements, 0 bytes\) must be a positive "
             "multiple of 16 bytes", q1, expand, v1)
    # a row stride of 65 elements (130 bytes)
    odd = Tensor((2, 4, 1000, 64), strides=(4 * 65000, 65000, 65, 1))
    _refused(fakes, tmp_path, "q: the row stride \\(65 elements, 130 bytes\\)", odd,
             *qkv(d=64)[1:])
    _refused(fakes, tmp_path, "k: its data must start 16-byte aligned",
             q, Tensor(q.shape, ptr=0x7000_0008), v)


def test_strided_views_go_through_the_descriptors_strides():
    # a slice of the head dim of a wider tensor: strides (h s 3d, s 3d, 3d, 1)
    t = Tensor((2, 4, 1000, 128), strides=(4 * 1000 * 384, 1000 * 384, 384, 1))
    assert api.view3("q", t) == ((8, 1000, 128), (2 * 1000 * 384, 2 * 384, 2))
    # [b, s, h, d] permuted, b = 1: the head stride is d, the row stride h d
    bshd = Tensor((1, 1000, 4, 64)).permute(0, 2, 1, 3)
    assert api.view3("q", bshd) == ((4, 1000, 64), (2 * 64, 2 * 256, 2))
    # size-1 dimensions: any stride, the dense one in the descriptor
    one = Tensor((1, 1, 1, 64), strides=(7, 3, 5, 1))
    assert api.view3("q", one) == ((1, 1, 64), (128, 128, 2))


# ---------------------------------------------------------------------------
# the cubin cache
# ---------------------------------------------------------------------------

def test_cache_compiles_once_per_source_and_version(tmp_path):
    fields = schedule.choose(128, 4096, False)
    c1 = FakeCompiler()
    cubin, launch = api.Cache(tmp_path, c1.compiler).entry(fields)
    assert c1.built == 1 and cubin.startswith(b"\x7fELF")
    api.Cache(tmp_path, c1.compiler).entry(fields)          # a new process: on disk
    assert c1.built == 1
    c2 = FakeCompiler(version="v2")                          # another compiler: compiled again
    api.Cache(tmp_path, c2.compiler).entry(fields)
    c3 = FakeCompiler(source="edited kernel")                # another source: compiled again
    api.Cache(tmp_path, c3.compiler).entry(fields)
    assert (c2.built, c3.built) == (1, 1)
    assert len(list(tmp_path.glob("*.cubin"))) == 3
    # no compiler (the GPU machine): the newest entry of index.json
    got, got_launch = api.Cache(tmp_path, None).entry(fields)
    assert got.startswith(b"\x7fELFedited kernel") and got_launch == launch
    with pytest.raises(LookupError, match="no cached cubin .* and no compiler here"):
        api.Cache(tmp_path, None).entry(schedule.choose(64, 4096, True))
    api.clear_cache(tmp_path)
    assert not tmp_path.exists()


def test_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(api.CACHE_ENV, str(tmp_path / "c"))
    assert api.cache_dir() == tmp_path / "c"
    monkeypatch.delenv(api.CACHE_ENV)
    assert api.cache_dir() == Path.home() / ".cache" / "mbarrier-dialect" / "attention"


def test_cache_keys_the_real_kernels_source(tmp_path):
    """attention.kernel_for: the MLIR source of the configuration, the same
    for the same fields, another for other fields (no compile here)."""
    pytest.importorskip("mlir")
    from examples import attention
    a = attention.kernel_for(schedule.choose(128, 4096, False))
    b = attention.kernel_for(schedule.choose(128, 4096, False))
    c = attention.kernel_for(schedule.choose(128, 4096, True))
    assert a[0] == b[0] != c[0] and "gpu.module" in a[0]
    assert a[1]["entry"] == "attn_d128_m128n128_s2_pp_ts" and a[1]["smem_bytes"] == 164864


# ---------------------------------------------------------------------------
# launches: torch's stream, no synchronisation, descriptors written once
# ---------------------------------------------------------------------------

def _forward(fakes, tmp_path):
    return api.Forward(api.Cache(tmp_path, FakeCompiler().compiler))


def test_launch_arguments_and_no_sync(fakes, tmp_path):
    fwd = _forward(fakes, tmp_path)
    q, k, v = qkv(b=2, h=4, s=4096, d=128)               # config_for: the TMA-store epilogue
    fakes.driver.arg_count = 8
    o, lse = fwd(q, k, v, causal=False)
    assert o.shape == (2, 4, 4096, 128) and str(o.dtype) == "torch.bfloat16"
    assert lse.shape == (2, 4, 4096) and str(lse.dtype) == "torch.float32"
    names = fakes.driver.names()
    assert names.count("cuLaunchKernelEx") == 1
    assert not any("Synchronize" in n for n in names)
    assert names.count("cuMemcpyHtoD") == 4 and "cuMemcpyHtoDAsync" not in names
    (grid, stream, words), = fakes.driver.launches
    assert grid == (32 * 8,) and stream == 0x5717
    # q, k, v and o descriptors in 128-byte slots; o, lse, seq, scale_log2
    assert len({w for w in words[:3]} | {words[4]}) == 4
    assert all(w % 128 == 0 for w in words[:3])
    assert words[3] == o.data_ptr() and words[5] == lse.data_ptr()
    assert words[6] & 0xFFFFFFFF == 4096
    scale = struct.unpack("<f", struct.pack("<I", words[7] & 0xFFFFFFFF))[0]
    assert scale == pytest.approx(1 / 128 ** 0.5 * 1.4426950408889634, rel=1e-6)
    # the q map: [b h, s, d] with its byte strides, a (1, 128, 64) box, driver order
    assert fakes.driver.maps[0] == (q.data_ptr(), [128, 4096, 8], [2 * 128, 2 * 4096 * 128],
                                    [64, 128, 1])
    # again with the same tensors: only O's map is new (torch gave new O memory)
    fakes.driver.calls.clear()
    fwd(q, k, v)
    names = fakes.driver.names()
    assert names.count("cuMemcpyHtoD") == 1 and "cuMemAlloc" not in names
    assert "cuModuleLoadData" not in names and names.count("cuLaunchKernelEx") == 1


def test_capture_copies_asynchronously_and_allocates_nothing(fakes, tmp_path):
    fwd = _forward(fakes, tmp_path)
    fakes.driver.arg_count = 7
    q, k, v = qkv(b=1, h=2, s=20000, d=128)              # the direct epilogue: no O map
    fwd(q, k, v)                                          # warm-up: loads, a descriptor chunk
    fakes.driver.calls.clear()
    fakes.torch.capturing = True
    fwd(q, k, v)                                          # seen layouts: no copy at all
    assert fakes.driver.names() == ["cuFuncSetAttribute", "cuLaunchKernelEx"]
    q2 = Tensor(q.shape)
    fwd(q2, k, v)                                         # a new q inside the capture
    names = fakes.driver.names()
    assert "cuMemcpyHtoDAsync" in names and "cuMemcpyHtoD" not in names
    assert "cuMemAlloc" not in names and "cuMemHostAlloc" not in names
    assert ("cuMemcpyHtoDAsync", fakes.driver.launches[-1][2][0], 128, 0x5717) in \
        fakes.driver.calls
    # after the capture: q2's slot was written only by the graph (which may
    # never replay), so the next eager call copies it again, then not
    fakes.torch.capturing = False
    fakes.driver.calls.clear()
    fwd(q2, k, v)
    assert fakes.driver.names().count("cuMemcpyHtoD") == 1
    fakes.driver.calls.clear()
    fwd(q2, k, v)
    assert "cuMemcpyHtoD" not in fakes.driver.names()


def test_a_first_call_inside_a_capture_is_refused(fakes, tmp_path):
    fwd = _forward(fakes, tmp_path)
    fakes.driver.arg_count = 7
    fakes.torch.capturing = True
    with pytest.raises(RuntimeError, match="run the call once before capturing"):
        fwd(*qkv(b=1, h=2, s=20000, d=128))
    assert "cuMemAlloc" not in fakes.driver.names()


def test_persistent_grid_is_the_sms(fakes, tmp_path):
    fwd = _forward(fakes, tmp_path)
    fakes.driver.arg_count = 9
    q, k, v = qkv(b=2, h=16, s=1024, d=128)              # config_for: persistent below 4k
    assert schedule.choose(128, 1024, False)["persistent"]
    fwd(q, k, v)
    (grid, _, words), = fakes.driver.launches
    assert grid == (min(132, 8 * 32),)
    assert words[7] & 0xFFFFFFFF == 32                     # batch x heads


def test_a_repeated_launch_is_prepared_once(fakes, tmp_path):
    """Torch's caching allocator hands the same O and lse back: the second
    call with the same arguments only launches (no checks, no packing, no
    attribute call)."""
    fwd = _forward(fakes, tmp_path)
    fakes.driver.arg_count = 9
    pool = {}

    def empty(shape, dtype, device):
        return pool.setdefault((tuple(shape), str(dtype)), Tensor(shape, dtype, device))
    fakes.torch.empty = empty
    q, k, v = qkv(b=16, h=16, s=1024, d=64)
    fwd(q, k, v)
    fakes.driver.calls.clear()
    fwd(q, k, v)
    assert fakes.driver.names() == ["cuLaunchKernelEx"]
    assert fakes.driver.launches[0] == fakes.driver.launches[1]
    fwd(q, k, v, scale=0.5)                               # another scale: prepared anew
    assert fakes.driver.launches[2][2][8] != fakes.driver.launches[1][2][8]


def test_the_real_kernel_compiles_once_into_the_cache(tmp_path):
    """attention's own compiler through the cache: a cubin (ELF) and
    index.json's launch facts; a second Cache on the folder (a new process)
    finds it without compiling, and so does one without a compiler."""
    pytest.importorskip("mlir")
    import warnings

    from examples import attention
    fields = schedule.choose(64, 20000, True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # a checker warning fails the test
        first = api.Cache(tmp_path, attention._compiler())
        cubin, launch = first.entry(fields)
    assert first.compiled == 1 and cubin.startswith(b"\x7fELF")
    assert launch["entry"] == attention.Config(**fields).name
    assert launch["smem_bytes"] == attention.Config(**fields).smem_bytes
    again = api.Cache(tmp_path, attention._compiler())
    assert again.entry(fields)[0] == cubin and again.compiled == 0
    assert api.Cache(tmp_path, None).entry(fields) == (cubin, launch)
    row, = json.loads((tmp_path / "index.json").read_text()).values()
    assert row["cubin"].startswith(launch["entry"] + "-") and len(row["key"]) == 64
