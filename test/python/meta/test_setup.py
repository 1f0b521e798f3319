"""The set-up: a second `pip install` in the same clone reuses the build
(tools/stable_build_deps.py gives CMake stable copies of the packages pip's
isolated build environment installs afresh each time), and the README lists
what the build needs."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "tools" / "stable_build_deps.py"


def _deps():
    spec = importlib.util.spec_from_file_location("stable_build_deps", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _environment(root: Path, header: str = "int x;") -> Path:
    """An isolated build environment as pip makes one: site-packages with an
    mlir package (headers, CMake files, libraries, tools) and its dist-info."""
    site = root / "site-packages"
    files = {"mlir/include/mlir/IR/Op.h": header,
             "mlir/lib/cmake/mlir/MLIRConfig.cmake": "set(MLIR_FOUND 1)",
             "mlir/lib/libMLIR.so": "a library", "mlir/lib/libMLIRIR.a": "an archive",
             "mlir/bin/mlir-tblgen": "tblgen", "mlir/bin/mlir-opt": "opt",
             "mlir/_mlir_libs/libMLIRPythonCAPI.so": "capi",
             "xtc_mlir_dev-22.1.8.4.dist-info/RECORD": ""}
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site / "mlir"


def _run(dest: Path, source: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(dest), f"mlir={source}"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(dest / "mlir")


def test_a_new_environment_of_the_same_packages_keeps_the_mirror(tmp_path):
    dest = tmp_path / "build" / "_deps"
    first = _environment(tmp_path / "env1")
    _run(dest, first)
    header = dest / "mlir/include/mlir/IR/Op.h"
    before = header.stat()
    second = _environment(tmp_path / "env2")          # newer files, the same packages
    os.utime(second / "include/mlir/IR/Op.h", (before.st_mtime + 100,) * 2)
    _run(dest, second)
    after = header.stat()
    # the headers ninja compiles against: the same path, inode and time stamp
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert header.read_text() == "int x;"
    # CMake's files are real files (MLIRConfig.cmake takes its REALPATH)
    config = dest / "mlir/lib/cmake/mlir/MLIRConfig.cmake"
    assert config.is_file() and not config.is_symlink()
    assert (dest / "mlir/bin/mlir-tblgen").is_file() and not (dest / "mlir/bin/mlir-tblgen").is_symlink()
    # what is linked, or run, points into the newest environment
    for name in ("lib/libMLIR.so", "lib/libMLIRIR.a", "bin/mlir-opt", "_mlir_libs"):
        link = dest / "mlir" / name
        assert link.is_symlink() and Path(os.readlink(link)) == second / name, name


def test_changed_packages_are_mirrored_again(tmp_path):
    dest = tmp_path / "_deps"
    _run(dest, _environment(tmp_path / "env1"))
    newer = _environment(tmp_path / "env2", header="int x; int y;")
    _run(dest, newer)
    header = dest / "mlir/include/mlir/IR/Op.h"
    assert header.read_text() == "int x; int y;"
    assert header.stat().st_ino == (newer / "include/mlir/IR/Op.h").stat().st_ino  # a hard link


def test_the_fingerprint_names_the_distributions(tmp_path):
    source = _environment(tmp_path / "env")
    found = _deps().fingerprint(source, _deps().MIRRORED["mlir"])
    assert found["distributions"] == ["xtc_mlir_dev-22.1.8.4.dist-info"]
    assert ["include/mlir/IR/Op.h", len("int x;")] in found["files"]
    assert not any(name.startswith("lib/libMLIR") for name, _ in found["files"])
    # bytecode that pip writes into a venv but not into its build environment
    # does not make the same package another one
    whole = _deps().fingerprint(source, None)
    (source / "lib" / "__pycache__").mkdir()
    (source / "lib" / "__pycache__" / "x.cpython-311.pyc").write_text("bytecode")
    assert _deps().fingerprint(source, None) == whole


def test_the_build_folder_compiles_against_the_mirror():
    caches = sorted(ROOT.glob("build/*/CMakeCache.txt"))
    if not caches:
        pytest.skip("no build folder here (the package was not built in this clone)")
    for cache in caches:
        text = cache.read_text()
        deps = str(cache.parent / "_deps")
        for var in ("MLIR_DIR", "LLVM_DIR", "MLIR_TABLEGEN_EXE"):
            found = re.search(rf"^{var}:\w+=(.*)$", text, re.M)
            assert found and found.group(1).startswith(deps), (var, found and found.group(1))


def test_the_readme_lists_every_prerequisite():
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set-up"):readme.index("## Using it")]
    for needed in ("Python ≥ 3.10", "venv", "C++17 compiler", "git"):
        assert needed in setup, needed
