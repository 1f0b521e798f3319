"""The rules of ``cuTensorMapEncodeTiled``, checked without CUDA (part of
the runtime: runtime.py loads this file beside it and re-exports its
names; the GPU suite's manifest writer checks its tensor maps here too).

numpy and the standard library only, so that it runs wherever runtime.py
runs. The error messages are the driver's rules in the CUDA driver API's
words (``tensorRank``, ``boxDim``, ``globalStrides``, ...).
"""
from __future__ import annotations

import math
import operator

import numpy as np

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64

# numpy dtype name (or "bfloat16"/"tfloat32") -> (CU_TENSOR_MAP_DATA_TYPE_ suffix, bytes)
_TENSOR_MAP_DTYPES = {
    "uint8": ("UINT8", 1), "uint16": ("UINT16", 2), "uint32": ("UINT32", 4),
    "int32": ("INT32", 4), "uint64": ("UINT64", 8), "int64": ("INT64", 8),
    "float16": ("FLOAT16", 2), "float32": ("FLOAT32", 4), "float64": ("FLOAT64", 8),
    "bfloat16": ("BFLOAT16", 2), "tfloat32": ("TFLOAT32", 4),
}
_SWIZZLES = {"none": ("NONE", None), "32B": ("32B", 32), "64B": ("64B", 64), "128B": ("128B", 128)}
_L2_PROMOTIONS = {"none": "NONE", "64B": "L2_64B", "128B": "L2_128B", "256B": "L2_256B"}
_OOB_FILLS = {"zero": "NONE", "nan": "NAN_REQUEST_ZERO_FMA"}


def _choice(value, table: dict, what: str):
    if value not in table:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(map(repr, table))}")
    return table[value]


def _tensor_map_dtype(dtype) -> tuple[str, str, int]:
    name = dtype if dtype in ("bfloat16", "tfloat32") else np.dtype(dtype).name
    if name not in _TENSOR_MAP_DTYPES:
        raise ValueError(f"tensorDataType: a tensor map cannot hold {name}; it holds "
                         f"{', '.join(_TENSOR_MAP_DTYPES)}")
    return (name,) + _TENSOR_MAP_DTYPES[name]


def element_bytes(dtype: str) -> int:
    """Bytes of one element of a tensor map's `dtype` (a name
    :func:`tensor_map_arguments` returned)."""
    return _TENSOR_MAP_DTYPES[dtype][1]


def tensor_map_arguments(address: int, dtype, shape, box, *, strides=None,
                         element_strides=None, swizzle: str = "none",
                         l2_promotion: str = "128B", oob_fill: str = "zero",
                         nbytes: int | None = None) -> dict:
    """Check the arguments of :func:`encode_tensor_map_tiled` without CUDA
    and return them in the driver's order (innermost dimension first):
    ``{"dtype", "rank", "global_dim", "global_strides", "box_dim",
    "element_strides", "swizzle", "l2_promotion", "oob_fill"}``.  Raises
    ``ValueError`` naming the driver's rule that is broken."""
    name, cu_type, itemsize = _tensor_map_dtype(dtype)
    shape = tuple(operator.index(n) for n in ((shape,) if isinstance(shape, int) else shape))
    box = tuple(operator.index(n) for n in ((box,) if isinstance(box, int) else box))
    rank = len(shape)
    if not 1 <= rank <= 5:
        raise ValueError(f"tensorRank must be 1 to 5, got {rank} (shape {list(shape)})")
    if len(box) != rank:
        raise ValueError(f"boxDim has {len(box)} dimensions, the tensor {rank}")
    if address % 16:
        raise ValueError(f"globalAddress {address:#x} must be aligned to 16 bytes")
    for i, n in enumerate(shape):
        if not 0 < n <= 2**32:
            raise ValueError(f"globalDim must be non-zero and less than or equal to 2^32, "
                             f"got {n} in shape {list(shape)}")
    if strides is None:
        strides = tuple(itemsize * math.prod(shape[i + 1:]) for i in range(rank))
    else:
        strides = tuple(operator.index(s) for s in strides)
        if len(strides) != rank:
            raise ValueError(f"strides has {len(strides)} entries, the tensor {rank} dimensions")
        if strides[-1] != itemsize:
            raise ValueError(f"the innermost dimension must be contiguous: its stride is "
                             f"{strides[-1]} bytes, the element {itemsize}")
    for s in strides[:-1]:
        if s <= 0 or s % 16 or s >= 2**40:
            raise ValueError(f"globalStrides must be a multiple of 16 and less than 2^40, "
                             f"got {s} bytes (strides {list(strides)})")
    for n in box:
        if not 0 < n <= 256:
            raise ValueError(f"boxDim must be non-zero and less than or equal to 256, "
                             f"got {n} in box {list(box)}")
    inner_bytes = box[-1] * itemsize
    if inner_bytes % 16:
        raise ValueError(f"boxDim[0] * elementSizeInBytes(tensorDataType) must be a multiple "
                         f"of 16 bytes, got {box[-1]} * {itemsize} = {inner_bytes} (box "
                         f"{list(box)}, innermost last)")
    if element_strides is None:
        element_strides = (1,) * rank
    element_strides = tuple(operator.index(e) for e in element_strides)
    if len(element_strides) != rank or any(not 0 < e <= 8 for e in element_strides):
        raise ValueError(f"elementStrides must be non-zero and less than or equal to 8, "
                         f"one per dimension, got {list(element_strides)}")
    cu_swizzle, span = _choice(swizzle, _SWIZZLES, "swizzle")
    if span is not None and inner_bytes > span:
        raise ValueError(f"with swizzle {swizzle}, boxDim[0] * elementSizeInBytes(tensorDataType) "
                         f"must be less than or equal to the swizzle size {span}, got "
                         f"{inner_bytes}")
    cu_l2 = _choice(l2_promotion, _L2_PROMOTIONS, "l2_promotion")
    cu_oob = _choice(oob_fill, _OOB_FILLS, "oob_fill")
    if oob_fill == "nan" and name not in ("float16", "float32", "float64", "bfloat16",
                                          "tfloat32"):
        raise ValueError(f"CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used "
                         f"when tensorDataType represents a floating-point data type, not {name}")
    if nbytes is not None:
        extent = itemsize + sum((n - 1) * s for n, s in zip(shape, strides))
        if extent > nbytes:
            raise ValueError(f"the tensor {list(shape)} with strides {list(strides)} spans "
                             f"{extent} bytes, more than the buffer's {nbytes}")
    return {"dtype": name, "cu_dtype": cu_type, "rank": rank,
            "global_dim": list(reversed(shape)),
            "global_strides": list(reversed(strides[:-1])),
            "box_dim": list(reversed(box)),
            "element_strides": list(reversed(element_strides)),
            "swizzle": cu_swizzle, "l2_promotion": cu_l2, "oob_fill": cu_oob,
            "shape": shape, "box": box, "strides": strides}
