"""Tests of the MLIR-free runtime and the GPU manifest runner that need no GPU."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"
RUN_MANIFEST = ROOT / "test" / "gpu" / "suite" / "run_manifest.py"


def _load_runtime(name: str):
    """runtime.py imported by path, as a module of its own."""
    spec = importlib.util.spec_from_file_location(name, RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rt():
    return _load_runtime("mbarrier_runtime_under_test")


def test_imports_without_mlir_or_the_package():
    # A fresh interpreter where `mlir` and `mbarrier_dialect` cannot be imported.
    code = f"""
import importlib.abc, importlib.util, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mlir", "mbarrier_dialect"):
            raise ImportError(f"blocked import of {{name}}")
        return None

sys.meta_path.insert(0, Block())
spec = importlib.util.spec_from_file_location("runtime", {str(RUNTIME)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for name in ("init", "Module", "DeviceBuffer", "launch", "time_launch", "check",
             "validate_launch_shape", "set_max_dynamic_shared_memory", "CudaError"):
    getattr(module, name)
assert not any(m.split(".")[0] in ("mlir", "mbarrier_dialect") for m in sys.modules)
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_shapes_are_padded(rt):
    assert rt.validate_launch_shape((4,), (32, 2), (2,)) == ((4, 1, 1), (32, 2, 1), (2, 1, 1))
    assert rt.validate_launch_shape([1, 1, 1], [1024]) == ((1, 1, 1), (1024, 1, 1), None)


def test_clusters_of_up_to_16_ctas_are_valid_shapes(rt):
    # 16 is the most a cluster can have (the verifier's limit too); more than
    # 8 is non-portable, which launch() handles.
    assert rt.validate_launch_shape((16,), (32,), (16,)) == ((16, 1, 1), (32, 1, 1), (16, 1, 1))
    assert rt.validate_launch_shape((8, 2, 2), (32,), (4, 2, 2))[2] == (4, 2, 2)


@pytest.mark.parametrize("grid, block, cluster, message", [
    ((17,), (32,), (17,), r"cluster of 17 CTAs exceeds the limit of 16 \(more than 8 is "
                          r"non-portable\)"),
    ((8, 4), (32,), (4, 2, 4), "cluster of 32 CTAs exceeds the limit of 16"),
    ((3,), (32,), (2,), r"grid \(3,1,1\) is not a multiple of cluster \(2,1,1\)"),
    ((0,), (32,), None, r"grid \(0,1,1\) has a dimension < 1"),
    ((1,), (32, 0), None, r"block \(32,0,1\) has a dimension < 1"),
    ((2,), (32,), (2, 0), r"cluster \(2,0,1\) has a dimension < 1"),
    ((1,), (1024, 2), None, "2048 threads, more than the limit of 1024"),
    ((1, 1, 1, 1), (32,), None, "1 to 3 dimensions"),
])
def test_bad_shapes(rt, grid, block, cluster, message):
    with pytest.raises(ValueError, match=message):
        rt.validate_launch_shape(grid, block, cluster)


def test_launch_validates_before_cuda(rt):
    # `function` is never used: both errors come before any CUDA call.
    with pytest.raises(ValueError, match="not a multiple of cluster"):
        rt.launch(None, grid=(3,), block=(32,), args=[], cluster=(2,))
    with pytest.raises(TypeError, match="kernel argument 0: expected a DeviceBuffer"):
        rt.launch(None, grid=(1,), block=(32,), args=[5])


def test_module_load_rejects_non_elf(rt):
    with pytest.raises(ValueError, match="not a cubin"):
        rt.Module.load(b"not an elf")


def test_check_unpacks_values(rt):
    from cuda.bindings import driver

    ok = driver.CUresult.CUDA_SUCCESS
    assert rt.check((ok,), "x") is None
    assert rt.check((ok, 7), "x") == 7
    assert rt.check((ok, 7, 8), "x") == (7, 8)


def _gpu_present() -> bool:
    from cuda.bindings import driver

    try:
        return driver.cuInit(0)[0] == driver.CUresult.CUDA_SUCCESS
    except RuntimeError:  # the driver library is missing
        return False


def test_run_manifest_skips_without_gpu(tmp_path):
    if _gpu_present():
        pytest.skip("a GPU is present: the no-GPU skip path cannot be exercised")
    np.save(tmp_path / "out.npy", np.zeros(4, np.int32))
    (tmp_path / "k.cubin").write_bytes(b"\x7fELF")
    manifest = {"kernels": [{
        "name": "k", "cubin": "k.cubin", "entry": "k", "grid": [1], "block": [32],
        "args": [{"kind": "buffer", "name": "out", "dtype": "int32", "shape": [4]}],
        "expect": {"out": {"npy": "out.npy"}}}]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    log = tmp_path / "log.txt"
    proc = subprocess.run([sys.executable, str(RUN_MANIFEST), str(tmp_path), "--log", str(log)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 77, proc.stdout + proc.stderr
    assert proc.stdout.startswith("SKIP: no usable GPU: ")
    assert len(proc.stdout.strip().splitlines()) == 1
    assert log.read_text() == proc.stdout


def test_run_manifest_rejects_bad_manifest(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"kernels": [{"name": "k"}]}))
    proc = subprocess.run([sys.executable, str(RUN_MANIFEST), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "lacks" in proc.stderr


# --------------------------------------------------------------------------
# With a stand-in driver (test/python/runtime/fake_cuda_driver.py): contexts, faults,
# non-portable clusters
# --------------------------------------------------------------------------

from fake_cuda_driver import CUresult, FakeDriver  # noqa: E402  (test/python: pytest's rootdir path)


@pytest.fixture
def fresh_rt():
    """A runtime module of its own (no context retained yet)."""
    return _load_runtime("mbarrier_runtime_fresh")


def _use(rt, monkeypatch, **kwargs) -> FakeDriver:
    fake = FakeDriver(**kwargs)
    monkeypatch.setattr(rt, "_driver", lambda: fake)
    monkeypatch.setattr(rt.atexit, "register", lambda fn: fake.calls.append(("atexit", fn)))
    return fake


def test_primary_context_is_retained_once_per_device(fresh_rt, monkeypatch):
    rt = fresh_rt
    fake = _use(rt, monkeypatch)
    for _ in range(3):
        assert rt.init(0) == "dev0"
    assert rt.init(1) == "dev1"
    assert rt.require_gpu(0) == "dev0"
    retains = [c for c in fake.calls if c[0] == "cuDevicePrimaryCtxRetain"]
    assert retains == [("cuDevicePrimaryCtxRetain", "dev0"), ("cuDevicePrimaryCtxRetain", "dev1")]
    assert fake.names().count("cuInit") == 2
    # every init makes its device's context current, the last one wins
    sets = [c[1] for c in fake.calls if c[0] == "cuCtxSetCurrent"]
    assert sets == ["ctx-dev0"] * 3 + ["ctx-dev1", "ctx-dev0"]
    # the release is registered once, at the first retain, and releases both
    (registered,) = [c[1] for c in fake.calls if c[0] == "atexit"]
    registered()
    releases = sorted(c[1] for c in fake.calls if c[0] == "cuDevicePrimaryCtxRelease")
    assert releases == ["dev0", "dev1"]
    assert rt._contexts == {}


def test_primary_context_is_released_at_exit(tmp_path):
    # A real interpreter exit, with the stand-in as cuda.bindings.driver.
    log = tmp_path / "calls.txt"
    code = f"""
import importlib.util, sys, types
fspec = importlib.util.spec_from_file_location(
    "fake_cuda_driver", {str(Path(__file__).resolve().parent / "fake_cuda_driver.py")!r})
fcd = importlib.util.module_from_spec(fspec)
fspec.loader.exec_module(fcd)
FakeDriver = fcd.FakeDriver
fake = FakeDriver(log=open({str(log)!r}, "w"))
cuda = types.ModuleType("cuda"); bindings = types.ModuleType("cuda.bindings")
cuda.bindings, bindings.driver = bindings, fake
sys.modules.update({{"cuda": cuda, "cuda.bindings": bindings, "cuda.bindings.driver": fake}})
spec = importlib.util.spec_from_file_location("runtime", {str(RUNTIME)!r})
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)
for _ in range(3):
    rt.init(0)
print("exiting", file=fake._log, flush=True)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    calls = [line.split()[0] for line in log.read_text().splitlines()]
    assert calls.count("cuDevicePrimaryCtxRetain") == 1
    assert calls[-2:] == ["exiting", "cuDevicePrimaryCtxRelease"]


def test_a_failing_free_does_not_stop_the_others(fresh_rt, monkeypatch):
    rt = fresh_rt
    fake = _use(rt, monkeypatch, fail={"cuMemFree": CUresult.CUDA_ERROR_INVALID_VALUE})
    bufs = [rt.DeviceBuffer.empty((4,), np.int32) for _ in range(3)]
    with pytest.raises(rt.CudaError, match="cuMemFree failed: CUDA_ERROR_INVALID_VALUE"):
        with contextlib.ExitStack() as stack:
            for b in bufs:
                stack.enter_context(b)
    assert fake.names().count("cuMemFree") == 3


def test_non_portable_cluster_is_allowed_and_checked(fresh_rt, monkeypatch):
    rt = fresh_rt
    fake = _use(rt, monkeypatch)
    rt.launch("fn:k", grid=(32,), block=(32,), args=[], cluster=(16,))
    names = fake.names()
    attr = rt._driver().CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    assert ("cuFuncSetAttribute", "fn:k", attr, 1) in fake.calls
    assert (names.index("cuFuncSetAttribute") < names.index("cuOccupancyMaxActiveClusters")
            < names.index("cuLaunchKernelEx"))
    assert ("cuLaunchKernelEx", "fn:k", (32, 1, 1), (16, 1, 1)) in fake.calls


def test_portable_cluster_asks_nothing_more(fresh_rt, monkeypatch):
    rt = fresh_rt
    fake = _use(rt, monkeypatch)
    rt.launch("fn:k", grid=(8,), block=(32,), args=[], cluster=(8,))
    assert "cuFuncSetAttribute" not in fake.names()
    assert "cuOccupancyMaxActiveClusters" not in fake.names()
    assert ("cuLaunchKernelEx", "fn:k", (8, 1, 1), (8, 1, 1)) in fake.calls


def test_a_cluster_the_device_cannot_hold_is_a_clear_error(fresh_rt, monkeypatch):
    rt = fresh_rt
    fake = _use(rt, monkeypatch, occupancy=0)
    with pytest.raises(rt.ClusterSizeError,
                       match=r"the device cannot run a cluster of 16 CTAs \(non-portable: more "
                             r"than 8\) of this kernel: cluster \(4,4,1\), block \(1024,1,1\), "
                             r"0 bytes"):
        rt.launch("fn:k", grid=(4, 4), block=(1024,), args=[], cluster=(4, 4))
    assert "cuLaunchKernelEx" not in fake.names()


def test_a_refused_cluster_launch_names_the_cluster_size(fresh_rt, monkeypatch):
    rt = fresh_rt
    _use(rt, monkeypatch, fail={"cuLaunchKernelEx": CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE})
    with pytest.raises(rt.CudaError, match=r"cuLaunchKernelEx \(a cluster of 16 CTAs\) failed: "
                                           r"CUDA_ERROR_INVALID_CLUSTER_SIZE"):
        rt.launch("fn:k", grid=(16,), block=(32,), args=[], cluster=(16,))
    _use(rt, monkeypatch, fail={"cuOccupancyMaxActiveClusters":
                                CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE})
    with pytest.raises(rt.CudaError, match=r"cuOccupancyMaxActiveClusters for a cluster of 16 "
                                           r"CTAs .* failed: CUDA_ERROR_INVALID_CLUSTER_SIZE"):
        rt.launch("fn:k", grid=(16,), block=(32,), args=[], cluster=(16,))


def test_a_prepared_launch_checks_and_packs_once_and_never_waits(fresh_rt, monkeypatch):
    """prepare_launch (the benchmarks' timing loops): the shape checks, the
    argument packing and a non-portable cluster's checks happen once, at
    preparation; each call of the result is one cuLaunchKernelEx and no
    synchronization."""
    rt = fresh_rt
    fake = _use(rt, monkeypatch)
    with pytest.raises(ValueError):          # checked before anything reaches the driver
        rt.prepare_launch("fn:k", grid=(0,), block=(32,), args=[])
    assert fake.calls == []
    issue = rt.prepare_launch("fn:k", grid=(32,), block=(32,), args=[np.int32(7)],
                              cluster=(16,))
    before = fake.names()
    assert before.count("cuOccupancyMaxActiveClusters") == 1 and "cuLaunchKernelEx" not in before
    for _ in range(3):
        issue()
    after = fake.names()[len(before):]
    assert after == ["cuLaunchKernelEx"] * 3
    assert ("cuLaunchKernelEx", "fn:k", (32, 1, 1), (16, 1, 1)) in fake.calls
