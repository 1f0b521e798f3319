"""mbarrier_dialect: an MLIR dialect for NVIDIA mbarrier objects.

Barrier ownership is part of the IR: a barrier owned by another CTA of the
cluster is reached through a remote view whose arrivals lower to the
``shared::cluster`` instruction forms.
"""
from __future__ import annotations

import os as _os

__version__ = "0.1.0"

_HERE = _os.path.dirname(_os.path.abspath(__file__))


def plugin_path() -> str:
    """Path of the dialect+pass plugin for the stock ``mlir-opt``
    (``--load-dialect-plugin=`` and ``--load-pass-plugin=``)."""
    return _os.path.join(_HERE, "_lib", "libMBarrierPlugin.so")


def mbarrier_opt_path() -> str:
    """Path of the ``mbarrier-opt`` executable."""
    return _os.path.join(_HERE, "_bin", "mbarrier-opt")


def register_dialect(context=None, load: bool = True) -> None:
    """Register the mbarrier dialect (and its passes) with an ``ir.Context``."""
    from .dialects import mbarrier

    mbarrier.register_dialect(context, load)
    mbarrier.register_passes()


def __getattr__(name):
    # Heavy pieces load on first use, so `import mbarrier_dialect` stays cheap.
    if name in ("compile", "CompiledKernel", "CompiledModule", "CompileError"):
        from . import compiler

        return getattr(compiler, name)
    raise AttributeError(name)
