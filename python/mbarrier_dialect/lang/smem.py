"""Memory of `lang`: a shared-memory pool, whose buffers (and barriers)
take byte ranges of one static `.shared` allocation, laid out when the pool
is committed; the launch's dynamic shared memory (``pool.dynamic()``) and
buffers viewed at a pointer into it (``pool.view(ptr, ...)``); a buffer of another CTA of the cluster, reached with
``buffer.remote(rank)`` (distributed shared memory,
``mapa.shared::cluster``); and the loads and stores of buffers and of
global-memory pointers (``k.load``/``k.store`` are these)."""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence, Union

from mlir import ir
from mlir.dialects import llvm, nvvm

from . import values as V
from .builder import Builder
from .values import DType, IntLike, Value

__all__ = ["SmemPool", "SmemBuffer", "RemoteBuffer", "MemRef", "element_ptr", "load", "store",
           "byte_offset", "ptr_type"]

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
        return load(self, index)

    def store(self, value: Value | int | float, index: IntLike | Sequence[IntLike] = 0) -> None:
        """``self[index] = value`` (see ``Kernel.store``)."""
        store(value, self, index)


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
        return load(self, index)

    def store(self, value: Value | int | float, index: IntLike | Sequence[IntLike] = 0) -> None:
        """``self[index] = value``, written through distributed shared memory."""
        store(value, self, index)


class SmemPool:
    """``alloc(shape, dtype, align)`` reserves, ``commit()`` lays out and
    emits one ``.shared`` global plus a pointer per buffer at the insertion
    point. Barrier groups (``MBarrier(pool, depth)``) take their 8-byte
    slots from the pool too."""

    def __init__(self, kernel: Builder):
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
        _power_of_two(align)
        buf = SmemBuffer(self, shape, dtype, align)
        self.buffers.append(buf)
        return buf

    def dynamic(self, align: int = 16) -> ir.Value:
        """The launch's dynamic shared memory (an ``extern .shared`` array,
        the only way past the 48 KiB of a static allocation): an
        ``!llvm.ptr<3>`` to its start, rounded up to `align` bytes at run
        time (a TMA swizzle wants 128 to 1024). Launch with the bytes used
        plus `align`; keeping its buffers apart is the caller's part."""
        _power_of_two(align)
        kernel = self.kernel
        name = kernel.unique_symbol("dynamic_smem")
        with kernel.module_insertion_point():
            llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), name,
                          ir.Attribute.parse("#llvm.linkage<external>"),
                          alignment=align, addr_space=_SHARED)
        base = llvm.AddressOfOp(ptr_type(_SHARED), name).result
        addr = V.wrap(llvm.PtrToIntOp(V.i32(), base).result)
        return byte_offset(base, (0 - addr) & (align - 1))

    def view(self, ptr: ir.Value, shape: Sequence[int] | int, dtype: DType,
             align: int = 16) -> SmemBuffer:
        """A buffer of `shape` elements of `dtype` at `ptr` (an
        ``!llvm.ptr<3>`` the pool does not lay out, e.g. into
        ``dynamic()``), aligned to `align` bytes (the caller's promise),
        for the ops that take a buffer."""
        if not isinstance(ptr, ir.Value) or str(ptr.type) != "!llvm.ptr<3>":
            raise TypeError(f"a shared-memory view's ptr is an !llvm.ptr<3> value, got "
                            f"{getattr(ptr, 'type', type(ptr).__name__)}")
        _power_of_two(align)
        buf = SmemBuffer(self, shape, dtype, align)
        buf._ptr = ptr
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
        with self.kernel.module_insertion_point():
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


def _power_of_two(align) -> None:
    if isinstance(align, bool) or not isinstance(align, int) or align <= 0 \
            or align & (align - 1):
        raise ValueError(f"align must be a power of two, got {align!r}")


def byte_offset(ptr: ir.Value, nbytes: IntLike) -> ir.Value:
    """`ptr` + `nbytes` bytes: an int, or an i32 value (a pointer offset
    computed at run time)."""
    V._refuse_bool(nbytes, "a byte offset")
    i8 = ir.IntegerType.get_signless(8)
    if isinstance(nbytes, int):
        return llvm.GEPOp(ptr.type, ptr, [], [nbytes], i8, llvm.GEPNoWrapFlags.none).result
    dyn = -2147483648  # LLVM::GEPOp::kDynamicIndex
    return llvm.GEPOp(ptr.type, ptr, [nbytes], [dyn], i8, llvm.GEPNoWrapFlags.none).result


# -- loads and stores ---------------------------------------------------------

