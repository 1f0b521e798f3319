"""`Kernel`: a context manager that builds one `gpu.func` kernel in a
`gpu.module`, plus the small helpers a barrier kernel needs."""
from __future__ import annotations

import contextlib
import functools
import math
import os

from mlir import ir
from mlir.dialects import arith, gpu, llvm, nvvm, scf

from .. import register_dialect
from ..runtime import validate_launch_shape
from . import values as V
from .smem import SmemPool, ptr_type

_KERNELS: list["Kernel"] = []

# Kernel parameter kinds: name -> MLIR type text.
PARAM_TYPES = {"ptr": "!llvm.ptr<1>", "i32": "i32", "i64": "i64", "f32": "f32"}


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


def current_kernel() -> "Kernel":
    if not _KERNELS:
        raise RuntimeError("no kernel is being built: use `with Kernel(...) as k:`")
    return _KERNELS[-1]


class Kernel:
    """Build one kernel:

        with Kernel("pingpong", block=32, grid=2, cluster=2,
                    params=[("out", "ptr"), ("iters", "i32")]) as k:
            ...  # emit ops; k.param("out"), k.thread_rank(), ...
        compiled = k.compile()   # .ptx, .cubin
    """

    def __init__(self, name: str, *, block, grid=None, cluster=None, chip: str | None = None,
                 params=(), context: ir.Context | None = None):
        self.name = name
        # The launcher's own rules, checked when the kernel is declared.
        if grid is None:
            grid = cluster if cluster is not None else 1
        self.grid, self.block, self.cluster = validate_launch_shape(grid, block, cluster)
        self.chip = chip
        self.params = list(params)
        for pname, kind in self.params:
            if kind not in PARAM_TYPES:
                raise ValueError(f"parameter {pname!r}: kind must be one of {sorted(PARAM_TYPES)}")
        self.context = context or ir.Context()
        register_dialect(self.context)
        self._symbols = 0
        self._stack = contextlib.ExitStack()
        self.module: ir.Module | None = None

    # -- building ------------------------------------------------------------
    def __enter__(self) -> "Kernel":
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
        types = [ir.Type.parse(PARAM_TYPES[kind]) for _, kind in self.params]
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
        try:
            if exc_type is None:
                gpu.ReturnOp([])
        finally:
            _KERNELS.remove(self)
            self._stack.close()
        if exc_type is None:
            self.module.operation.verify()

    def unique_symbol(self, stem: str) -> str:
        self._symbols += 1
        return f"__{stem}_{self._symbols}"

    def smem_pool(self) -> SmemPool:
        return SmemPool(self)

    def param(self, name: str) -> ir.Value:
        for i, (pname, _) in enumerate(self.params):
            if pname == name:
                return self.entry.arguments[i]
        raise KeyError(f"kernel {self.name!r} has no parameter {name!r}")

    @property
    def cluster_size(self) -> int | None:
        return math.prod(self.cluster) if self.cluster else None

    def check_cta_rank(self, rank) -> None:
        """An int rank must be an i32 >= 0 and name a CTA of the declared
        cluster (the verifier's rule; it cannot see a rank that wrapped)."""
        if not isinstance(rank, int):
            return
        if not 0 <= rank < 2**31:
            raise ValueError(f"CTA rank {rank} is out of range: ranks are non-negative i32")
        if self.cluster_size is not None and rank >= self.cluster_size:
            raise ValueError(f"CTA rank {rank} is out of range for a cluster of "
                             f"{self.cluster_size} CTAs")

    # -- values every barrier kernel needs -----------------------------------
    def thread_rank(self) -> ir.Value:
        """Linear thread index within the CTA, i32."""
        def tid(dim):
            return V.as_i32(gpu.ThreadIdOp(getattr(gpu.Dimension, dim)).result)

        bx, by, bz = self.block
        x = tid("x")
        if by == 1 and bz == 1:
            return x
        yz = arith.AddIOp(tid("y"), arith.MulIOp(tid("z"), V.as_i32(by)).result).result
        return arith.AddIOp(x, arith.MulIOp(yz, V.as_i32(bx)).result).result

    def is_thread(self, rank: int) -> ir.Value:
        return arith.CmpIOp(arith.CmpIPredicate.eq, self.thread_rank(), V.as_i32(rank)).result

    def cluster_rank(self) -> ir.Value:
        """`%cluster_ctarank`, i32."""
        return nvvm.read_ptx_sreg_cluster_ctarank(V.i32())

    def block_rank(self) -> ir.Value:
        """`%ctaid.x`, i32."""
        return V.as_i32(gpu.BlockIdOp(gpu.Dimension.x).result)

    def fence_barrier_init(self) -> None:
        from ..dialects import mbarrier
        mbarrier.FenceInitOp()

    def cluster_sync(self) -> None:
        """`barrier.cluster.arrive` + `barrier.cluster.wait` (all threads)."""
        nvvm.ClusterArriveOp()
        nvvm.ClusterWaitOp()

    def sync_threads(self) -> None:
        """`bar.sync 0` (all threads of the CTA)."""
        nvvm.Barrier0Op()

    @staticmethod
    def if_then(cond):
        """`with k.if_then(pred):` — the module-level `if_then`."""
        return if_then(cond)

    # -- global and shared memory --------------------------------------------
    def element_ptr(self, base: ir.Value, index, element_type: ir.Type) -> ir.Value:
        dyn = -2147483648  # LLVM::GEPOp::kDynamicIndex
        return llvm.GEPOp(base.type, base, [V.as_value(index, ir.IntegerType.get_signless(64))],
                          [dyn], element_type,
                          llvm.GEPNoWrapFlags.none).result

    def load(self, base: ir.Value, index, element_type: ir.Type | None = None) -> ir.Value:
        """`base[index]`, naturally aligned."""
        element_type = element_type or V.i32()
        return llvm.LoadOp(element_type, self.element_ptr(base, index, element_type),
                           alignment=_natural_alignment(element_type)).result

    def store(self, value: ir.Value, base: ir.Value, index) -> None:
        """`base[index] = value`, naturally aligned."""
        llvm.StoreOp(value, self.element_ptr(base, index, value.type),
                     alignment=_natural_alignment(value.type))

    # -- compiling -----------------------------------------------------------
    def compile(self, chip: str | None = None, **kwargs):
        from ..compiler import compile as compile_module
        return compile_module(self.module, chip or self.chip, **kwargs)


