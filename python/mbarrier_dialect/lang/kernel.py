"""`Kernel`: a context manager that builds one `gpu.func` kernel in a
`gpu.module`; the values every barrier kernel needs; memory access; control
flow (`if_then`, `if_else`, `for_range`, `range`, `unrolled_range`); and the
check that hands every op `lang` builds to the C++ verifier."""
from __future__ import annotations

import builtins
import contextlib
import functools
import math
import os
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Iterator, Mapping, Sequence,
                    TypeVar, Union)

from mlir import ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf

from .. import register_dialect
from ..runtime import validate_launch_shape
from . import values as V
from .smem import RemoteBuffer, SmemBuffer, SmemPool
from .values import DType, IntLike, Value

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from .pipeline import Pipeline
    from .barriers import MBarrier

__all__ = ["Kernel", "current_kernel", "verified", "if_then", "if_else", "IfElse", "for_range",
           "Loop", "range", "Range", "unrolled_range"]

_KERNELS: list["Kernel"] = []

OpT = TypeVar("OpT", ir.OpView, ir.Operation)

Dims = Union[int, Sequence[int]]
#: What `load`/`store` accept as the memory they access.
MemRef = Union[SmemBuffer, RemoteBuffer, ir.Value]


def _frontend_files():
    """The Python files of this package and of the `mlir` package: their
    frames are left out of traceback locations, so that an op built through
    `lang` carries the location of the user's line that asked for it."""
    import mlir

    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    roots += list(mlir.__path__)
    for root in roots:
        for base, _, files in os.walk(root):
            for name in files:
                if name.endswith(".py"):
                    yield os.path.join(base, name)


@functools.cache
def _use_caller_locations() -> None:
    from mlir.dialects._ods_common import _cext

    for path in _frontend_files():
        _cext.globals.register_traceback_file_exclusion(path)


# -- the C++ verifier decides ----------------------------------------------

def _file_line(loc: ir.Location) -> str | None:
    """``file:line:col`` of the first file location inside `loc`."""
    try:
        if loc.is_a_file():
            return f"{loc.filename}:{loc.start_line}:{loc.start_col}"
        if loc.is_a_name():
            return _file_line(loc.child_loc)
        if loc.is_a_callsite():
            return _file_line(loc.callee)
        if loc.is_a_fused():
            for inner in loc.locations:
                found = _file_line(inner)
                if found:
                    return found
    except (AttributeError, ValueError):
        pass
    return None


def _diagnostic_text(diag) -> str:
    where = _file_line(diag.location)
    text = f"{where}: {diag.message}" if where else diag.message
    for note in diag.notes:
        if note.message.startswith("see current operation"):
            continue
        text += f"\n  note: {note.message}"
    return text


def verification_error(error: ir.MLIRError) -> ValueError:
    """The C++ verifier's diagnostics of `error` as a ``ValueError``: each
    ``file:line:col: <the verifier's message>``."""
    diags = list(error.error_diagnostics)
    if not diags:
        return ValueError(str(error))
    return ValueError("\n".join(_diagnostic_text(d) for d in diags))


def verified(op: "OpT") -> "OpT":
    """Verify `op` (just built) with the C++ verifier; a broken rule raises
    ``ValueError`` with the verifier's message at the user's file:line, and
    the op is erased so the kernel stays well-formed. Returns `op`."""
    try:
        op.operation.verify()
    except ir.MLIRError as e:
        error = verification_error(e)
        op.operation.erase()
        raise error from None
    return op


def current_kernel() -> "Kernel":
    """The kernel whose ``with`` block is being executed."""
    if not _KERNELS:
        raise RuntimeError("no kernel is being built: use `with Kernel(...) as k:`")
    return _KERNELS[-1]


def _param_type(kind: DType) -> ir.Type:
    if kind == "ptr":
        return ir.Type.parse("!llvm.ptr<1>")
    return V.dtype(kind)


