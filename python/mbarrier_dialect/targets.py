"""What the NVPTX backend of this process knows, asked of the backend itself.

    >>> from mbarrier_dialect import targets
    >>> "sm_90" in targets.chips()
    True
    >>> targets.min_ptx_version("sm_90")   # PTX ISA 7.8
    78

The pipeline validates chips and ``+ptxNN`` features against the same tables
(``mbarrier-attach-target``); these functions let a frontend or a test
enumerate them.
"""
from __future__ import annotations

from ._mbarrierDialects import mbarrier as _native

__all__ = ["chips", "ptx_versions", "min_ptx_version", "nvvm_target_chip"]


def chips() -> list[str]:
    """The chips (``sm_*`` processors) the NVPTX backend knows."""
    return list(_native.nvptx_chips())


def ptx_versions() -> list[int]:
    """The PTX ISA versions (x10, e.g. ``86`` for 8.6) the backend knows."""
    return list(_native.nvptx_ptx_versions())


def min_ptx_version(chip: str) -> int | None:
    """The PTX ISA version (x10) the backend emits for ``chip`` with no
    ``+ptxNN`` feature (the chip's minimum); ``None`` for an unknown chip."""
    return _native.nvptx_min_ptx_version(chip)


def nvvm_target_chip(attr) -> str | None:
    """The chip of an ``#nvvm.target`` attribute (``sm_50``, its default,
    where it names none), read through the bindings; ``None`` for any other
    attribute."""
    return _native.nvvm_target_chip(attr)
