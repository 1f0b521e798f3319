"""The operand layouts of examples/gemm.py, MLIR-free (bench/gemm/run.py and
gemm_parts/api.py use them on the GPU machine, where only numpy, torch and
cuda-bindings exist).

The kernel computes C = A @ B^T with A an M x K and B an N x K bf16 matrix;
each is **K-major** (K contiguous: A row-major, B stored N x K, a
``torch.nn.Linear`` weight) or **MN-major** (M or N contiguous). In torch's
words, ``matmul(a, b)`` with ``a`` M x K and ``b`` K x N: ``a`` K-major is a
row-major ``a`` (strides ``(lda, 1)``), M-major a column-major one
(``(1, lda)``); ``b`` K-major is a column-major ``b`` (``(1, ldb)``, e.g.
``w.t()``), N-major a row-major one (``(ldb, 1)``). The leading dimension
``ld`` may exceed the extent (a padded or sliced tensor).

What the TMA needs of a layout (``cuTensorMapEncodeTiled``): a 16-byte
aligned start, a row stride ``ld * 2`` bytes that is a multiple of 16 (so
``ld`` a multiple of 8), the other stride 1 element. Anything else (a
stride of neither form, e.g. a broadcast or every-other-column view) is
refused with a ``ValueError`` before any CUDA call: never a wrong product.
"""
from __future__ import annotations

from dataclasses import dataclass

BK = 64                     # K per stage (lang.wgmma.BK; this module stays MLIR-free)
MN_CHUNK = 64               # MN per TMA box of an MN-major operand (128 bytes)
MAJORS = ("K", "MN")


@dataclass(frozen=True)
class Operand:
    """One operand as the kernel sees it: `rows` (M or N) x `k`, `major`
    "K" or "MN", leading dimension `ld` elements (the stride of the
    non-contiguous dimension), starting at device address `ptr`."""
    name: str
    rows: int
    k: int
    major: str
    ld: int
    ptr: int

    def map_shape(self) -> tuple[int, int]:
        """The tensor map's global shape, numpy order (outermost first)."""
        return (self.rows, self.k) if self.major == "K" else (self.k, self.rows)

    def map_strides(self) -> tuple[int, int]:
        """Its byte strides, numpy order (the innermost one the element)."""
        return (self.ld * 2, 2)

    def extent_bytes(self) -> int:
        """Bytes from `ptr` to one past the last element."""
        outer, inner = self.map_shape()
        return ((outer - 1) * self.ld + inner) * 2

    def box(self, box_rows: int) -> tuple[int, int]:
        """The TMA box one copy loads, numpy order: `box_rows` x BK
        (K-major), or BK x MN_CHUNK (MN-major: box_rows / 64 copies)."""
        return (box_rows, BK) if self.major == "K" else (BK, MN_CHUNK)


def operand(name: str, shape, strides, ptr: int, *, k_dim: int) -> Operand:
    """The Operand of a 2-d tensor of `shape` and element `strides` (torch's
    ``.shape``, ``.stride()``) whose dimension `k_dim` (0 or 1) is K, or a
    ValueError naming the rule it breaks."""
    if len(shape) != 2 or len(strides) != 2:
        raise ValueError(f"{name} must be a 2-d matrix, got shape {tuple(shape)}")
    rows, k = (shape[1], shape[0]) if k_dim == 0 else (shape[0], shape[1])
    s_rows, s_k = (strides[1], strides[0]) if k_dim == 0 else (strides[0], strides[1])
    what = f"{name} ({shape[0]} x {shape[1]}, strides {tuple(strides)} elements)"
    if ptr % 16:
        raise ValueError(f"{what} starts at {ptr:#x}, not 16-byte aligned (the TMA's "
                         f"globalAddress rule)")
    # A dimension of extent 1 has no stride that matters: the dense one.
    if s_k == 1 and (rows == 1 or s_rows != 1):
        major, ld, extent = "K", (s_rows if rows > 1 else k), k
    elif s_rows == 1:
        major, ld, extent = "MN", s_k, rows
    else:
        raise ValueError(f"{what}: neither of its dimensions is contiguous (stride 1); the "
                         f"GEMM takes K-major or {'M' if name == 'a' else 'N'}-major operands "
                         f"(call .contiguous() first)")
    if ld < extent:
        raise ValueError(f"{what}: leading dimension {ld} is below the contiguous extent "
                         f"{extent} (overlapping rows)")
    if ld % 8:
        raise ValueError(f"{what}: its {major}-major rows are {ld} elements apart, "
                         f"{ld * 2} bytes, not a multiple of 16 (the TMA globalStrides rule): "
                         f"the leading dimension must be a multiple of 8")
    return Operand(name, rows, k, major, ld, ptr)


def check_majors(a_major: str, b_major: str, b_box_rows: int) -> None:
    """gemm.Config's layout rules (a ValueError): each major "K" or "MN";
    an N-major B loaded in whole 64-row chunks by each CTA."""
    for which, major in (("a_major", a_major), ("b_major", b_major)):
        if major not in MAJORS:
            raise ValueError(f"{which} is 'K' or 'MN', got {major!r}")
    if b_major == "MN" and b_box_rows % MN_CHUNK:
        raise ValueError(f"an N-major B is loaded in 64-row chunks: bn / cluster = "
                         f"{b_box_rows} is not a multiple of 64")


def layout_suffix(a_major: str, b_major: str) -> str:
    """The configuration name's layout part: "" for K-major A and B, else
    ``_a<A's>_b<B's>`` (``_aMN_bK``, ...)."""
    return "" if (a_major, b_major) == ("K", "K") else f"_a{a_major}_b{b_major}"