class Kernel:
    """Build one kernel (a ``gpu.func`` in a ``gpu.module``)::

        with Kernel("pingpong", block=32, cluster=2,
                    params=[("out", "ptr"), ("iters", "i32")]) as k:
            ...  # emit ops: k.param("out"), k.thread_rank(), k.cluster_rank(), ...
        compiled = k.compile()   # .ptx, .cubin, .launch(...)

    `block`, `grid` and `cluster` are 1- to 3-dimensional (padded with 1);
    `grid` defaults to one cluster (or one CTA). A parameter kind is
    ``"ptr"`` (a global-memory pointer) or an element type name (``"i32"``,
    ``"i64"``, ``"f32"``, ...). `chip` is the default target of ``compile()``.
    """

    def __init__(self, name: str, *, block: Dims, grid: Dims | None = None,
                 cluster: Dims | None = None, chip: str | None = None,
                 params: Sequence[tuple[str, DType]] = (),
                 context: ir.Context | None = None):
        self.name = name
        # The launcher's own rules, checked when the kernel is declared.
        if grid is None:
            grid = cluster if cluster is not None else 1
        self.grid, self.block, self.cluster = validate_launch_shape(grid, block, cluster)
        self.chip = chip
        self.params = list(params)
        self.context = context or ir.Context()
        register_dialect(self.context)
        with self.context:
            for pname, kind in self.params:
                try:
                    _param_type(kind)
                except (TypeError, ValueError) as e:
                    raise ValueError(f"parameter {pname!r}: kind must be 'ptr' or an element "
                                     f"type ({e})") from None
        self._symbols = 0
        self._stack = contextlib.ExitStack()
        self._deferred_error: str | None = None
        self.module: ir.Module | None = None

    # -- building ------------------------------------------------------------
    def __enter__(self) -> "Kernel":
        """Create the module and the kernel function; ops built inside the
        ``with`` block go into the kernel's body."""
        stack = self._stack
        stack.enter_context(self.context)
        stack.enter_context(ir.Location.name(self.name))
        # Ops get the file:line of the user's code that built them, so that
        # a verifier or target error points there.
        _use_caller_locations()
        stack.enter_context(ir.loc_tracebacks(max_depth=1))
        self.module = ir.Module.create()
        self.module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(self.module.body):
            gpu_module = gpu.GPUModuleOp("kernels")
        self.gpu_module_body = gpu_module.bodyRegion.blocks.append()
        types = [_param_type(kind) for _, kind in self.params]
        with ir.InsertionPoint(self.gpu_module_body):
            self.func = gpu.GPUFuncOp(ir.TypeAttr.get(ir.FunctionType.get(types, [])),
                                      sym_name=self.name, kernel=True,
                                      known_block_size=list(self.block))
        if self.cluster:
            self.func.attributes["known_cluster_size"] = ir.DenseI32ArrayAttr.get(list(self.cluster))
        self.entry = self.func.body.blocks.append(*types)
        stack.enter_context(ir.InsertionPoint(self.entry))
        _KERNELS.append(self)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """Close the kernel and verify the module: a broken IR rule raises
        ``ValueError`` with the verifier's located message."""
        try:
            if exc_type is None:
                gpu.ReturnOp([])
        finally:
            _KERNELS.remove(self)
            self._stack.close()
        if exc_type is None:
            if self._deferred_error:
                raise RuntimeError(self._deferred_error)
            try:
                self.module.operation.verify()
            except ir.MLIRError as e:
                raise verification_error(e) from None

    def unique_symbol(self, stem: str) -> str:
        """A symbol name not used before in this kernel's module."""
        self._symbols += 1
        return f"__{stem}_{self._symbols}"

    def smem_pool(self) -> SmemPool:
        """A new shared-memory pool (see :class:`SmemPool`)."""
        return SmemPool(self)

    def param(self, name: str) -> Value:
        """The kernel parameter `name`."""
        for i, (pname, _) in enumerate(self.params):
            if pname == name:
                return V.wrap(self.entry.arguments[i])
        raise KeyError(f"kernel {self.name!r} has no parameter {name!r}")

    @property
    def cluster_size(self) -> int | None:
        """CTAs per cluster, or None for a kernel without a cluster."""
        return math.prod(self.cluster) if self.cluster else None

    # -- values every barrier kernel needs -----------------------------------
    def thread_rank(self) -> Value:
        """Linear thread index within the CTA (``%tid``), i32."""
        def tid(dim):
            return V.as_i32(gpu.ThreadIdOp(getattr(gpu.Dimension, dim)).result)

        bx, by, bz = self.block
        x = tid("x")
        if by == 1 and bz == 1:
            return x
        return x + (tid("y") + tid("z") * by) * bx

    def is_thread(self, rank: IntLike) -> Value:
        """``thread_rank() == rank``: an i1."""
        return self.thread_rank() == rank

    def cluster_rank(self) -> Value:
        """``%cluster_ctarank``: this CTA's rank in its cluster, i32."""
        return V.wrap(nvvm.read_ptx_sreg_cluster_ctarank(V.i32()))

    def block_rank(self) -> Value:
        """``%ctaid.x``, i32."""
        return V.as_i32(gpu.BlockIdOp(gpu.Dimension.x).result)

    # -- barriers and fences -------------------------------------------------
    def fence_barrier_init(self) -> None:
        """``fence.mbarrier_init.release.cluster``: makes the barrier inits
        of this thread visible to the cluster (before a cluster barrier)."""
        from ..dialects import mbarrier
        verified(mbarrier.FenceInitOp())

    def cluster_sync(self) -> None:
        """``barrier.cluster.arrive`` + ``barrier.cluster.wait``: every
        thread of every CTA of the cluster."""
        nvvm.ClusterArriveOp()
        nvvm.ClusterWaitOp()

    def sync_threads(self) -> None:
        """``bar.sync 0``: every thread of the CTA."""
        nvvm.Barrier0Op()

    def sync_warp(self) -> None:
        """``bar.warp.sync -1``: the lanes of the warp meet, and their memory
        accesses before it are ordered before those after it (so one lane's
        release arrival, e.g. a pipeline release, covers the whole warp's
        reads of a stage)."""
        nvvm.SyncWarpOp(V.as_i32(-1))

    def prologue(self, barriers: Mapping["MBarrier", IntLike] | None = None, *,
                 pipes: Sequence["Pipeline"] = (), leader: ir.Value | None = None) -> None:
        """The start of a barrier kernel, for several groups at once: the
        leader (default: thread rank 0) initializes every barrier of every
        group with its arrival count, ``fence.mbarrier_init`` makes the inits
        visible, and one barrier (``barrier.cluster`` in a cluster kernel,
        ``bar.sync`` otherwise) keeps every thread from arriving before::

            k.prologue({full: 32, empty: 32})
            k.prologue(pipes=[pipe])           # a Pipeline's counts are its own
        """
        barriers = {} if barriers is None and pipes else barriers
        if not isinstance(barriers, Mapping) or not (barriers or pipes):
            raise TypeError("prologue() takes a dict {barrier group: arrival count} and/or "
                            "pipes=[Pipeline, ...]")
        with if_then(self.is_thread(0) if leader is None else leader):
            for bar, count in barriers.items():
                bar._init_all(count)
            for pipe in pipes:
                pipe.init()
        self.fence_barrier_init()
        if self.cluster:
            self.cluster_sync()
        else:
            self.sync_threads()

    def epilogue(self) -> None:
        """The safe end of a cluster kernel: a final ``barrier.cluster``
        (arrive + wait by every thread), so that no CTA exits, and its
        shared memory goes away, while another CTA may still arrive on its
        barriers or access its buffers. Emits nothing in a kernel without a
        cluster (no other CTA can reach its shared memory)."""
        if self.cluster:
            self.cluster_sync()

    @staticmethod
    def if_then(cond: ir.Value) -> ContextManager[None]:
        """``with k.if_then(pred):``, the module-level :func:`if_then`."""
        return if_then(cond)

    # -- global and shared memory --------------------------------------------
    def element_ptr(self, ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
                    dtype: DType | None = None) -> ir.Value:
        """The address of element `index` of `ref` (a buffer, a remote buffer
        or a pointer value; a tuple index for a multi-dimensional buffer)."""
        base, ty, shape = _memref(ref, dtype)
        flat = _flat_index(index, shape)
        dyn = -2147483648  # LLVM::GEPOp::kDynamicIndex
        return llvm.GEPOp(base.type, base, [flat], [dyn], ty, llvm.GEPNoWrapFlags.none).result

    def load(self, ref: MemRef, index: IntLike | Sequence[IntLike] = 0,
             dtype: DType | None = None) -> Value:
        """``ref[index]``, naturally aligned. The element type is the
        buffer's; for a pointer value it is `dtype` (default ``i32``)."""
        _, ty, _ = _memref(ref, dtype)
        return V.wrap(llvm.LoadOp(ty, self.element_ptr(ref, index, dtype),
                                  alignment=V.dtype_nbytes(ty)).result)

    def store(self, value: Value | int | float, ref: MemRef,
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
        llvm.StoreOp(value, self.element_ptr(ref, index, ty), alignment=V.dtype_nbytes(ty))

    # -- compiling -----------------------------------------------------------
    def compile(self, chip: str | None = None, **kwargs: Any) -> "CompiledKernel":
        """Compile with :func:`mbarrier_dialect.compile` (for `chip`, else
        the kernel's, else the default). The result's ``launch()`` defaults
        to this kernel's grid, block and cluster."""
        from ..compiler import compile as compile_module
        compiled = compile_module(self.module, chip or self.chip, **kwargs)
        compiled.launch_shapes[self.name] = (self.grid, self.block, self.cluster)
        return compiled


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


# -- control flow -------------------------------------------------------------

@contextlib.contextmanager
def if_then(cond: ir.Value) -> Iterator[None]:
    """``with if_then(pred):`` emits the body under an ``scf.if``: it runs
    where the i1 `pred` holds. A Python bool is a ``TypeError``."""
    op = scf.IfOp(V.as_i1(cond))
    with ir.InsertionPoint(op.then_block):
        try:
            yield
        finally:  # (also when the body raised: the kernel stays well-formed)
            scf.YieldOp([])


class IfElse:
    """Two branches, optionally yielding values::

        branch = if_else(rank == 0)
        with branch.then():
            branch.yield_(a)
        with branch.otherwise():
            branch.yield_(b)
        (x,) = branch.results

    Both branches must yield the same number of values; their types are
    unified as a binary operator's operands are (a Python number takes the
    other branch's type, or i32/f32).
    """

    def __init__(self, cond: ir.Value):
        self._cond = V.as_i1(cond)
        self.op = scf.IfOp(self._cond, [], has_else=True)
        self._branch: str | None = None
        self._yields: dict[str, list | None] = {"then": None, "otherwise": None}
        self._done: set[str] = set()
        self._results: list[Value] | None = None

    @contextlib.contextmanager
    def _build(self, name: str, block: ir.Block) -> Iterator[None]:
        if name in self._done or self._branch is not None:
            raise RuntimeError(f"if_else: the {name} branch is built once, not nested in the other")
        self._branch = name
        try:
            with ir.InsertionPoint(block):
                yield
        except BaseException:
            self._yields[name] = None  # the branch is abandoned: terminate it
            raise
        finally:
            self._branch = None
            self._done.add(name)
            if self._yields[name] is None:
                with ir.InsertionPoint(block):
                    scf.YieldOp([])

    def then(self) -> ContextManager[None]:
        """``with branch.then():`` the code that runs where the condition holds."""
        return self._build("then", self.op.then_block)

    def otherwise(self) -> ContextManager[None]:
        """``with branch.otherwise():`` the code that runs where it does not."""
        return self._build("otherwise", self.op.else_block)

    def yield_(self, *values: Value | int | float) -> None:
        """The values this branch gives to ``results`` (``scf.yield``)."""
        if self._branch is None:
            raise RuntimeError("yield_() belongs inside `with branch.then():` or "
                               "`with branch.otherwise():`")
        if self._yields[self._branch] is not None:
            raise RuntimeError(f"the {self._branch} branch already yielded")
        for v in values:
            V._refuse_bool(v, "a yielded value")
        self._yields[self._branch] = list(values)

    @property
    def results(self) -> list[Value]:
        """The values the branches yielded (after both are built)."""
        if self._results is None:
            self._results = self._finish()
        return self._results

    def _finish(self) -> list[Value]:
        if self._done != {"then", "otherwise"}:
            raise RuntimeError("if_else results exist once both branches are built")
        then, other = self._yields["then"], self._yields["otherwise"]
        if then is None and other is None:
            return []
        if then is None or other is None or len(then) != len(other):
            raise ValueError(f"if_else branches yield {0 if then is None else len(then)} and "
                             f"{0 if other is None else len(other)} values: they must match")
        types = []
        for a, b in zip(then, other):
            ta = a.type if isinstance(a, ir.Value) else None
            tb = b.type if isinstance(b, ir.Value) else None
            if ta is None and tb is None:
                types.append(V.const(a).type if not isinstance(a, float) else V.dtype("f32"))
            elif ta is None or tb is None:
                types.append(ta or tb)
            else:
                types.append(V._common_type(ta, tb, "if_else results"))
        # scf.if results are fixed when the op is created: build the op with
        # them and move both branches' ops into it.
        with ir.InsertionPoint(self.op):
            new = scf.IfOp(self._cond, types, has_else=True)
        for old, block, values in ((self.op.then_block, new.then_block, then),
                                   (self.op.else_block, new.else_block, other)):
            for op in list(old.operations):
                block.append(op)
            with ir.InsertionPoint(block):
                scf.YieldOp([_to_type(v, t) for v, t in zip(values, types)])
        self.op.operation.erase()
        self.op = new
        return [V.wrap(r) for r in new.results]


def _to_type(v, ty: ir.Type) -> ir.Value:
    if isinstance(v, ir.Value):
        return V._convert(v, ty)
    return V.const(v, ty)


def if_else(cond: ir.Value) -> IfElse:
    """Two branches on the i1 `cond` (see :class:`IfElse`). A Python bool
    is a ``TypeError``."""
    return IfElse(cond)


def _bounds(lower, upper, step) -> tuple[ir.Value, ir.Value, ir.Value]:
    """Loop bounds of one integer type: the values' common type (``index``
    if one is an index), else i32; Python ints become constants of it."""
    for b in (lower, upper, step):
        V._refuse_bool(b, "a loop bound")
        if not isinstance(b, (int, ir.Value)):
            raise TypeError(f"a loop bound is an int or an integer value, got {type(b).__name__}")
        if isinstance(b, ir.Value) and (not V._is_int(b.type) or V._is_i1(b.type)):
            raise TypeError(f"a loop bound is an integer value, got a {b.type} value")
    ty = None
    for b in (lower, upper, step):
        if isinstance(b, ir.Value):
            ty = b.type if ty is None else V._common_type(ty, b.type, "loop bounds")
    ty = ty or V.i32()
    if isinstance(step, int) and step <= 0:
        raise ValueError(f"a loop step must be positive, got {step}")
    return tuple(V.as_value(b, ty) for b in (lower, upper, step))  # type: ignore[return-value]


def _is_handle(v) -> bool:
    """An object carried by its SSA value (a pipeline side: ``_carry_value()``
    gives the value, ``_bind(v)`` rebinds the object to it)."""
    return hasattr(v, "_carry_value") and hasattr(v, "_bind")


def _carry(values) -> list[ir.Value]:
    out = []
    for v in values:
        if _is_handle(v):
            out.append(v._carry_value())
            continue
        V._refuse_bool(v, "a carried value")
        out.append(v if isinstance(v, ir.Value) else V.const(v))
    return out


class Loop:
    """An ``scf.for`` being built: ``iv`` (the induction variable),
    ``carry`` (the loop-carried values in this iteration), ``next(*values)``
    (the carried values of the next iteration), ``results`` (after the loop:
    the carried values at the end)."""

    def __init__(self, op: scf.ForOp, carried: Sequence = ()):
        self.op = op
        self.iv = V.wrap(op.induction_variable)
        # A carried handle (a pipeline side) is rebound to the iteration's
        # value and stands for itself in `carry`.
        self._handles = [(i, h) for i, h in enumerate(carried) if _is_handle(h)]
        self.carry = [V.wrap(v) for v in op.inner_iter_args]
        for i, h in self._handles:
            h._bind(op.inner_iter_args[i])
            self.carry[i] = h
        self._next: list | None = None

    def next(self, *values: Value | int | float) -> None:
        """Set the carried values of the next iteration (``scf.yield``)."""
        if len(values) != len(self.carry):
            raise ValueError(f"the loop carries {len(self.carry)} values, next() got {len(values)}")
        values = tuple(v._carry_value() if _is_handle(v) else v for v in values)
        types = [a.type for a in self.op.inner_iter_args]
        self._next = [_to_type(v, t) for v, t in zip(values, types)]

    @property
    def results(self) -> list[Value]:
        """The carried values after the last iteration."""
        return [V.wrap(r) for r in self.op.results]

    def _terminate(self) -> None:
        if self._next is None and self.carry:
            if len(self._handles) != len(self.carry):
                raise ValueError("a loop with carried values must call loop.next(...)")
            # Only handles: each carries the value it holds at the end.
            self._next = [h._carry_value() for _, h in self._handles]
        scf.YieldOp(self._next or [])

    def _rebind_after(self) -> None:
        """After the loop, each carried handle holds the loop's result."""
        for i, h in self._handles:
            h._bind(self.op.results[i])


@contextlib.contextmanager
def for_range(lower: IntLike, upper: IntLike, step: IntLike = 1,
              carry: Sequence[Value | int | float] = ()) -> Iterator[Loop]:
    """An ``scf.for`` from `lower` to `upper` (exclusive) by `step`::

        with for_range(0, n, carry=[0]) as loop:     # loop.iv; loop.carry == [phase]
            (phase,) = loop.carry
            ...
            loop.next(phase ^ 1)
        (phase,) = loop.results

    The induction variable is i32 (what GPU loop counters are; an index
    counter lowers to 64-bit arithmetic) unless a bound is a value of
    another integer type (``index`` wins, then the widest). A carried Python
    int starts as an i32 constant. A Python bool is a ``TypeError``.
    """
    lower, upper, step = _bounds(lower, upper, step)
    op = scf.ForOp(lower, upper, step, _carry(carry))
    loop = Loop(op, carry)
    with ir.InsertionPoint(op.body):
        try:
            yield loop
        except BaseException:
            # The body raised: terminate it anyway, so that a caller that
            # handles the error still has a well-formed kernel.
            loop._next = loop._next or list(op.inner_iter_args)
            loop._terminate()
            raise
        loop._terminate()
    loop._rebind_after()


class Range:
    """``for i in range(n):`` / ``range(start, stop, step, carry=[...])``:
    an ``scf.for`` written as a Python loop. The body is built once (it is
    not run per iteration at build time); ``i`` is the induction variable.
    With carried values, read them from ``.carry`` and set the next ones
    with ``.next()``::

        loop = range(n, carry=[0])
        for i in loop:
            (phase,) = loop.carry
            loop.next(phase ^ 1)
        (phase,) = loop.results

    ``break``, ``continue`` and ``return`` cannot leave the body: they are
    Python statements that run while the kernel is built, so ``break`` or
    ``return`` makes the kernel fail when its ``with`` block ends.
    """

    def __init__(self, start: IntLike, stop: IntLike | None = None, step: IntLike = 1, *,
                 carry: Sequence[Value | int | float] = ()):
        if stop is None:
            start, stop = 0, start
        self._args = (start, stop, step)
        self._carry = list(carry)
        self._loop: Loop | None = None

    def __iter__(self) -> Iterator[Value]:
        if self._loop is not None:
            raise RuntimeError("a lang.range is iterated once")
        kernel = _KERNELS[-1] if _KERNELS else None
        lower, upper, step = _bounds(*self._args)
        op = scf.ForOp(lower, upper, step, _carry(self._carry))
        self._loop = loop = Loop(op, self._carry)
        ip = ir.InsertionPoint(op.body)
        ip.__enter__()
        finished = False
        try:
            yield loop.iv
            finished = True
        finally:
            if not finished:
                # break/return (or an exception) left the body: close the
                # loop so the IR stays well-formed, and make the kernel fail.
                loop._next = loop._next or list(op.inner_iter_args)
                if kernel is not None and kernel._deferred_error is None:
                    where = _file_line(op.location)
                    kernel._deferred_error = (
                        (f"{where}: " if where else "")
                        + "a lang.range loop body was left early (break or return): the body "
                        "is built once, at build time, so Python's break/return cannot end "
                        "the loop when the kernel runs; guard code with if_then instead")
            try:
                loop._terminate()
            finally:
                ip.__exit__(None, None, None)
            loop._rebind_after()

    def _built(self) -> Loop:
        if self._loop is None:
            raise RuntimeError("iterate the range first: `for i in loop:`")
        return self._loop

    @property
    def carry(self) -> list[Value]:
        """The carried values in this iteration (inside the body)."""
        return self._built().carry

    def next(self, *values: Value | int | float) -> None:
        """Set the carried values of the next iteration."""
        self._built().next(*values)

    @property
    def results(self) -> list[Value]:
        """The carried values after the loop."""
        return self._built().results


def range(start: IntLike, stop: IntLike | None = None, step: IntLike = 1, *,  # noqa: A001
          carry: Sequence[Value | int | float] = ()) -> Range:
    """Python's ``range`` for kernels: ``for i in range(n):`` builds an
    ``scf.for`` (see :class:`Range`). Bounds follow :func:`for_range`."""
    return Range(start, stop, step, carry=carry)


def unrolled_range(lower: IntLike, upper: IntLike,
                   body: Callable[..., Sequence[Value] | None], *, unroll: int,
                   carry: Sequence[Value | int | float] = ()) -> list[Value]:
    """A loop whose body the frontend copies `unroll` times per trip, then a
    remainder loop for the last ``(upper - lower) % unroll`` iterations.

    ``body(iv, *carry)`` emits one iteration and returns the next carry
    values; the final carry values are returned. LLVM does not runtime-unroll
    loops around the (convergent) NVVM barrier intrinsics; the frontend
    knows that its barrier protocol may be repeated, so it can unroll it.
    """
    if isinstance(unroll, bool) or not isinstance(unroll, int) or unroll < 1:
        raise ValueError(f"unroll must be a positive int, got {unroll!r}")
    lower, upper, _ = _bounds(lower, upper, 1)
    lower, upper = V.wrap(lower), V.wrap(upper)
    trips = arith.DivSIOp(upper - lower, V.as_value(unroll, upper.type)).result
    main_end = lower + V.wrap(trips) * unroll
    with for_range(lower, main_end, unroll, carry) as loop:
        values = loop.carry
        for j in builtins.range(unroll):
            iv = loop.iv + j if j else loop.iv
            values = list(body(iv, *values) or [])
        loop.next(*values)
    with for_range(main_end, upper, 1, loop.results) as rest:
        rest.next(*(body(rest.iv, *rest.carry) or []))
    return rest.results
