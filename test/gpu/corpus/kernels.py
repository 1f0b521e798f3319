"""The end-to-end kernels of the GPU suite, built with mbarrier_dialect.lang.

Each builder returns a `manifest.Case`: the kernel (built, not yet
compiled), its arguments with their inputs, and the expected outputs
computed here in numpy. The examples of examples/ are in the suite as they
are (each module's `case()`). `build_suite.py` compiles them into a
manifest that `run_manifest.py` executes on the GPU machine without MLIR.
"""
from __future__ import annotations

import importlib.util
import operator as O
import os
import sys
from pathlib import Path

import numpy as np
from mlir import ir

from mbarrier_dialect import register_dialect
from mbarrier_dialect.lang import (Kernel, MBarrier, TMABar, cp_async_bulk_tensor, for_range,
                                   if_else, if_then, initialized_barrier, prefetch_tensormap,
                                   unrolled_range)
from mbarrier_dialect.manifest import Case, buffer, scalar, tensormap
from mbarrier_dialect.runtime import validate_launch_shape
from named_pingpong import named_pingpong  # noqa: E402 (test/gpu/corpus is on the path)

EXAMPLES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                         "examples"))
# The Python examples, each in the suite through its case().
EXAMPLE_MODULES = ("first_kernel", "producer_consumer", "cluster_ring", "bulk_copy",
                   "tma_pipeline", "gemm", "attention")


def example(name: str):
    """examples/<name>.py as a module of the `examples` package
    (``examples.<name>``: gemm.py and attention.py import their parts
    relatively). pytest's pythonpath has the repository root, so the
    package imports as it is; a script of this folder run from the
    repository root (build_suite.py) has only this folder on its path, so
    the package is loaded by path from examples/__init__.py, once."""
    if "examples" not in sys.modules:
        try:
            importlib.import_module("examples")
        except ModuleNotFoundError:
            init = os.path.join(EXAMPLES, "__init__.py")
            spec = importlib.util.spec_from_file_location(
                "examples", init, submodule_search_locations=[EXAMPLES])
            package = importlib.util.module_from_spec(spec)
            sys.modules["examples"] = package
            spec.loader.exec_module(package)
    return importlib.import_module(f"examples.{name}")


class MlirFileKernel:
    """A kernel compiled from an .mlir file rather than built with lang, with
    what the manifest writer uses of a lang Kernel (name, grid, block,
    cluster, compile()). The launch shape must be the one the gpu.func
    declares (known_block_size, known_cluster_size), so the manifest cannot
    launch it in a shape its code was not written for."""

    def __init__(self, path: str, name: str, *, grid, block, cluster=None, chip: str = "sm_90",
                 **options):
        self.path, self.name, self.chip, self.options = path, name, chip, options
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

    def compile(self, **kwargs):
        """compile() of the file for the kernel's chip; `kwargs` as compile()'s."""
        from mbarrier_dialect import compile as compile_module

        return compile_module(Path(self.path), self.chip, **{**self.options, **kwargs})


def pingpong_2cta(iters: int = 10000) -> Case:
    """CTA 0 hands a value to CTA 1 through a remote arrival (release.cluster)
    and CTA 1 hands it back; each side checks the value it received."""
    with Kernel("pingpong_2cta", block=32, cluster=2,
                params=[("out", "ptr"), ("mailbox", "ptr"), ("iters", "i32")]) as k:
        bar = initialized_barrier(k, count=1)
        rank = k.cluster_rank()
        remote = bar.remote_view(rank ^ 1)
        out, mailbox = k.param("out"), k.param("mailbox")
        with if_then(k.is_thread(0)):
            with for_range(0, k.param("iters"), carry=[0]) as loop:
                (phase,) = loop.carry
                step = loop.iv
                side = if_else(rank == 0)
                with side.then():  # serve: write, arrive, wait for the echo
                    k.store(step, mailbox, 0)
                    remote.arrive(0)
                    bar.wait(0, phase)
                with side.otherwise():  # echo: wait, check, arrive back
                    bar.wait(0, phase)
                    bad = (k.load(mailbox, 0) != step).to("i32")
                    k.store(k.load(out, 2) + bad, out, 2)
                    remote.arrive(0)
                loop.next(phase ^ 1)
            k.store(k.param("iters"), out, rank)
        k.epilogue()
    expect = np.array([iters, iters, 0], dtype=np.int32)
    return Case(k, [buffer("out", fill=0, shape=[3]), buffer("mailbox", fill=-1, shape=[1]),
                    scalar(iters)], {"out": expect})


