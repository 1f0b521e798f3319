"""Find and run ``ptxas`` (from ``nvidia-cuda-nvcc-cu12``, then ``PATH``).

Kept free of MLIR so that tools which only assemble PTX can use it.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile


class PtxasError(RuntimeError):
    """ptxas is missing, or rejected the PTX (its message is included)."""


def find_ptxas() -> str:
    """The ptxas of the installed ``nvidia-cuda-nvcc-cu12`` package, else the
    one on ``PATH``; raises :class:`PtxasError` when neither exists."""
    spec = importlib.util.find_spec("nvidia")
    for root in list(spec.submodule_search_locations) if spec else []:
        candidate = os.path.join(root, "cuda_nvcc", "bin", "ptxas")
        if os.access(candidate, os.X_OK):
            return candidate
    on_path = shutil.which("ptxas")
    if on_path:
        return on_path
    raise PtxasError(
        "ptxas not found: install nvidia-cuda-nvcc-cu12 (a dependency of "
        "mbarrier-dialect) or put a CUDA toolkit's ptxas on PATH"
    )


def assemble(ptx: str, chip: str, opt_level: int = 3) -> bytes:
    """Assemble PTX text into a cubin for ``chip`` (e.g. ``sm_90``)."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory(prefix="mbarrier-ptxas-") as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        out = os.path.join(tmp, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run(
            [ptxas, f"-arch={chip}", f"-O{opt_level}", src, "-o", out],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise PtxasError(
                f"ptxas rejected the PTX for {chip} (exit {proc.returncode}):\n"
                + (proc.stderr or proc.stdout).strip()
            )
        with open(out, "rb") as f:
            return f.read()
