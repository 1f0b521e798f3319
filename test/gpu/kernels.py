"""The end-to-end kernels of the GPU suite, built with mbarrier_dialect.lang.

Each builder returns a `Case`: the kernel (built, not yet compiled), its
launch shape, its arguments with their inputs, and the expected outputs
computed here in numpy. `build_suite.py` compiles them into a manifest that
`run_manifest.py` executes on the GPU machine without MLIR.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, nvvm

from mbarrier_dialect import register_dialect
from mbarrier_dialect.dialects.mbarrier import Scope
from mbarrier_dialect.lang import (Kernel, MBarrier, TMABar, for_range, if_else, if_then,
                                   initialized_barrier, unrolled_range)
from mbarrier_dialect.lang import values as V
from mbarrier_dialect.runtime import validate_launch_shape

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


class MlirFileKernel:
    """A kernel compiled from an .mlir file rather than built with lang, with
    what build_suite.py uses of a lang Kernel (name, grid, block, cluster,
    compile()). The launch shape must be the one the gpu.func declares
    (known_block_size, known_cluster_size), so the manifest cannot launch
    it in a shape its code was not written for."""

    def __init__(self, path: str, name: str, *, grid, block, cluster=None, chip: str = "sm_90"):
        self.path, self.name, self.chip = path, name, chip
        self.grid, self.block, self.cluster = validate_launch_shape(grid, block, cluster)
        declared_block, declared_cluster = self._declared_shape()
        if declared_block != self.block or declared_cluster != self.cluster:
            raise ValueError(
                f"{path}: @{name} declares block {declared_block} and cluster "
                f"{declared_cluster}, but the suite launches block {self.block} and "
                f"cluster {self.cluster}")

    def _declared_shape(self):
        def dims(attrs, key):
            if key not in attrs:
                return None
            return tuple(ir.DenseI32ArrayAttr(attrs[key]))

        with ir.Context() as ctx:
            register_dialect(ctx)
            module = ir.Module.parseFile(self.path)
            for top in module.body.operations:
                if top.operation.name != "gpu.module":
                    continue
                for op in top.regions[0].blocks[0].operations:
                    if (op.operation.name == "gpu.func"
                            and ir.StringAttr(op.attributes["sym_name"]).value == self.name):
                        return (dims(op.attributes, "known_block_size"),
                                dims(op.attributes, "known_cluster_size"))
        raise ValueError(f"{self.path} has no gpu.func @{self.name}")

    def compile(self):
        from mbarrier_dialect import compile as compile_module

        return compile_module(Path(self.path), self.chip)


@dataclass
class Case:
    kernel: Kernel | MlirFileKernel
    args: list  # manifest arg dicts, in parameter order
    expect: dict  # buffer name -> np.ndarray
    inputs: dict = field(default_factory=dict)  # buffer name -> np.ndarray
    timeout_s: int = 60


def _i32(x):
    return V.as_i32(x)


def _eq(a, b):
    return arith.CmpIOp(arith.CmpIPredicate.eq, _i32(a), _i32(b)).result


def _buffer(name, array=None, *, fill=None, shape=None):
    if array is not None:
        return {"kind": "buffer", "name": name, "dtype": str(array.dtype),
                "shape": list(array.shape), "init": {"npy": f"{{case}}.{name}.npy"}}
    return {"kind": "buffer", "name": name, "dtype": "int32", "shape": list(shape),
            "init": {"fill": fill}}


def pingpong_2cta(iters: int = 10000) -> Case:
    """CTA 0 hands a value to CTA 1 through a remote arrival (release.cluster)
    and CTA 1 hands it back; each side checks the value it received."""
    with Kernel("pingpong_2cta", block=32, cluster=2,
                params=[("out", "ptr"), ("mailbox", "ptr"), ("iters", "i32")]) as k:
        bar = initialized_barrier(k, count=1)
        rank = k.cluster_rank()
        peer = arith.XOrIOp(rank, _i32(1)).result
        remote = bar.remote_view(peer)
        out, mailbox = k.param("out"), k.param("mailbox")
        with if_then(k.is_thread(0)):
            with for_range(0, k.param("iters"), carry=[_i32(0)]) as loop:
                (phase,) = loop.carry
                step = V.as_i32(loop.iv)
                branch = if_else(_eq(rank, 0))
                with branch.then():  # serve: write, arrive, wait for the echo
                    k.store(step, mailbox, 0)
                    remote.arrive(0)
                    bar.wait(0, phase, scope=Scope.cluster)
                with branch.otherwise():  # echo: wait, check, arrive back
                    bar.wait(0, phase, scope=Scope.cluster)
                    seen = k.load(mailbox, 0, ir.IntegerType.get_signless(32))
                    bad = arith.ExtUIOp(V.i32(), arith.CmpIOp(arith.CmpIPredicate.ne, seen, step).result).result
                    k.store(arith.AddIOp(k.load(out, 2), bad).result, out, 2)
                    remote.arrive(0)
                loop.next(arith.XOrIOp(phase, _i32(1)).result)
            k.store(V.as_i32(k.param("iters")), out, rank)
        k.cluster_sync()
    expect = np.array([iters, iters, 0], dtype=np.int32)
    return Case(k, [_buffer("out", fill=0, shape=[3]), _buffer("mailbox", fill=-1, shape=[1]),
                    {"kind": "scalar", "dtype": "int32", "value": iters}], {"out": expect})


def counted_arrivals(rounds: int = 2000, threads: int = 128, unroll: int = 1) -> Case:
    """Lane 0 of each warp arrives with count 32 on a barrier that expects
    one arrival per thread; every thread waits for every phase. With unroll
    > 1 the rounds run through lang.unrolled_range (copies plus remainder)."""
    name = "counted_arrivals" if unroll == 1 else f"counted_arrivals_u{unroll}"
    with Kernel(name, block=threads, params=[("out", "ptr")]) as k:
        bar = initialized_barrier(k, count=threads)
        tid = k.thread_rank()
        lane0 = _eq(arith.AndIOp(tid, _i32(31)).result, 0)

        def one_round(iv, phase, done):
            bar.arrive(0, pred=lane0, count=32)
            bar.wait(0, phase)
            k.sync_threads()  # nobody arrives on phase k+1 before all saw phase k
            return [arith.XOrIOp(phase, _i32(1)).result, arith.AddIOp(done, _i32(1)).result]

        start = [_i32(0), _i32(0)]
        if unroll == 1:
            with for_range(0, rounds, carry=start) as loop:
                loop.next(*one_round(loop.iv, *loop.carry))
            results = loop.results
        else:
            results = unrolled_range(0, rounds, one_round, unroll=unroll, carry=start)
        k.store(results[1], k.param("out"), tid)
    return Case(k, [_buffer("out", fill=-1, shape=[threads])],
                {"out": np.full(threads, rounds, dtype=np.int32)})


def predicated_remote(cluster: int = 4) -> Case:
    """CTAs 1..3 arrive on CTA 0's barrier (count 2) if their rank is odd:
    exactly two arrivals land, so after one more local arrival the next
    phase is still open (test_wait false)."""
    with Kernel("predicated_remote", block=32, cluster=cluster, params=[("out", "ptr")]) as k:
        bar = initialized_barrier(k, count=2)
        rank = k.cluster_rank()
        out = k.param("out")
        first = k.is_thread(0)
        odd = _eq(arith.AndIOp(rank, _i32(1)).result, 1)
        with if_then(arith.AndIOp(first, rank != 0).result):
            bar.remote_view(0).arrive(0, pred=odd)
        with if_then(arith.AndIOp(first, _eq(rank, 0)).result):
            bar.wait(0, 0, scope=Scope.cluster)
            k.store(_i32(1), out, 1)
        k.cluster_sync()  # every remote arrival has landed
        with if_then(arith.AndIOp(first, _eq(rank, 0)).result):
            bar.arrive(0)
            k.store(arith.ExtUIOp(V.i32(), bar.test_wait(0, 1)).result, out, 0)
        k.cluster_sync()
    return Case(k, [_buffer("out", fill=-1, shape=[2])], {"out": np.array([0, 1], np.int32)})


def all_to_one(cluster: int = 4, rounds: int = 2000, clusters: int = 1) -> Case:
    """Every CTA of a cluster arrives on CTA 0's barrier (count = cluster
    size, CTA 0 through a view of itself); CTA 0 then releases the others one
    by one through their `go` barriers. `clusters` independent clusters."""
    name = f"all_to_one_cluster{cluster}" + (f"_x{clusters}" if clusters > 1 else "")
    with Kernel(name, block=32, cluster=cluster, grid=cluster * clusters,
                params=[("out", "ptr"), ("rounds", "i32")]) as k:
        pool = k.smem_pool()
        to0 = MBarrier(pool, 1)
        go = MBarrier(pool, 1)
        pool.commit()
        to0.init(count=cluster)
        go.init(count=1)
        k.fence_barrier_init()
        k.cluster_sync()
        rank = k.cluster_rank()
        to_owner = to0.remote_view(0)
        peers = [go.remote_view(r) for r in range(1, cluster)]
        with if_then(k.is_thread(0)):
            with for_range(0, k.param("rounds"), carry=[_i32(0), _i32(0)]) as loop:
                phase, done = loop.carry
                to_owner.arrive(0)
                branch = if_else(_eq(rank, 0))
                with branch.then():
                    to0.wait(0, phase, scope=Scope.cluster)
                    for peer in peers:
                        peer.arrive(0)
                with branch.otherwise():
                    go.wait(0, phase, scope=Scope.cluster)
                loop.next(arith.XOrIOp(phase, _i32(1)).result, arith.AddIOp(done, _i32(1)).result)
            k.store(loop.results[1], k.param("out"), k.block_rank())
        k.cluster_sync()
    ctas = cluster * clusters
    return Case(k, [_buffer("out", fill=-1, shape=[ctas]),
                    {"kind": "scalar", "dtype": "int32", "value": rounds}],
                {"out": np.full(ctas, rounds, dtype=np.int32)}, timeout_s=120)


def bulk_copy_expect_tx(n: int = 1024, threads: int = 128) -> Case:
    """Thread 0 posts arrive.expect_tx(4 KiB) and starts a cp.async.bulk
    global->shared that completes on the same barrier; all threads wait,
    then copy the shared tile out."""
    nbytes = n * 4
    with Kernel("bulk_copy_expect_tx", block=threads, params=[("src", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc((n,), "int32", align=128)
        pool.commit()
        bar.init(count=1)
        k.fence_barrier_init()
        k.sync_threads()
        with if_then(k.is_thread(0)):
            bar.arrive(0, tx_count=nbytes)
            nvvm.CpAsyncBulkGlobalToSharedClusterOp(tile.ptr, k.param("src"), bar.ptr_to(0),
                                                    _i32(nbytes))
        bar.wait(0, 0)
        tid = k.thread_rank()
        with for_range(0, n // threads) as loop:
            i = arith.AddIOp(tid, arith.MulIOp(V.as_i32(loop.iv), _i32(threads)).result).result
            k.store(k.load(tile.ptr, i), k.param("out"), i)
    src = np.random.default_rng().integers(-2**31, 2**31 - 1, n, dtype=np.int32)
    return Case(k, [_buffer("src", src), _buffer("out", fill=-1, shape=[n])],
                {"out": src}, inputs={"src": src})


def _pipeline_kernel(name, stages, *, block_offset, checksum, cluster=None, grid=None):
    """Warp 0 produces 32-int items into a ring of `stages` shared slots,
    warp 1 consumes them (v -> 3 * v + 1): full/empty barrier pairs with
    phase tracking, `empty` waiting with phase_offset 1. Item i reads
    src[(i mod 4096) * 32 + lane] (+ the block index with `block_offset`);
    the consumer stores each result, or with `checksum` adds them per lane."""
    with Kernel(name, block=64, cluster=cluster, grid=grid,
                params=[("src", "ptr"), ("out", "ptr"), ("items", "i32")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, stages)
        empty = MBarrier(pool, stages, phase_offset=1)
        ring = pool.alloc((stages, 32), "int32", align=128)
        pool.commit()
        full.init(count=32)
        empty.init(count=32)
        k.sync_threads()
        tid = k.thread_rank()
        lane = arith.AndIOp(tid, _i32(31)).result
        block = k.block_rank()
        n = _i32(stages)

        def item(iv):
            i = V.as_i32(iv)
            stage = arith.RemUIOp(i, n).result
            phase = arith.AndIOp(arith.DivUIOp(i, n).result, _i32(1)).result
            elem = arith.AddIOp(arith.MulIOp(stage, _i32(32)).result, lane).result
            wrapped = arith.AndIOp(i, _i32(4095)).result
            src = arith.AddIOp(arith.MulIOp(wrapped, _i32(32)).result, lane).result
            glob = arith.AddIOp(arith.MulIOp(i, _i32(32)).result, lane).result
            return V.as_index(stage), phase, elem, src, glob

        branch = if_else(arith.CmpIOp(arith.CmpIPredicate.ult, tid, _i32(32)).result)
        with branch.then():  # producer warp
            with for_range(0, k.param("items")) as loop:
                stage, phase, elem, src, _ = item(loop.iv)
                empty.wait(stage, phase)
                v = k.load(k.param("src"), src)
                if block_offset:
                    v = arith.AddIOp(v, block).result
                k.store(v, ring.ptr, elem)
                full.arrive(stage)
        with branch.otherwise():  # consumer warp
            with for_range(0, k.param("items"), carry=[_i32(0)] if checksum else []) as loop:
                stage, phase, elem, _, glob = item(loop.iv)
                full.wait(stage, phase)
                v = k.load(ring.ptr, elem)
                r = arith.AddIOp(arith.MulIOp(v, _i32(3)).result, _i32(1)).result
                empty.arrive(stage)
                if checksum:
                    loop.next(arith.AddIOp(loop.carry[0], r).result)
                else:
                    k.store(r, k.param("out"), glob)
            if checksum:
                slot = arith.AddIOp(arith.MulIOp(block, _i32(32)).result, lane).result
                k.store(loop.results[0], k.param("out"), slot)
    return k


def pipeline(stages: int = 3, items: int = 4096) -> Case:
    """One CTA, every item checked element by element."""
    k = _pipeline_kernel(f"pipeline_{stages}stage", stages, block_offset=False, checksum=False)
    src = np.random.default_rng().integers(-2**20, 2**20, 4096 * 32, dtype=np.int32)
    expect = (np.resize(src.reshape(4096, 32), (items, 32)).reshape(-1) * 3 + 1).astype(np.int32)
    return Case(k, [_buffer("src", src), _buffer("out", fill=-1, shape=[items * 32]),
                    {"kind": "scalar", "dtype": "int32", "value": items}],
                {"out": expect}, inputs={"src": src})


def pipeline_stress(ctas: int, cluster: int | None, items: int = 100_000, stages: int = 4) -> Case:
    """The pipeline on `ctas` CTAs at once (every SM), launched in clusters;
    each CTA offsets its data by its block index and returns per-lane sums
    of all `items` results, which numpy checks exactly (mod 2^32)."""
    name = f"pipeline_stress_c{cluster or 1}_x{ctas}"
    k = _pipeline_kernel(name, stages, block_offset=True, checksum=True,
                         cluster=cluster, grid=ctas)
    src = np.random.default_rng().integers(-2**20, 2**20, 4096 * 32, dtype=np.int32)
    per_item = np.resize(src.reshape(4096, 32).astype(np.int64), (items, 32))
    base = (per_item * 3 + 1).sum(axis=0)  # per lane, block offset 0
    blocks = np.arange(ctas, dtype=np.int64)[:, None]
    sums = base[None, :] + 3 * items * blocks
    expect = ((sums + 2**31) % 2**32 - 2**31).astype(np.int32).reshape(-1)
    return Case(k, [_buffer("src", src), _buffer("out", fill=-1, shape=[ctas * 32]),
                    {"kind": "scalar", "dtype": "int32", "value": items}],
                {"out": expect}, inputs={"src": src}, timeout_s=300)


def first_example() -> Case:
    """examples/first_kernel.py, the README's first program: CTA 1 sees CTA
    0's remote arrival and writes its rank."""
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "first_kernel.py")
    spec = importlib.util.spec_from_file_location("first_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Case(module.build(), [_buffer("out", fill=-1, shape=[1])],
                {"out": np.array([1], np.int32)})