def _natural_alignment(type: ir.Type) -> int:
    return max(1, type.width // 8)


@contextlib.contextmanager
def if_then(cond):
    """`with if_then(pred):` emits the body under an scf.if (no-op for True)."""
    if cond is True:
        yield
        return
    op = scf.IfOp(V.as_i1(cond))
    with ir.InsertionPoint(op.then_block):
        yield
        scf.YieldOp([])


class IfElse:
    """`branch = if_else(pred)`; `with branch.then(): ...`;
    `with branch.otherwise(): ...`."""

    def __init__(self, cond):
        self.op = scf.IfOp(V.as_i1(cond), [], has_else=True)

    @contextlib.contextmanager
    def then(self):
        with ir.InsertionPoint(self.op.then_block):
            yield
            scf.YieldOp([])

    @contextlib.contextmanager
    def otherwise(self):
        with ir.InsertionPoint(self.op.else_block):
            yield
            scf.YieldOp([])


def if_else(cond) -> IfElse:
    return IfElse(cond)


class Loop:
    """`with for_range(lo, hi, step, carry=[...]) as loop:` — `loop.iv`,
    `loop.carry` (the iter_args), `loop.next(values)` sets what is yielded;
    `loop.results` after the block."""

    def __init__(self, op: scf.ForOp):
        self.op = op
        self.iv = op.induction_variable
        self.carry = list(op.inner_iter_args)
        self._next = None

    def next(self, *values) -> None:
        self._next = [v for v in values]

    @property
    def results(self):
        return list(self.op.results)


@contextlib.contextmanager
def for_range(lower, upper, step=1, carry=()):
    """An scf.for. The induction variable is i32 (what GPU loop counters
    are; an index counter lowers to 64-bit arithmetic in the loop) unless a
    bound is an index Value."""
    bounds = (lower, upper, step)
    if any(isinstance(b, ir.Value) and isinstance(b.type, ir.IndexType) for b in bounds):
        lower, upper, step = (V.as_index(b) for b in bounds)
    else:
        lower, upper, step = (V.as_i32(b) for b in bounds)
    op = scf.ForOp(lower, upper, step, [c for c in carry])
    loop = Loop(op)
    with ir.InsertionPoint(op.body):
        yield loop
        if loop._next is None and carry:
            raise ValueError("a loop with carried values must call loop.next(...)")
        scf.YieldOp(loop._next or [])


def unrolled_range(lower, upper, body, *, unroll: int, carry=()):
    """A loop whose body the frontend copies `unroll` times per trip, then a
    remainder loop for the last `(upper - lower) % unroll` iterations.

    `body(iv, *carry)` emits one iteration and returns the next carry values;
    the final carry values are returned. LLVM does not runtime-unroll loops
    around the (convergent) NVVM barrier intrinsics; the frontend knows that
    its barrier protocol may be repeated, so it can unroll it itself.
    """
    if not isinstance(unroll, int) or unroll < 1:
        raise ValueError(f"unroll must be a positive int, got {unroll!r}")
    lower, upper = V.as_i32(lower), V.as_i32(upper)
    trips = arith.DivSIOp(arith.SubIOp(upper, lower).result, V.as_i32(unroll)).result
    main_end = arith.AddIOp(lower, arith.MulIOp(trips, V.as_i32(unroll)).result).result
    with for_range(lower, main_end, unroll, carry) as loop:
        values = loop.carry
        for j in range(unroll):
            iv = arith.AddIOp(loop.iv, V.as_i32(j)).result if j else loop.iv
            values = list(body(iv, *values) or [])
        loop.next(*values)
    with for_range(main_end, upper, 1, loop.results) as rest:
        rest.next(*(body(rest.iv, *rest.carry) or []))
    return rest.results
