"""The runtime as the device runners get it: runtime.py and the parts it
loads beside it (runtime.PARTS), copied into a folder of their own
(bench/harness.py copy_runtime, as the attention builders copy it) and
loaded by path in an interpreter where neither MLIR nor this package can be
imported."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path


from bench import harness

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "python" / "mbarrier_dialect"

# A fresh interpreter: `mlir`, `mbarrier_dialect` and the repository's own
# folders cannot be imported; it loads FOLDER/runtime.py by path and uses
# what the runners use of it.
LOAD_COPY = r"""
import importlib.abc, importlib.util, os, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mlir", "mbarrier_dialect", "bench"):
            raise ImportError(f"blocked import of {name}")
        return None

sys.meta_path.insert(0, Block())
folder = sys.argv[1]
spec = importlib.util.spec_from_file_location("mbarrier_runtime", os.path.join(folder, "runtime.py"))
rt = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = rt
spec.loader.exec_module(rt)
for name in ("init", "require_gpu", "check", "CudaError", "NoGPUError", "Module", "DeviceBuffer",
             "TensorMap", "encode_tensor_map_tiled", "tensor_map_arguments", "launch",
             "prepare_launch", "time_launch", "set_max_dynamic_shared_memory",
             "validate_launch_shape", "ClusterSizeError", "WaitTimeoutError",
             "DebugWaitReport", "debug_wait_lines", "debug_wait_sites", "barrier_state_text",
             "synchronize_reporting_waits", "DEBUG_WAITS_STATE", "DEBUG_WAIT_MARK"):
    getattr(rt, name)
for part in (rt._launch_shape, rt._tensor_map, rt._debug_waits):
    assert os.path.dirname(part.__file__) == folder, part.__file__
assert rt.validate_launch_shape((4,), (32,), (2,)) == ((4, 1, 1), (32, 1, 1), (2, 1, 1))
try:
    rt.validate_launch_shape((3,), (32,), (2,))
except ValueError as exc:
    assert "not a multiple of cluster" in str(exc), exc
else:
    raise AssertionError("a grid of 3 in clusters of 2 passed")
args = rt.tensor_map_arguments(1024, "float16", (64, 128), (64, 64), swizzle="128B")
assert args["global_dim"] == [128, 64] and args["box_dim"] == [64, 64], args
assert issubclass(rt.ClusterSizeError, ValueError) and issubclass(rt.WaitTimeoutError, rt.CudaError)
assert rt.DebugWaitReport.NBYTES == 64 + 64 * 64
assert not any(m.split(".")[0] in ("mlir", "mbarrier_dialect") for m in sys.modules)
print("ok")
"""


def _load_copy(folder) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LOAD_COPY, str(folder)], capture_output=True,
                          text=True, cwd=folder)


def test_the_copy_is_runtime_py_and_its_parts(tmp_path):
    copied = harness.copy_runtime(tmp_path)
    runtime = harness.load_runtime()
    assert sorted(os.path.basename(p) for p in copied) == sorted(
        ["runtime.py"] + [f"{name}.py" for name in runtime.PARTS])
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p) for p in copied)
    # Every module of the package that runtime.py loads is among them.
    assert {p.stem for p in PACKAGE.glob("runtime*.py")} == {"runtime", *runtime.PARTS}


def test_a_copied_runtime_imports_without_mlir_and_exposes_its_api(tmp_path):
    harness.copy_runtime(tmp_path)
    proc = _load_copy(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_a_copy_without_a_part_names_what_is_missing(tmp_path):
    harness.copy_runtime(tmp_path)
    (tmp_path / "runtime_tensor_map.py").unlink()
    proc = _load_copy(tmp_path)
    assert proc.returncode != 0
    assert "ImportError" in proc.stderr
    assert "needs runtime_tensor_map.py beside it: copy all of the runtime's files" in proc.stderr


def test_the_attention_runner_folder_holds_a_whole_runtime(tmp_path):
    """bench/attention/build.py's copy_runner, as it fills a device folder."""
    from bench.attention import build
    build.copy_runner(str(tmp_path))
    proc = _load_copy(tmp_path)
    assert proc.returncode == 0, proc.stderr


def _copies_of_runtime_py(path: Path) -> list[int]:
    """Lines of `path` that copy runtime.py by its name (not through copy_runtime)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("copy", "copy2", "copyfile") \
                and "runtime.py" in ast.unparse(node):
            lines.append(node.lineno)
    return lines


def test_no_builder_copies_runtime_py_alone():
    found = {}
    for folder in ("bench", "examples", "test/gpu", "tools"):
        for path in (ROOT / folder).rglob("*.py"):
            if "results" not in path.parts and (lines := _copies_of_runtime_py(path)):
                found[str(path.relative_to(ROOT))] = lines
    assert not found, f"copy the runtime with bench.harness.copy_runtime (it has parts): {found}"


def test_the_copy_check_sees_a_lone_copy(tmp_path):
    bad = tmp_path / "build.py"
    bad.write_text("import shutil\nshutil.copy('python/mbarrier_dialect/runtime.py', 'out')\n")
    assert _copies_of_runtime_py(bad) == [2]


def test_the_package_re_exports_its_parts():
    """Imported as mbarrier_dialect.runtime, the parts are the package's
    modules (one definition each), not copies loaded by path."""
    from mbarrier_dialect import runtime, runtime_debug_waits, runtime_launch_shape
    from mbarrier_dialect import runtime_tensor_map
    assert runtime.validate_launch_shape is runtime_launch_shape.validate_launch_shape
    assert runtime.ClusterSizeError is runtime_launch_shape.ClusterSizeError
    assert runtime.tensor_map_arguments is runtime_tensor_map.tensor_map_arguments
    assert runtime.debug_wait_sites is runtime_debug_waits.debug_wait_sites
    assert runtime.DEBUG_WAIT_MARK is runtime_debug_waits.DEBUG_WAIT_MARK
    assert [Path(f).name for f in runtime.files()] == [
        "runtime.py", "runtime_launch_shape.py", "runtime_tensor_map.py", "runtime_debug_waits.py"]
