"""Tests of the MLIR-free runtime and the GPU manifest runner that need no GPU."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"
RUN_MANIFEST = ROOT / "test" / "gpu" / "run_manifest.py"


@pytest.fixture(scope="module")
def rt():
    spec = importlib.util.spec_from_file_location("mbarrier_runtime_under_test", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


@pytest.mark.parametrize("grid, block, cluster, message", [
    ((16,), (32,), (16,), "cluster of 16 CTAs exceeds the portable limit of 8"),
    ((8,), (32,), (4, 2, 2), "cluster of 16 CTAs exceeds the portable limit of 8"),
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