def counted_arrivals(rounds: int = 2000, threads: int = 128, unroll: int = 1) -> Case:
    """Lane 0 of each warp arrives with count 32 on a barrier that expects
    one arrival per thread; every thread waits for every phase. With unroll
    > 1 the rounds run through lang.unrolled_range (copies plus remainder)."""
    name = "counted_arrivals" if unroll == 1 else f"counted_arrivals_u{unroll}"
    with Kernel(name, block=threads, params=[("out", "ptr")]) as k:
        bar = initialized_barrier(k, count=threads)
        tid = k.thread_rank()
        lane0 = tid % 32 == 0

        def one_round(iv, phase, done):
            bar.arrive(0, pred=lane0, count=32)
            bar.wait(0, phase)
            k.sync_threads()  # nobody arrives on phase k+1 before all saw phase k
            return [phase ^ 1, done + 1]

        if unroll == 1:
            with for_range(0, rounds, carry=[0, 0]) as loop:
                loop.next(*one_round(loop.iv, *loop.carry))
            results = loop.results
        else:
            results = unrolled_range(0, rounds, one_round, unroll=unroll, carry=[0, 0])
        k.store(results[1], k.param("out"), tid)
    return Case(k, [buffer("out", fill=-1, shape=[threads])],
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
        with if_then(first & (rank != 0)):
            bar.remote_view(0).arrive(0, pred=rank % 2 == 1)
        with if_then(first & (rank == 0)):
            bar.wait(0, 0)
            k.store(1, out, 1)
        k.cluster_sync()  # every remote arrival has landed
        with if_then(first & (rank == 0)):
            bar.arrive(0)
            k.store(bar.test_wait(0, 1).to("i32"), out, 0)
        k.epilogue()
    return Case(k, [buffer("out", fill=-1, shape=[2])], {"out": np.array([0, 1], np.int32)})


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
        k.prologue({to0: cluster, go: 1})
        rank = k.cluster_rank()
        to_owner = to0.remote_view(0)
        peers = [go.remote_view(r) for r in range(1, cluster)]
        with if_then(k.is_thread(0)):
            with for_range(0, k.param("rounds"), carry=[0, 0]) as loop:
                phase, done = loop.carry
                to_owner.arrive(0)
                side = if_else(rank == 0)
                with side.then():
                    to0.wait(0, phase)
                    for peer in peers:
                        peer.arrive(0)
                with side.otherwise():
                    go.wait(0, phase)
                loop.next(phase ^ 1, done + 1)
            k.store(loop.results[1], k.param("out"), k.block_rank())
        k.epilogue()
    ctas = cluster * clusters
    return Case(k, [buffer("out", fill=-1, shape=[ctas]), scalar(rounds)],
                {"out": np.full(ctas, rounds, dtype=np.int32)}, timeout_s=120)


def pipeline_stress(ctas: int, cluster: int | None, items: int = 100_000, stages: int = 4) -> Case:
    """The producer/consumer ring of examples/producer_consumer.py on `ctas`
    CTAs at once (every SM), launched in clusters; each CTA offsets its data
    by its block index and returns per-lane sums of all `items` results,
    which numpy checks exactly (mod 2^32)."""
    name = f"pipeline_stress_c{cluster or 1}_x{ctas}"
    ring_of = example("producer_consumer").Ring
    with Kernel(name, block=64, cluster=cluster, grid=ctas,
                params=[("src", "ptr"), ("out", "ptr"), ("items", "i32")]) as k:
        ring = ring_of.allocate(k, stages)
        tid = k.thread_rank()
        lane, warp = tid % 32, tid // 32
        block = k.block_rank()
        role = if_else(warp == 0)
        with role.then():  # producer warp
            ring.produce(k.param("items"), lane,
                         lambda i: k.load(k.param("src"), (i % 4096) * 32 + lane) + block)
        with role.otherwise():  # consumer warp: per-lane sums
            loop = ring.consume(k.param("items"), lane,
                                lambda loop, v: loop.next(loop.carry[0] + v * 3 + 1), carry=[0])
            k.store(loop.results[0], k.param("out"), block * 32 + lane)
        k.epilogue()
    src = np.random.default_rng().integers(-2**20, 2**20, 4096 * 32, dtype=np.int32)
    per_item = np.resize(src.reshape(4096, 32).astype(np.int64), (items, 32))
    base = (per_item * 3 + 1).sum(axis=0)  # per lane, block offset 0
    blocks = np.arange(ctas, dtype=np.int64)[:, None]
    sums = base[None, :] + 3 * items * blocks
    expect = ((sums + 2**31) % 2**32 - 2**31).astype(np.int32).reshape(-1)
    return Case(k, [buffer("src", src), buffer("out", fill=-1, shape=[ctas * 32]), scalar(items)],
                {"out": expect}, inputs={"src": src}, timeout_s=300)


# The operators of lang.Value, run on the GPU against Python's own results:
# name -> (how the kernel computes it from a and b, how Python does).
OPERATORS = {
    "add": (O.add, O.add), "sub": (O.sub, O.sub), "mul": (O.mul, O.mul),
    "floordiv": (O.floordiv, O.floordiv), "mod": (O.mod, O.mod),
    "and": (O.and_, O.and_), "or": (O.or_, O.or_), "xor": (O.xor, O.xor),
    "lshift": (lambda a, b: a << (b & 31), lambda a, b: a << (b & 31)),
    "rshift": (lambda a, b: a >> (b & 31), lambda a, b: a >> (b & 31)),
    "eq": (O.eq, O.eq), "ne": (O.ne, O.ne), "lt": (O.lt, O.lt), "le": (O.le, O.le),
    "gt": (O.gt, O.gt), "ge": (O.ge, O.ge),
    "neg": (lambda a, b: -a, lambda a, b: -a), "invert": (lambda a, b: ~a, lambda a, b: ~a),
    "ring_prev": (lambda a, b: (a - 1) % 4, lambda a, b: (a - 1) % 4),
    "rsub": (lambda a, b: 7 - a, lambda a, b: 7 - a),
    "rfloordiv": (lambda a, b: 1000 // b, lambda a, b: 1000 // b),
    "mixed": (lambda a, b: (a * 3 + b // 2) ^ (a >> 3), lambda a, b: (a * 3 + b // 2) ^ (a >> 3)),
    "i1_ops": (lambda a, b: ((a < 0) & (b > 0)) | ~((a ^ b) == 0),
               lambda a, b: bool((a < 0) and (b > 0)) or not ((a ^ b) == 0)),
    "select": (lambda a, b: _select(a < b, a, b), lambda a, b: min(a, b)),
}
WIDE = {  # i64 results of i32 operands promoted by one i64 operand
    "mul64": (lambda a, b: a.to("i64") * b, lambda a, b: a * b),
    "floordiv64": (lambda a, b: (a.to("i64") << 20) // b, lambda a, b: (a << 20) // b),
    "mod64": (lambda a, b: (a.to("i64") << 20) % b, lambda a, b: (a << 20) % b),
}


def _select(c, a, b):
    from mbarrier_dialect.lang import select
    return select(c, a, b)


def _wrap(x: int, bits: int) -> int:
    return (int(x) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))


def operators(n: int = 4096) -> Case:
    """Each operator of lang values on n pairs (a[i], b[i]) of signed i32s,
    negatives and extremes included: out[op, i] must be Python's result
    wrapped to 32 bits (comparisons 0 or 1), wide[op, i] to 64 bits."""
    rng = np.random.default_rng()
    edge = np.array([-2**31, -2**31 + 1, -13, -7, -2, -1, 0, 1, 2, 3, 7, 13, 2**31 - 1], np.int64)
    a = np.concatenate([np.repeat(edge, len(edge)), rng.integers(-2**31, 2**31, n)])[:n]
    b = np.concatenate([np.tile(edge, len(edge)), rng.integers(-2**31, 2**31, n)])[:n]
    b[b == 0] = 5                                    # no division by zero
    b[(a == -2**31) & (b == -1)] = 3                 # no INT_MIN // -1
    a, b = a.astype(np.int32), b.astype(np.int32)
    threads = 128
    with Kernel("operators", block=threads, grid=n // threads,
                params=[("a", "ptr"), ("b", "ptr"), ("out", "ptr"), ("wide", "ptr")]) as k:
        i = k.block_rank() * threads + k.thread_rank()
        x, y = k.load(k.param("a"), i), k.load(k.param("b"), i)
        for row, (build, _) in enumerate(OPERATORS.values()):
            r = build(x, y)
            k.store(r.to("i32") if str(r.type) == "i1" else r, k.param("out"), row * n + i)
        for row, (build, _) in enumerate(WIDE.values()):
            k.store(build(x, y), k.param("wide"), row * n + i, dtype="i64")
    out = np.array([[_wrap(py(int(p), int(q)), 32) for p, q in zip(a, b)]
                    for _, py in OPERATORS.values()], np.int32)
    wide = np.array([[_wrap(py(int(p), int(q)), 64) for p, q in zip(a, b)]
                     for _, py in WIDE.values()], np.int64)
    return Case(k, [buffer("a", a), buffer("b", b),
                    buffer("out", fill=-1, shape=[len(OPERATORS), n]),
                    buffer("wide", fill=-1, shape=[len(WIDE), n], dtype="int64")],
                {"out": out, "wide": wide}, inputs={"a": a, "b": b})


def remote_pingpong_example(iters: int = 10000) -> Case:
    """examples/remote_pingpong.mlir, compiled from the file: two CTAs of 128
    threads take turns through remote arrivals, handing each other a value
    through distributed shared memory; every thread counts the turns in which
    it read the value its peer sent."""
    k = MlirFileKernel(os.path.join(EXAMPLES, "remote_pingpong.mlir"), "remote_pingpong",
                       grid=2, block=128, cluster=2)
    ctas, threads = 2, 128
    return Case(k, [buffer("out", fill=-1, shape=[ctas * threads]), scalar(iters)],
                {"out": np.full(ctas * threads, iters, dtype=np.int32)}, timeout_s=120)


def nvgpu_ws_tma_example(tiles: int = 64) -> Case:
    """examples/nvgpu_ws_tma.mlir, written in nvgpu and compiled with
    raise_nvgpu: a TMA ring of 2 stages, one producer warp, two consumer
    warps (one releasing late); out = each tile of src, plus one."""
    k = MlirFileKernel(os.path.join(EXAMPLES, "nvgpu_ws_tma.mlir"), "nvgpu_ws_tma",
                       grid=1, block=96, raise_nvgpu=True)
    src = np.random.default_rng(24).integers(-2**30, 2**30, (tiles * 16, 64), dtype=np.int32)
    return Case(k, [buffer("src", src), tensormap("src", src.shape, (16, 64)),
                    buffer("out", fill=-1, shape=[tiles * 1024]), scalar(tiles)],
                {"out": (src + 1).reshape(-1)}, inputs={"src": src})


def first_example() -> Case:
    """examples/first_kernel.py: CTA 1 sees CTA 0's remote arrival."""
    return example("first_kernel").case()


def producer_consumer_example(stages: int, items: int = 4096) -> Case:
    """examples/producer_consumer.py: every item checked element by element."""
    return example("producer_consumer").case(stages, items)


def cluster_ring_example(items: int = 2000, stages: int = 2) -> Case:
    """examples/cluster_ring.py: every value that went around the ring checked."""
    return example("cluster_ring").case(stages, items, timeout_s=120)


def bulk_copy_example() -> Case:
    """examples/bulk_copy.py: every copied element checked."""
    return example("bulk_copy").case()


def tma_pipeline(cluster: int = 1, depth: int = 4, warps: int = 2, tiles: int = 64,
                 clusters: int = 1) -> Case:
    """examples/tma_pipeline.py (lang.Pipeline): a TMA ring of `depth`
    stages; in a cluster of `cluster` CTAs every CTA loads 1/cluster of each
    tile and multicasts it along the row, and the consumers release each
    stage to every CTA of the row. Every CTA's sums checked exactly."""
    name = f"tma_pipeline_c{cluster}_d{depth}_w{warps}_x{cluster * clusters}"
    rows = 32 if depth <= 4 else 16          # the stages fit 48 KiB of static shared memory
    return example("tma_pipeline").case(cluster, depth, warps, tiles, clusters, name=name,
                                        rows=rows)


def gemm_example(cluster: int = 1) -> Case:
    """examples/gemm.py (TMA + wgmma, its operand ring a lang.Pipeline): a
    GEMM of a shape off the tile on small integers, its f32 output checked
    exactly; `cluster` 2: the B tile multicast along a 2 x 1 cluster."""
    module = example("gemm")
    cfg = module.Config(bn=128, stages=4, out="f32", cluster=cluster, persistent=False,
                        epilogue="direct")
    return module.case(200, 328, 200, cfg, seed=5, name=f"gemm_c{cluster}_exact")


def gemm_pingpong_example() -> Case:
    """examples/gemm.py with ping-pong consumers (``consumers="pingpong"``,
    persistent): 4 CTAs walk 9 x 3 tiles of 64 x 256 (7 or 6 each, so each
    consumer warpgroup ends on either parity), their turns taken through an
    ordered sequence and the shared ring skipped with pipe.advance; odd N,
    K of 4 blocks; the f32 output checked exactly."""
    module = example("gemm")
    cfg = module.Config(bm=64, bn=256, stages=4, out="f32", cluster=1, persistent=True,
                        consumers="pingpong", epilogue="direct")
    return module.case(520, 651, 200, cfg, seed=7, name="gemm_pingpong_exact", sms=4)


def gemm_layout_example(a_major: str, b_major: str) -> Case:
    """examples/gemm.py with an M-major A and/or N-major B (``Config.a_major``
    / ``b_major``: 64 x 64 TMA boxes, wgmma's transpose bits), persistent,
    4 CTAs walking the tiles, the TMA-store epilogue; the integer-valued
    product checked exactly in bf16 (rounded as the kernel rounds).
    (a_major, b_major) = ("MN", "MN"): the ping-pong 128 x 128 tiles at
    K = 8 (one block, below a stage); ("K", "MN"): cooperative 128 x 256."""
    module = example("gemm")
    if (a_major, b_major) == ("MN", "MN"):
        cfg = module.Config(bm=128, bn=128, stages=6, cluster=1, persistent=True, epilogue="tma",
                            consumers="pingpong", a_major="MN", b_major="MN")
        M, N, K = 520, 264, 8
    else:
        cfg = module.Config(bn=256, stages=4, cluster=1, persistent=True, epilogue="tma",
                            a_major=a_major, b_major=b_major)
        M, N, K = 264, 1032, 136
    return module.case(M, N, K, cfg, seed=M + N + K, name=f"gemm_a{a_major}_b{b_major}_exact",
                       sms=4)


def gemm_splitk_example() -> Case:
    """examples/gemm.py with split-K (``Config(split_k=3)``,
    gemm_parts/splitk.py): 4 CTAs walk 3 x 5 tiles x 3 K slices of 17
    blocks (5, 6, 6; the last block partial), odd N; every slice's f32
    partial checked exactly."""
    module = example("gemm")
    cfg = module.Config(bn=256, stages=4, cluster=1, persistent=True, epilogue="direct",
                        split_k=3)
    return module.case(264, 1031, 1032, cfg, seed=11, name="gemm_splitk_exact", sms=4)


def gemm_splitk_reduce_example() -> Case:
    """The split-K reduction (gemm_parts/splitk.py's second kernel): 3
    slices of 130 x 777 summed into bf16 C, checked bit for bit."""
    example("gemm")
    from examples.gemm_parts import splitk
    return splitk.reduce_case(130, 777, 3, seed=3, name="gemm_splitk_reduce_exact")


def attention_example(causal: bool = False, pingpong: bool = False) -> Case:
    """examples/attention.py (Q through a TMABar, K and V as two
    lang.Pipeline rings, two consumer warpgroups, the overlapped schedule):
    one-hot attention (attention.exact_data) at head dim 128 over 300 keys
    (two full kv blocks and a masked tail), O and lse checked bit for bit;
    `causal` with the causal mask, `pingpong` with the named-barrier turns."""
    module = example("attention")
    cfg = module.Config(head_dim=128, causal=causal, pingpong=pingpong)
    name = "attention_d128" + "_causal" * causal + "_pp" * pingpong + "_exact"
    return module.case(2, 1, 300, cfg, seed=7, name=name)


def attention_persistent() -> Case:
    """examples/attention.py persistent (Config.persistent): Q through a
    2-stage pipe, three consumer warpgroups taking turns round the ring,
    built for 3 CTAs so each walks two causal tiles of 192 rows (2 x 450
    keys): O and lse bit for bit. Its per-tile-turn form hung on the H200
    (docs/pipelines.md, "Persistent")."""
    module = example("attention")
    cfg = module.Config(head_dim=64, block_m=192, causal=True, pingpong=True, persistent=True)
    return module.case(2, 1, 450, cfg, seed=9, name="attention_d64_m192_causal_pp_p_exact", sms=3)


def tma_pipeline_rowcol(depth: int = 4, warps: int = 2, tiles: int = 48,
                        clusters: int = 1) -> Case:
    """A 2 x 2 cluster pipe with ``multicast="rowcol"`` (CUTLASS's GEMM
    shape): each stage holds an A tile shared by the CTAs of a row and a B
    tile shared by the CTAs of a column. Each CTA loads half of its row's A
    tile (multicast along the row) and half of its column's B tile (along
    the column); each consumer warp releases the stage to the 3 CTAs that
    write into it (the derived empty count: warps x 3). Every CTA's sums of
    its A and B tiles checked exactly."""
    from mlir.dialects import gpu as gpu_d

    from mbarrier_dialect import lang
    from mbarrier_dialect.lang import Pipeline

    rows, cols = 16, 64                  # two 4 KiB tiles per stage
    half, tile = rows // 2, rows * cols
    name = f"tma_pipeline_rowcol_d{depth}_w{warps}_x{4 * clusters}"
    with Kernel(name, block=32 * (warps + 1), grid=(2, 2 * clusters), cluster=(2, 2),
                params=[("a", "ptr"), ("b", "ptr"), ("amap", "ptr"), ("bmap", "ptr"),
                        ("out", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, depth, kind="tma", consumers=warps, multicast="rowcol")
        stages = pool.alloc((depth, 2 * tile), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])
        tid, rank = k.thread_rank(), k.cluster_rank()
        x, y = rank % 2, rank // 2
        c = lang.as_i32(gpu_d.BlockIdOp(gpu_d.Dimension.y).result) // 2   # the cluster
        with if_then(tid == 0):
            producer = pipe.producer()
            for t in lang.range(tiles, carry=[producer]):
                slot = producer.acquire()
                arow = ((c * 2 + y) * tiles + t) * rows + x * half    # my half of my row's A
                brow = ((c * 2 + x) * tiles + t) * rows + y * half    # my half of my column's B
                slot.cp_async_bulk_tensor(stages, k.param("amap"), [arow, 0],
                                          box_bytes=half * cols * 4, multicast="row",
                                          byte_offset_in_stage=x * (half * cols * 4))
                slot.cp_async_bulk_tensor(stages, k.param("bmap"), [brow, 0],
                                          box_bytes=half * cols * 4, multicast="col",
                                          byte_offset_in_stage=tile * 4 + y * (half * cols * 4))
                slot.commit(bytes=2 * tile * 4)
            producer.tail()
        with if_then(tid >= 32):
            me = tid - 32
            consumer = pipe.consumer()
            loop = lang.range(tiles, carry=[consumer, 0, 0])
            for _ in loop:
                _, sa, sb = loop.carry
                slot = consumer.wait()
                for j in range(tile // (32 * warps)):
                    sa = sa + stages.load((slot.index, me + j * 32 * warps))
                    sb = sb + stages.load((slot.index, tile + me + j * 32 * warps))
                k.sync_warp()
                slot.release(pred=(me % 32) == 0)
                loop.next(consumer, sa, sb)
            _, sa, sb = loop.results
            cta = (c * 4 + rank) * (64 * warps)
            k.store(sa, k.param("out"), cta + me)
            k.store(sb, k.param("out"), cta + 32 * warps + me)
        k.epilogue()
    rng = np.random.default_rng(17)
    seqs = clusters * 2 * tiles
    a = rng.integers(-2**31, 2**31 - 1, (seqs * rows, cols), dtype=np.int32)
    b = rng.integers(-2**31, 2**31 - 1, (seqs * rows, cols), dtype=np.int32)

    def sums(data, seq):
        part = data.reshape(clusters * 2, tiles, -1, 32 * warps)[seq].astype(np.int64)
        return ((part.sum(axis=(0, 1)) + 2**31) % 2**32 - 2**31).astype(np.int32)

    expect = np.zeros((clusters * 4, 64 * warps), np.int32)
    for cl in range(clusters):
        for r in range(4):
            xx, yy = r % 2, r // 2
            expect[cl * 4 + r, :32 * warps] = sums(a, cl * 2 + yy)
            expect[cl * 4 + r, 32 * warps:] = sums(b, cl * 2 + xx)
    return Case(k, [buffer("a", a), buffer("b", b),
                    tensormap("a", a.shape, (half, cols)), tensormap("b", b.shape, (half, cols)),
                    buffer("out", fill=-1, shape=[clusters * 4, 64 * warps])],
                {"out": expect}, inputs={"a": a, "b": b})


# The pipelines of issue 12: a 1-CTA TMA ring, 2- and 4-CTA multicast
# clusters with remote release, a deep ring (D = 8) with one consumer warp;
# the stress shapes fill every SM.
PIPES = [lambda: tma_pipeline(1, 4, 2), lambda: tma_pipeline(2, 4, 2),
         lambda: tma_pipeline(4, 4, 2), lambda: tma_pipeline(1, 8, 1, tiles=200),
         lambda: tma_pipeline(2, 8, 1, tiles=200), lambda: tma_pipeline(4, 2, 4),
         tma_pipeline_rowcol, lambda: tma_pipeline_rowcol(2, 1, tiles=8, clusters=33)]


# The suites: the functional suite, a smaller one for compute-sanitizer
# (which slows kernels by orders of magnitude), and the stress suite.
def tma_tile(row: int = 64, col: int = 128, name: str = "tma_tile") -> Case:
    """One CTA TMA-loads the 64x64 int32 box at (`row`, `col`) of a 256x256
    array (a tiled tensor map, encoded at launch) into shared memory:
    thread 0 posts the box bytes (arrive.expect_tx) and issues
    cp.async.bulk.tensor.2d, everyone waits, then writes the tile out.
    Out-of-bounds parts of the box read as zero."""
    n, box, threads = 256, 64, 128
    with Kernel(name, block=threads, params=[("src", "ptr"), ("tmap", "ptr"), ("out", "ptr"),
                                             ("row", "i32"), ("col", "i32")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(box * box, "i32", align=128)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.is_thread(0)):
            prefetch_tensormap(k.param("tmap"))
            bar.arrive(0, tx_count=tile.nbytes)
            cp_async_bulk_tensor(tile, k.param("tmap"), [k.param("row"), k.param("col")],
                                 bar=bar)
        bar.wait(0, 0)
        tid = k.thread_rank()
        with for_range(0, box * box // threads) as loop:
            i = loop.iv * threads + tid
            k.store(k.load(tile, i), k.param("out"), i)
    src = np.random.default_rng(7).integers(-2**31, 2**31 - 1, (n, n), dtype=np.int32)
    padded = np.zeros((n + 2 * box, n + 2 * box), np.int32)
    padded[box:box + n, box:box + n] = src
    expect = padded[box + row:box + row + box, box + col:box + col + box].copy()
    return Case(k, [buffer("src", src), tensormap("src", (n, n), (box, box)),
                    buffer("out", fill=-1, shape=[box, box]), scalar(row), scalar(col)],
                {"out": expect}, inputs={"src": src})


SUITES = {
    # all_to_one(16): a non-portable cluster (more than 8 CTAs), which the
    # runtime launches with non-portable sizes allowed.
    "full": [pingpong_2cta, counted_arrivals, predicated_remote, all_to_one,
             lambda: all_to_one(16, 2000),
             lambda: counted_arrivals(2003, unroll=4), remote_pingpong_example, operators,
             first_example, lambda: producer_consumer_example(2),
             lambda: producer_consumer_example(4), cluster_ring_example, bulk_copy_example,
             tma_tile, lambda: tma_tile(224, -16, name="tma_tile_oob"), nvgpu_ws_tma_example, named_pingpong]
            + PIPES
            + [lambda: gemm_example(1), lambda: gemm_example(2), gemm_pingpong_example,
               lambda: gemm_layout_example("MN", "MN"), lambda: gemm_layout_example("K", "MN"),
               gemm_splitk_example, gemm_splitk_reduce_example, attention_example, lambda: attention_example(causal=True, pingpong=True),
               attention_persistent],
    "sanitize": [lambda: pingpong_2cta(200), lambda: counted_arrivals(50), predicated_remote,
                 lambda: all_to_one(4, 50), lambda: remote_pingpong_example(200),
                 lambda: operators(512), first_example,
                 lambda: producer_consumer_example(2, 256),
                 lambda: producer_consumer_example(4, 256),
                 lambda: cluster_ring_example(64), bulk_copy_example,
                 lambda: tma_pipeline(1, 4, 2, tiles=16), lambda: tma_pipeline(2, 4, 2, tiles=16),
                 lambda: tma_pipeline(4, 2, 1, tiles=16), lambda: tma_pipeline(1, 8, 1, tiles=24),
                 lambda: gemm_example(2), lambda: named_pingpong(100),
                 lambda: attention_example(causal=True, pingpong=True)],
    # The stress shapes (every SM, clusters of 2/4/8) at counts compute-sanitizer can take.
    "stress-sanitize": [lambda: tma_pipeline(2, 4, 2, tiles=8, clusters=66),
                        lambda: tma_pipeline(4, 4, 2, tiles=8, clusters=33),
                        lambda: pipeline_stress(132, 2, items=2000),
                        lambda: pipeline_stress(132, 4, items=2000),
                        lambda: pipeline_stress(128, 8, items=2000),
                        lambda: all_to_one(2, 2000, clusters=66),
                        lambda: all_to_one(4, 2000, clusters=33),
                        lambda: all_to_one(8, 2000, clusters=16)],
    "stress": [lambda: tma_pipeline(2, 4, 2, tiles=400, clusters=66),
               lambda: tma_pipeline(4, 4, 2, tiles=400, clusters=33),
               lambda: tma_pipeline(1, 8, 1, tiles=400, clusters=132),
               lambda: pipeline_stress(132, 2), lambda: pipeline_stress(132, 4),
               lambda: pipeline_stress(128, 8),
               lambda: all_to_one(2, 100_000, clusters=66), lambda: all_to_one(4, 100_000, clusters=33),
               lambda: all_to_one(8, 100_000, clusters=16)],
}
SUITES["pipes"] = PIPES
SUITES["pipes-sanitize"] = [lambda: tma_pipeline(1, 4, 2, tiles=16),
                            lambda: tma_pipeline(2, 4, 2, tiles=16),
                            lambda: tma_pipeline(4, 2, 1, tiles=16),
                            lambda: tma_pipeline(1, 8, 1, tiles=24),
                            lambda: tma_pipeline(2, 4, 2, tiles=8, clusters=66),
                            lambda: tma_pipeline_rowcol(tiles=8)]
SUITES["pipes-stress"] = [lambda: tma_pipeline(2, 4, 2, tiles=400, clusters=66),
                          lambda: tma_pipeline(4, 4, 2, tiles=400, clusters=33),
                          lambda: tma_pipeline(1, 8, 1, tiles=400, clusters=132)]
BUILDERS = SUITES["full"]
