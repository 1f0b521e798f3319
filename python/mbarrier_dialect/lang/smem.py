"""A shared-memory pool: buffers (and barriers) take byte ranges of one
static `.shared` allocation, laid out when the pool is committed. A buffer
of another CTA of the cluster is reached with ``buffer.remote(rank)``
(distributed shared memory, ``mapa.shared::cluster``)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Sequence

from mlir import ir
from mlir.dialects import llvm, nvvm

from . import values as V
from .values import DType, IntLike, Value

if TYPE_CHECKING:
    from .kernel import Kernel

__all__ = ["SmemPool", "SmemBuffer", "RemoteBuffer"]

_SHARED = 3
_SHARED_CLUSTER = 7


def ptr_type(address_space: int) -> ir.Type:
    """``!llvm.ptr<address_space>``."""
    return ir.Type.parse(f"!llvm.ptr<{address_space}>")


class SmemBuffer:
    """A typed region of the pool (``pool.alloc(shape, dtype)``); `ptr`
    exists once the pool is committed. ``k.load(buf, i)`` and
    ``k.store(v, buf, i)`` (or ``buf.load(i)``/``buf.store(v, i)``) access
    it; ``buf.remote(rank)`` is the same buffer in CTA `rank`."""

    def __init__(self, pool: "SmemPool", shape: Sequence[int] | int, dtype: DType, align: int):
        self.pool = pool
        self.shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        if any(s < 1 for s in self.shape):
            raise ValueError(f"a buffer shape has positive extents, got {self.shape}")
        with pool.kernel.context:
            self.dtype: ir.Type = V.dtype(dtype)
            self.nbytes = math.prod(self.shape) * V.dtype_nbytes(self.dtype)
        self.align = align
        self.offset: int | None = None
        self._ptr: ir.Value | None = None

    @property
    def element_type(self) -> ir.Type:
        """The element type (same as ``dtype``)."""
        return self.dtype

    @property
    def ptr(self) -> ir.Value:
        """The ``!llvm.ptr<3>`` of the buffer's first element."""
        if self._ptr is None:
            raise ValueError("the shared-memory pool is not committed yet: call pool.commit()")
        return self._ptr

    def remote(self, rank: IntLike) -> "RemoteBuffer":
        """This buffer as it is in the shared memory of CTA `rank` of the
        cluster: its address mapped with ``mapa.shared::cluster``, an
        ``!llvm.ptr<7>`` that loads and stores reach through distributed
        shared memory (``ld/st.shared::cluster``)."""
        kernel = self.pool.kernel
        V._refuse_bool(rank, "the CTA rank")
        if isinstance(rank, int) and kernel.cluster_size is not None \
                and not 0 <= rank < kernel.cluster_size:
            raise ValueError(f"CTA rank {rank} is out of range for a cluster of "
                             f"{kernel.cluster_size} CTAs")
        mapped = nvvm.MapaOp(ptr_type(_SHARED_CLUSTER), self.ptr, V.as_i32(rank)).result
        return RemoteBuffer(self, mapped, rank)

    def load(self, index: IntLike | Sequence[IntLike] = 0) -> Value:
        """``self[index]`` (see ``Kernel.load``)."""
        return self.pool.kernel.load(self, index)

    def store(self, value: Value | int | float, index: IntLike | Sequence[IntLike] = 0) -> None:
        """``self[index] = value`` (see ``Kernel.store``)."""
        self.pool.kernel.store(value, self, index)


class RemoteBuffer:
    """A shared-memory buffer of another CTA of the cluster, made by
    ``SmemBuffer.remote(rank)``: `ptr` is its ``!llvm.ptr<7>``
    (``.shared::cluster``) address. Loads and stores are distributed shared
    memory accesses; the CTA that owns the buffer must not exit before they
    are done (end the kernel with ``k.epilogue()``)."""

    def __init__(self, buffer: SmemBuffer, ptr: ir.Value, rank: IntLike):
        self.buffer = buffer
        self.ptr = ptr
        self.rank = rank
        self.shape = buffer.shape
        self.dtype = buffer.dtype

    def load(self, index: IntLike | Sequence[IntLike] = 0) -> Value:
        """``self[index]``, read through distributed shared memory."""
        return self.buffer.pool.kernel.load(self, index)

    def store(self, value: Value | int | float, index: IntLike | Sequence[IntLike] = 0) -> None:
        """``self[index] = value``, written through distributed shared memory."""
        self.buffer.pool.kernel.store(value, self, index)


class SmemPool:
    """``alloc(shape, dtype, align)`` reserves, ``commit()`` lays out and
    emits one ``.shared`` global plus a pointer per buffer at the insertion
    point. Barrier groups (``MBarrier(pool, depth)``) take their 8-byte
    slots from the pool too."""

    def __init__(self, kernel: "Kernel"):
        self.kernel = kernel
        self.buffers: list[SmemBuffer] = []
        self._on_commit: list[Callable[[], None]] = []
        self.committed = False
        self.nbytes = 0

    def alloc(self, shape: Sequence[int] | int, dtype: DType, align: int = 16) -> SmemBuffer:
        """Reserve a buffer of `shape` elements of `dtype` (a name such as
        ``"i32"``, ``"f32"``, ``"bf16"``, an ``ir.Type`` or a numpy dtype),
        aligned to `align` bytes."""
        if self.committed:
            raise ValueError("cannot alloc from a committed shared-memory pool")
        if isinstance(align, bool) or not isinstance(align, int) or align <= 0 \
                or align & (align - 1):
            raise ValueError(f"align must be a power of two, got {align!r}")
        buf = SmemBuffer(self, shape, dtype, align)
        self.buffers.append(buf)
        return buf

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` right after the buffers get their pointers."""
        self._on_commit.append(callback)

    def commit(self) -> None:
        """Lay the buffers out and emit their pointers here."""
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
    """`ptr` + `nbytes` bytes."""
    i8 = ir.IntegerType.get_signless(8)
    return llvm.GEPOp(ptr.type, ptr, [], [nbytes], i8, llvm.GEPNoWrapFlags.none).result
