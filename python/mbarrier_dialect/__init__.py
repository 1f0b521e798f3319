"""mbarrier_dialect: an MLIR dialect for NVIDIA mbarrier objects.

Barrier ownership is part of the IR: a barrier owned by another CTA of the
cluster is reached through a remote view whose arrivals lower to the
``shared::cluster`` instruction forms.

- ``compile(module, chip=...)``: mbarrier IR -> PTX -> cubin (a
  ``CompiledKernel``; ``.launch(...)`` runs it where a GPU is present);
  ``mbarrier_dialect.compiler`` (compile), ``.launch`` (launch),
  ``.errors`` (``CompileError``, ``SyncCheckWarning``), ``.cli`` (the
  ``mbarrier-compile`` command line, also ``python -m mbarrier_dialect``).
- ``mbarrier_dialect.lang``: the Python frontend (kernels, values with
  operators, control flow, barriers); guide in docs/lang.md.
- ``mbarrier_dialect.dialects.mbarrier``: the op classes.
- ``mbarrier_dialect.runtime``: load and launch cubins (no MLIR needed).
- ``mbarrier_dialect.manifest``: kernels + inputs + expected outputs as a
  manifest that test/gpu/suite/run_manifest.py runs on a GPU machine.
"""
from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlir import ir

__version__ = "0.1.0"

_HERE = _os.path.dirname(_os.path.abspath(__file__))


def plugin_path() -> str:
    """Path of the dialect+pass plugin for the stock ``mlir-opt``
    (``--load-dialect-plugin=`` and ``--load-pass-plugin=``)."""
    return _os.path.join(_HERE, "_lib", "libMBarrierPlugin.so")


def mbarrier_opt_path() -> str:
    """Path of the ``mbarrier-opt`` executable."""
    return _os.path.join(_HERE, "_bin", "mbarrier-opt")


def register_dialect(context: "ir.Context | None" = None, load: bool = True) -> None:
    """Register the mbarrier dialect (and its passes) with an ``ir.Context``."""
    from .dialects import mbarrier

    mbarrier.register_dialect(context, load)
    mbarrier.register_passes()


_LAZY = ("compile", "CompiledKernel", "CompiledModule", "CompileError", "SyncCheckWarning")

__all__ = ["compile", "CompiledKernel", "CompiledModule", "CompileError", "SyncCheckWarning",
           "register_dialect",
           "plugin_path", "mbarrier_opt_path"]


def __getattr__(name: str):
    """The compiler's names, imported on first use (so that ``import
    mbarrier_dialect`` stays cheap)."""
    if name in _LAZY:
        from . import compiler

        return getattr(compiler, name)
    raise AttributeError(f"module 'mbarrier_dialect' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones included (so ``help()``
    shows ``compile``)."""
    return sorted(set(globals()) | set(_LAZY))