def remote_pingpong_example(iters: int = 10000) -> Case:
    """examples/remote_pingpong.mlir, compiled from the file: two CTAs of 128
    threads take turns through remote arrivals, handing each other a value
    through distributed shared memory; every thread counts the turns in which
    it read the value its peer sent."""
    k = MlirFileKernel(os.path.join(EXAMPLES, "remote_pingpong.mlir"), "remote_pingpong",
                       grid=2, block=128, cluster=2)
    ctas, threads = 2, 128
    return Case(k, [_buffer("out", fill=-1, shape=[ctas * threads]),
                    {"kind": "scalar", "dtype": "int32", "value": iters}],
                {"out": np.full(ctas * threads, iters, dtype=np.int32)}, timeout_s=120)


# The suites: the functional suite, a smaller one for compute-sanitizer
# (which slows kernels by orders of magnitude), and the stress suite.
SUITES = {
    "full": [pingpong_2cta, counted_arrivals, predicated_remote, all_to_one,
             bulk_copy_expect_tx, lambda: pipeline(2), lambda: pipeline(4), first_example,
             lambda: counted_arrivals(2003, unroll=4), remote_pingpong_example],
    "sanitize": [lambda: pingpong_2cta(200), lambda: counted_arrivals(50), predicated_remote,
                 lambda: all_to_one(4, 50), bulk_copy_expect_tx,
                 lambda: pipeline(2, 256), lambda: pipeline(4, 256), first_example,
                 lambda: remote_pingpong_example(200)],
    # The stress shapes (every SM, clusters of 2/4/8) at counts compute-sanitizer can take.
    "stress-sanitize": [lambda: pipeline_stress(132, 2, items=2000),
                        lambda: pipeline_stress(132, 4, items=2000),
                        lambda: pipeline_stress(128, 8, items=2000),
                        lambda: all_to_one(2, 2000, clusters=66),
                        lambda: all_to_one(4, 2000, clusters=33),
                        lambda: all_to_one(8, 2000, clusters=16)],
    "stress": [lambda: pipeline_stress(132, 2), lambda: pipeline_stress(132, 4),
               lambda: pipeline_stress(128, 8),
               lambda: all_to_one(2, 100_000, clusters=66), lambda: all_to_one(4, 100_000, clusters=33),
               lambda: all_to_one(8, 100_000, clusters=16)],
}
BUILDERS = SUITES["full"]