#: What `load`/`store` accept as the memory they access.
MemRef = Union[SmemBuffer, RemoteBuffer, ir.Value]


def element_ptr(ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
                dtype: DType | None = None) -> ir.Value:
    """The address of element `index` of `ref` (a buffer, a remote buffer
    or a pointer value; a tuple index for a multi-dimensional buffer)."""
    base, ty, shape = _memref(ref, dtype)
    flat = _flat_index(index, shape)
    dyn = -2147483648  # LLVM::GEPOp::kDynamicIndex
    return llvm.GEPOp(base.type, base, [flat], [dyn], ty, llvm.GEPNoWrapFlags.none).result


def load(ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
         dtype: DType | None = None) -> Value:
    """``ref[index]``, naturally aligned. The element type is the
    buffer's; for a pointer value it is `dtype` (default ``i32``)."""
    _, ty, _ = _memref(ref, dtype)
    return V.wrap(llvm.LoadOp(ty, element_ptr(ref, index, dtype),
                              alignment=V.dtype_nbytes(ty)).result)


def store(value: Value | int | float, ref: MemRef,
          index: IntLike | Sequence[IntLike] = 0, dtype: DType | None = None) -> None:
    """``ref[index] = value``, naturally aligned. A Python number becomes
    a constant of the element type (a buffer's, else `dtype`, else
    ``i32``/``f32``); a value must have the element type already."""
    V._refuse_bool(value, "the stored value")
    if isinstance(value, ir.Value):
        if dtype is None and not isinstance(ref, (SmemBuffer, RemoteBuffer)):
            dtype = value.type
        ty = _memref(ref, dtype)[1]
        if value.type != ty:
            raise TypeError(f"storing a {value.type} value into {ty} elements: convert it "
                            f"with .to('{ty}')")
    else:
        if dtype is None and not isinstance(ref, (SmemBuffer, RemoteBuffer)):
            dtype = "f32" if isinstance(value, float) else "i32"
        ty = _memref(ref, dtype)[1]
        value = V.const(value, ty)
    llvm.StoreOp(value, element_ptr(ref, index, ty), alignment=V.dtype_nbytes(ty))


def _memref(ref: MemRef, dtype: DType | None):
    """(base pointer, element type, shape or None) of what load/store access."""
    base, ty, shape = _memref_parts(ref, dtype)
    if isinstance(ty, ir.IndexType):
        raise TypeError("an index value has no size in memory: store it as .to('i64') or "
                        ".to('i32')")
    return base, ty, shape


def _memref_parts(ref: MemRef, dtype: DType | None):
    if isinstance(ref, (SmemBuffer, RemoteBuffer)):
        ty = ref.dtype
        if dtype is not None and V.dtype(dtype) != ty:
            raise TypeError(f"the buffer holds {ty}, not {V.dtype(dtype)}")
        return ref.ptr, ty, ref.shape
    if isinstance(ref, ir.Value) and isinstance(ref.type, ir.Type) \
            and str(ref.type).startswith("!llvm.ptr"):
        return ref, V.dtype(dtype if dtype is not None else "i32"), None
    raise TypeError(f"load/store take a shared-memory buffer, a remote buffer or a pointer "
                    f"value, got {type(ref).__name__}"
                    + (f" of type {ref.type}" if isinstance(ref, ir.Value) else ""))


def _gep_index(x: IntLike) -> ir.Value:
    V._refuse_bool(x, "an index")
    if isinstance(x, int):
        return V.const(x, "i32" if -2**31 <= x < 2**31 else "i64")
    if isinstance(x, ir.Value) and isinstance(x.type, ir.IndexType):
        return V.as_value(x, ir.IntegerType.get_signless(64))
    if isinstance(x, ir.Value) and V._is_int(x.type) and not V._is_i1(x.type):
        return x  # GEP indices are signed: sign-extended by LLVM
    raise TypeError(f"an element index is an int or an integer value, got "
                    f"{x.type if isinstance(x, ir.Value) else type(x).__name__}")


def _flat_index(index, shape) -> ir.Value:
    if isinstance(index, tuple):
        if shape is None or len(index) != len(shape):
            raise TypeError(f"a {len(index)}-dimensional index for "
                            f"{'a pointer' if shape is None else f'a buffer of shape {shape}'}")
        flat: Any = 0
        for i, extent in zip(index, shape):
            V._refuse_bool(i, "an index")
            flat = flat * extent + (V.wrap(i) if isinstance(i, ir.Value) else i)
        return _gep_index(flat)
    return _gep_index(index)
