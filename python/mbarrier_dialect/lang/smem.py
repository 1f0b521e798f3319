"""A shared-memory pool: buffers (and barriers) take byte ranges of one
static `.shared` allocation, laid out when the pool is committed."""
from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import llvm

_SHARED = 3


def ptr_type(address_space: int) -> ir.Type:
    return ir.Type.parse(f"!llvm.ptr<{address_space}>")


class SmemBuffer:
    """A typed region of the pool; `ptr` exists once the pool is committed."""

    def __init__(self, pool: "SmemPool", shape, dtype, align: int):
        self.pool = pool
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self.align = align
        self.offset: int | None = None
        self._ptr: ir.Value | None = None

    @property
    def ptr(self) -> ir.Value:
        """The `!llvm.ptr<3>` of the buffer's first element."""
        if self._ptr is None:
            raise ValueError("the shared-memory pool is not committed yet: call pool.commit()")
        return self._ptr

    def element_type(self) -> ir.Type:
        return _mlir_type(self.dtype)


def _mlir_type(dtype: np.dtype) -> ir.Type:
    if dtype.kind in "iu":
        return ir.IntegerType.get_signless(dtype.itemsize * 8)
    if dtype == np.float32:
        return ir.F32Type.get()
    if dtype == np.float64:
        return ir.F64Type.get()
    raise TypeError(f"unsupported shared-memory dtype {dtype}")


class SmemPool:
    """`alloc(shape, dtype, align)` reserves, `commit()` lays out and emits
    one `.shared` global plus a pointer per buffer at the insertion point."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.buffers: list[SmemBuffer] = []
        self._on_commit = []
        self.committed = False
        self.nbytes = 0

    def alloc(self, shape, dtype, align: int = 16) -> SmemBuffer:
        if self.committed:
            raise ValueError("cannot alloc from a committed shared-memory pool")
        if align <= 0 or align & (align - 1):
            raise ValueError(f"align must be a power of two, got {align}")
        buf = SmemBuffer(self, shape, dtype, align)
        self.buffers.append(buf)
        return buf

    def on_commit(self, callback) -> None:
        """Run `callback()` right after the buffers get their pointers."""
        self._on_commit.append(callback)

    def commit(self) -> None:
        if self.committed:
            raise ValueError("the shared-memory pool is already committed")
        offset, align = 0, 8
        for buf in self.buffers:
            offset = -(-offset // buf.align) * buf.align
            buf.offset = offset
            offset += buf.nbytes
            align = max(align, buf.align)
        self.nbytes = max(offset, 1)
        name = self.kernel.unique_symbol("smem_pool")
        i8 = ir.IntegerType.get_signless(8)
        array = ir.Type.parse(f"!llvm.array<{self.nbytes} x i8>")
        with ir.InsertionPoint.at_block_begin(self.kernel.gpu_module_body):
            llvm.GlobalOp(
                array, name, ir.Attribute.parse("#llvm.linkage<internal>"),
                alignment=align, addr_space=_SHARED,
            )
        base = llvm.AddressOfOp(ptr_type(_SHARED), name).result
        for buf in self.buffers:
            buf._ptr = byte_offset(base, buf.offset) if buf.offset else base
        self.committed = True
        for callback in self._on_commit:
            callback()


def byte_offset(ptr: ir.Value, nbytes: int) -> ir.Value:
    i8 = ir.IntegerType.get_signless(8)
    return llvm.GEPOp(ptr.type, ptr, [], [nbytes], i8, llvm.GEPNoWrapFlags.none).result
