"""A warp-specialized, cluster-multicast TMA bf16 GEMM for the H200 (sm_90a),
every barrier of it an mbarrier-dialect op.

    C[M, N] = A[M, K] @ B[N, K]^T      (bf16 inputs, f32 accumulation, bf16 or f32 C)

    python examples/gemm.py [--bn 256] [--stages 4] [--cluster 2] [--out bf16] [-o OUT_DIR] [--run]

By default A and B are both K-major (row-major A, and B stored as N x K, the
layout of a ``torch.nn.Linear`` weight); ``Config(a_major="MN")`` /
``b_major="MN"`` take an M-major A / N-major B (``gemm_parts/layouts.py``;
their M or N a multiple of 8, the TMA's row-stride rule); C is row-major. M, N and K are kernel
parameters: one cubin serves every shape with K a multiple of 8 (the 16-byte
TMA row strides; ``check_shape`` refuses other K before any CUDA call);
edges of the tile read as zeros (TMA out-of-bounds fill) and are not
stored; an odd N is stored value by value (a row may start at an odd
element). ``--persistent`` (``Config.persistent``) builds the persistent
form: one CTA per SM walks the tiles, the pipe's states carried across them.
``Config(consumers="pingpong", bm=64 or 128)`` gives each consumer
warpgroup a whole tile, the two on alternate tiles, in turn through an
ordered sequence (``gemm_parts/pingpong.py``); ``gemm_parts/schedule.py``
picks a configuration per shape (the benchmark's "auto"). ``matmul(a, b,
out=None)`` (``gemm_parts/api.py``) is the torch entry: any of the four
layouts of A and B (``Config.a_major``/``b_major``), strides checked, each
configuration compiled once and cached on disk, capturable in a CUDA graph.

The CTA (384 threads) is three warpgroups:

* warpgroup 0, the **producer**: it gives its registers away
  (``setmaxnreg.dec 40``); one thread runs the TMA loop: for each K tile it
  acquires a stage of the ring (``producer.acquire()``: the stage's empty
  barrier), starts the tensor copies of A and B into it and commits it with
  the bytes that will land (``slot.commit(bytes=...)``:
  ``mbarrier.arrive.expect_tx``; the copies complete the rest); at the end
  ``producer.tail()`` waits until every stage was released.
* warpgroups 1 and 2, the **consumers** (``setmaxnreg.inc 232``): each owns
  64 rows of the 128-row tile; per K tile it waits for the stage
  (``consumer.wait()``), issues four ``wgmma.mma_async.m64nBNk16`` from
  shared memory (128-byte swizzled descriptors), and once they completed
  (``wgmma.wait_group``) thread 0 releases the stage (``slot.release``).

The ring is an ``mbarrier.pipe`` (``lang.Pipeline``, docs/pipelines.md):
nobody writes a count, a phase, a multicast mask or a release target. With
``cluster=2`` two CTAs with the same N tile and neighbouring M tiles form a
2x1 cluster; each loads its own A tile and *half* of the B tile, which it
multicasts along the cluster's row (``multicast="row"``: both CTAs), so each
CTA's stage receives A plus both B halves. The pipe's empty barriers count
2 warpgroups x 2 CTAs releases, and a release reaches both CTAs: one
``fence.release.sync_restrict::shared::cta.cluster`` (it orders exactly the
consumer's reads of its own stage) and a ``.relaxed.cluster`` arrival per
CTA, correct by the PTX memory model.

A slot is released in the loop trip that waited on it (the pipe's rule), so
each trip ends with ``wgmma.wait_group 0`` (``unroll=2``: two K tiles per
trip, one group in flight between them); ``barriers="raw"`` builds the first
version's hand-written ``TMABar``/``MBarrier`` ring (release one trip late
after ``wait_group 1``) for the measured comparison. What the pipe does not
cover stays as it was: the operand ring lives in dynamic shared memory
(``extern .shared``, more than the 48 KiB a static allocation may have,
aligned to 1024 bytes at run time for the 128-byte swizzle; the pipe's
stages see it through ``StageBuffer``), and the epilogue stores registers
straight to global memory (no barrier involved), followed by the cluster
barrier of ``k.epilogue()``.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os

import numpy as np
from mlir import ir
from mlir.dialects import llvm, nvvm

from gemm_parts.epilogue import (STORE_BOX, STORE_BUFFER_BYTES, STORE_DEPTH,
                                 smem_offset, store_drain, store_tile, store_tile_tma,
                                 warpgroup_barrier)
from gemm_parts import layouts
from gemm_parts.layouts import MAJORS, MN_CHUNK, layout_suffix
from gemm_parts.operands import copy_operand
from gemm_parts.pingpong import pingpong_consumer
from gemm_parts.wgmma import (BK, DESC_HI, acc_type, mma_k_tile, smem_address,  # noqa: F401
                              wgmma, wgmma_descriptor)
from gemm_parts.shapes import check_shape  # noqa: F401  (MLIR-free: run.py loads it too)
from gemm_parts.api import matmul  # noqa: F401  (the torch entry: c = matmul(a, b))
from mbarrier_dialect import lang, manifest
from mbarrier_dialect.lang import (Kernel, MBarrier, OrderedSequence, Pipeline, TMABar, for_range,
                                   if_else, if_then)
from mbarrier_dialect.lang.pipeline import StageBuffer
from mbarrier_dialect.lang.smem import SmemBuffer

BM = 128                    # tile rows (2 consumer warpgroups x 64); BK: K per stage (128 bytes)
THREADS = 384               # producer warpgroup + 2 consumer warpgroups
PRODUCER_REGS, CONSUMER_REGS = 40, 232
SWIZZLE_ALIGN = 1024        # 8 rows x 128 B: the 128-byte swizzle's repeat


@dataclasses.dataclass(frozen=True)
class Config:
    bn: int = 256           # tile columns: one wgmma m64nBNk16 per warpgroup and k16 step
    stages: int = 4         # ring depth
    cluster: int = 2        # 1, or 2: B multicast across a 2x1 cluster (along M)
    out: str = "bf16"       # C element type: "bf16" or "f32"
    group_m: int = 16       # CTA raster: groups of group_m M tiles walk N together (L2 reuse)
    # "pipe": the ring is an mbarrier.pipe (lang.Pipeline): counts, phases,
    # multicast mask and release targets derived, the release the pipe's
    # (restricted release fence + relaxed.cluster arrivals). "raw": the
    # first version's hand-written TMABar/MBarrier ring, kept for the
    # measured comparison (bench/gemm/README.md).
    barriers: str = "pipe"
    # A persistent kernel: one CTA per SM (``grid(M, N, sms)``) walks the
    # output tiles (``tile = %ctaid.x + i * %nctaid.x``, the raster below),
    # the pipe's producer and consumer states carried across tiles, so the
    # ring never drains between them: the producer loads the next tile's
    # first stages while the consumers store this one.
    persistent: bool = False
    # The epilogue: "direct" stores registers straight to C; "tma" goes
    # through shared staging buffers (2 x 64x64 bf16 per consumer
    # warpgroup, 128-byte swizzled) and the TMA store, so a warpgroup
    # starts its next tile while its stores drain (bf16 C only; a C whose
    # row stride N*2 is not a multiple of 16 falls back to "direct" at run
    # time).
    epilogue: str = "direct"
    # pipe: K tiles per trip of the consumer loop. A slot is released in the
    # trip that waited on it, so the last tile of a trip waits for its own
    # wgmmas (wait_group 0) before the next trip issues more; unroll=2 keeps
    # one wgmma group in flight across every other tile boundary.
    unroll: int = 1
    # pipe: release each stage one trip late, after the next tile's wgmmas
    # were issued and `wgmma.wait_group 1` (CUTLASS's consumer): the slot is
    # carried once through the loop (the verifier checks it is released
    # exactly once, in the next trip or after the loop).
    lag: bool = False
    # raw only: the memory order of the consumer's slot release (None: the
    # dialect's default, release at cluster scope through a CTA id; measured
    # 478 TFLOP/s at 8192^3 against 613-713 for "relaxed", which orders
    # nothing before the arrival: not correct by the PTX memory model), the
    # scope of the consumers' wait on full[s] (None: cluster in a cluster
    # kernel), and who waits on full[s]: "all" 128 threads of a consumer
    # warpgroup, or "elect": thread 0 (acquire) + a named barrier.
    release_sem: str | None = None
    full_wait_scope: str | None = None
    full_wait: str = "all"
    # The consumer warpgroups: "cooperative" (both on one 128-row tile, 64
    # rows each) or "pingpong" (CUTLASS's KernelTmaWarpSpecializedPingpong:
    # each warpgroup computes a whole bm x bn tile, the two on alternate
    # tiles of the persistent loop, their mainloops and epilogues taking
    # turns through an ordered sequence, so one's epilogue overlaps the
    # other's MMAs; gemm_parts/pingpong.py). Pingpong takes persistent=True.
    consumers: str = "cooperative"
    # Tile rows: 128 (cooperative: 2 warpgroups x 64); pingpong: 64 (one
    # m64 wgmma per k16 step) or 128 (two, two accumulators).
    bm: int = 128
    # The operands' layouts (gemm_parts/layouts.py): A M x K and B N x K,
    # each "K" (K contiguous) or "MN" (M or N contiguous), through the TMA
    # boxes and wgmma's transpose bits (gemm_parts/wgmma.py), not a copy.
    a_major: str = "K"
    b_major: str = "K"

    def __post_init__(self):
        for which in ("a_major", "b_major"):
            if getattr(self, which) not in MAJORS:
                raise ValueError(f"{which} is 'K' or 'MN', got {getattr(self, which)!r}")
        if self.b_major == "MN" and self.b_box_rows % MN_CHUNK:
            raise ValueError(f"an N-major B is loaded in 64-row chunks: bn / cluster = "
                             f"{self.b_box_rows} is not a multiple of 64")
        if self.barriers == "raw" and (self.a_major, self.b_major) != ("K", "K"):
            raise ValueError("a_major and b_major are knobs of the pipe ring (barriers='pipe')")
        if self.bn % 16 or not 16 <= self.bn <= 256:
            raise ValueError(f"bn is a multiple of 16 up to 256, got {self.bn}")
        if self.cluster not in (1, 2):
            raise ValueError(f"cluster is 1 or 2, got {self.cluster}")
        if self.cluster == 2 and (self.bn // 2) % 8:
            raise ValueError("with cluster=2 each CTA multicasts bn/2 rows of B: a multiple of 8")
        if self.barriers not in ("pipe", "raw"):
            raise ValueError(f"barriers is 'pipe' or 'raw', got {self.barriers!r}")
        if self.barriers == "pipe" and (self.release_sem, self.full_wait_scope,
                                        self.full_wait) != (None, None, "all"):
            raise ValueError("release_sem, full_wait_scope and full_wait are knobs of the raw "
                             "ring (barriers='raw'): a pipe derives its waits and releases")
        if not isinstance(self.persistent, bool):
            raise TypeError(f"persistent is a bool (a build-time choice), got "
                            f"{type(self.persistent).__name__}")
        if self.barriers == "raw" and self.persistent:
            raise ValueError("persistent is a knob of the pipe ring (barriers='pipe')")
        if self.barriers == "raw" and (self.unroll != 1 or self.lag):
            raise ValueError("unroll and lag are knobs of the pipe ring (barriers='pipe')")
        if not isinstance(self.lag, bool):
            raise TypeError(f"lag is a bool (a build-time choice), got {type(self.lag).__name__}")
        if self.lag and self.unroll != 1:
            raise ValueError("lag carries one slot per trip: it takes unroll=1")
        if isinstance(self.unroll, bool) or not isinstance(self.unroll, int) \
                or not 1 <= self.unroll <= 4:
            raise ValueError(f"unroll is 1 to 4, got {self.unroll!r}")
        if self.full_wait not in ("all", "elect"):
            raise ValueError(f"full_wait is 'all' or 'elect', got {self.full_wait!r}")
        if self.epilogue not in ("direct", "tma"):
            raise ValueError(f"epilogue is 'direct' or 'tma', got {self.epilogue!r}")
        if self.epilogue == "tma" and (self.out != "bf16" or self.barriers != "pipe"):
            raise ValueError("epilogue='tma' takes out='bf16' and barriers='pipe'")
        if self.out not in ("bf16", "f32"):
            raise ValueError(f"out is 'bf16' or 'f32', got {self.out!r}")
        if self.consumers not in ("cooperative", "pingpong"):
            raise ValueError(f"consumers is 'cooperative' or 'pingpong', got {self.consumers!r}")
        if self.consumers == "cooperative" and self.bm != 128:
            raise ValueError(f"the cooperative consumers split a 128-row tile, got bm={self.bm}")
        if self.consumers == "pingpong":
            if self.bm not in (64, 128):
                raise ValueError(f"a pingpong warpgroup's tile has 64 or 128 rows, got "
                                 f"bm={self.bm}")
            if self.bm * self.bn > 128 * 128 and self.bm != 64:
                raise ValueError(f"a pingpong warpgroup holds its bm x bn f32 accumulator in "
                                 f"registers: at most 64 x 256 or 128 x 128, got "
                                 f"{self.bm} x {self.bn}")
            if not self.persistent or self.barriers != "pipe" or self.unroll != 1 or self.lag:
                raise ValueError("consumers='pingpong' takes persistent=True, barriers='pipe', "
                                 "unroll=1 and lag=False (its mainloop releases each stage "
                                 "one K block late, as lag=True does, on its own)")
        if self.group_m % self.cluster:
            raise ValueError("group_m must be a multiple of the cluster size")
        if self.smem_bytes + self.static_smem_bytes > 227 * 1024:
            raise ValueError(f"{self.stages} stages of {self.bn}-wide tiles need "
                             f"{self.smem_bytes} bytes of shared memory, more than 227 KiB")

    @property
    def a_bytes(self) -> int:       # one stage of A: bm rows x 128 B
        return self.bm * BK * 2

    @property
    def b_bytes(self) -> int:       # one stage of B: bn rows x 128 B
        return self.bn * BK * 2

    @property
    def b_box_rows(self) -> int:    # rows of B one CTA loads per stage
        return self.bn // self.cluster

    @property
    def smem_bytes(self) -> int:    # dynamic shared memory to launch with
        return self.stages * (self.a_bytes + self.b_bytes) + SWIZZLE_ALIGN

    @property
    def static_smem_bytes(self) -> int:   # the TMA epilogue's staging (besides the barriers)
        return 2 * STORE_DEPTH * STORE_BUFFER_BYTES if self.epilogue == "tma" else 0

    @property
    def name(self) -> str:
        c = f"_c{self.cluster}" if self.cluster > 1 else ""
        u = f"_u{self.unroll}" if self.unroll > 1 else ""
        raw = "_raw" if self.barriers == "raw" else ""
        p = "_p" if self.persistent else ""
        e = "_ts" if self.epilogue == "tma" else ""
        pp = "_pp" if self.consumers == "pingpong" else ""
        lay = layout_suffix(self.a_major, self.b_major)
        return f"gemm_{self.bm}x{self.bn}x64_s{self.stages}{c}{u}{p}{pp}{e}_{self.out}{raw}{lay}"

    def tiles(self, M: int, N: int) -> int:
        """Output tiles of an M x N output: M tiles padded to whole clusters."""
        tm = -(-M // self.bm)
        tm = -(-tm // self.cluster) * self.cluster
        return tm * -(-N // self.bn)

    def grid(self, M: int, N: int, sms: int = 132) -> int:
        """CTAs to launch for an M x N output: one per tile, or (persistent)
        one per SM, whole clusters, at most one per tile."""
        if not self.persistent:
            return self.tiles(M, N)
        return min(self.tiles(M, N), sms - sms % self.cluster)


# -- small helpers the frontend does not have (yet) ---------------------------

def dynamic_smem(k: Kernel) -> lang.Value:
    """The ``extern .shared`` array of the launch's dynamic shared memory,
    its start rounded up to SWIZZLE_ALIGN bytes at run time: a ptr<3>."""
    name = k.unique_symbol("dynamic_smem")
    with ir.InsertionPoint.at_block_begin(k.gpu_module_body):
        llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), name,
                      ir.Attribute.parse("#llvm.linkage<external>"),
                      alignment=SWIZZLE_ALIGN, addr_space=3)
    base = llvm.AddressOfOp(ir.Type.parse("!llvm.ptr<3>"), name).result
    addr = lang.wrap(llvm.PtrToIntOp(ir.IntegerType.get_signless(32), base).result)
    pad = (0 - addr) & (SWIZZLE_ALIGN - 1)
    return smem_offset(base, pad)


def smem_view(pool, ptr: ir.Value, shape, dtype: str, align: int = SWIZZLE_ALIGN) -> SmemBuffer:
    """A shared buffer at `ptr` (dynamic shared memory), for lang ops that take one."""
    buf = SmemBuffer(pool, shape, dtype, align)
    buf._ptr = ptr
    return buf


def next_slot(stage: lang.Value, phase: lang.Value, stages: int):
    """The ring position after (stage, phase)."""
    wrap = stage == stages - 1
    return lang.select(wrap, 0, stage + 1), lang.select(wrap, phase ^ 1, phase)


# -- the kernel ----------------------------------------------------------------

def build(M: int = 8192, N: int = 8192, K: int = 8192, cfg: Config | None = None,
          name: str | None = None, source_params: bool = False, sms: int = 132,
          **overrides) -> Kernel:
    """The GEMM kernel ``gemm(tmap_a, tmap_b, c, M, N, K)``; its declared
    grid covers M x N (launch with ``cfg.grid(M, N)`` CTAs for other shapes).
    ``tmap_a`` describes A (M x K bf16, box 128 x 64, 128-byte swizzle),
    ``tmap_b`` B (N x K bf16, box bn/cluster x 64, 128-byte swizzle).
    `source_params` adds two leading, unused ``a`` and ``b`` pointers: a
    manifest names the buffer of a tensor map as an argument before it.
    `sms`: the SMs a persistent kernel's declared grid fills."""
    cfg = dataclasses.replace(cfg or Config(), **overrides)
    CS, BN, S = cfg.cluster, cfg.bn, cfg.stages
    with Kernel(name or cfg.name, block=THREADS, grid=cfg.grid(M, N, sms), chip="sm_90a",
                cluster=CS if CS > 1 else None,
                params=[("a", "ptr"), ("b", "ptr")] * source_params +
                [("tmap_a", "ptr"), ("tmap_b", "ptr"), ("c", "ptr")] +
                [("tmap_c", "ptr")] * (cfg.epilogue == "tma") + [
                        ("M", "i32"), ("N", "i32"), ("K", "i32")]) as k:
        pool = k.smem_pool()
        if cfg.barriers == "pipe":
            # full[s] + empty[s] per stage; the counts are the pipe type's:
            # full 1 (the producer's arrive.expect_tx), empty 2 consumer
            # warpgroups x the CTAs that multicast into the stage.
            # Pingpong: a stage is read by the one warpgroup whose tile it is.
            pingpong = cfg.consumers == "pingpong"
            pipe = Pipeline(pool, S, kind="tma", consumers=1 if pingpong else 2,
                            multicast="row" if CS > 1 else "none")
            # Pingpong: the two warpgroups take turns at the mainloop
            # (stage 0) and the epilogue (stage 1); all 128 threads of the
            # warpgroup hand a turn on.
            order = OrderedSequence(pool, depth=2, groups=2, arrivals=128) if pingpong else None
        else:
            full = TMABar(pool, S)                     # slot s holds A and B of a K tile
            empty = MBarrier(pool, S, phase_offset=1)  # slot s may be overwritten; starts free
        if cfg.epilogue == "tma":                  # STORE_DEPTH 64x64 buffers per consumer wg
            staging = pool.alloc((2 * STORE_DEPTH * STORE_BUFFER_BYTES,), "i8", align=1024)
        pool.commit()
        ring = dynamic_smem(k)
        a_ring = ring                              # S x [128 x 64] bf16
        b_ring = smem_offset(ring, S * cfg.a_bytes)  # S x [bn x 64] bf16
        if cfg.barriers == "pipe":
            k.prologue(pipes=[pipe], sequences=[order] if order else [])
        else:
            # full: the producer's arrive.expect_tx; empty: one arrival per
            # consumer warpgroup of every CTA that multicasts into the slot.
            k.prologue({full: 1, empty: 2 * CS})

        Mp, Np, Kp = k.param("M"), k.param("N"), k.param("K")
        k_tiles = (Kp + (BK - 1)) // BK
        # Raster: groups of group_m M tiles sweep N, so that a wave of CTAs
        # shares A and B tiles in L2. A cluster's CTAs are consecutive block
        # ids: the same N tile, neighbouring M tiles.
        tiles_m = (Mp + (cfg.bm - 1)) // cfg.bm
        tiles_m = (tiles_m + (CS - 1)) // CS * CS
        tiles_n = (Np + (BN - 1)) // BN
        per_group = tiles_n * cfg.group_m

        def raster(vb):
            """(tile_m, tile_n) of the linear tile `vb` (a block id)."""
            first_m = (vb // per_group) * cfg.group_m
            rows = lang.select(tiles_m - first_m < cfg.group_m, tiles_m - first_m, cfg.group_m)
            return first_m + (vb % per_group) % rows, (vb % per_group) // rows

        def each_tile(carry):
            """This CTA's tiles: its own block's, or (persistent) every
            %nctaid.x-th from its block id on, `carry` through the loop.
            The grid is whole clusters, so a cluster's CTAs walk the same
            number of tiles, each the same N tile as its peers."""
            if not cfg.persistent:
                yield raster(k.block_rank())
                return
            for vb in lang.range(k.block_rank(), tiles_m * tiles_n, k.block_count(),
                                 carry=carry):
                yield raster(vb)

        tid = k.thread_rank()
        wg = tid // 128
        role = if_else(wg == 0)
        with role.then():                          # ---- producer warpgroup
            nvvm.SetMaxRegisterOp(PRODUCER_REGS, nvvm.SetMaxRegisterAction.decrease)
            with if_then(tid == 0):
                lang.prefetch_tensormap(k.param("tmap_a"))
                lang.prefetch_tensormap(k.param("tmap_b"))
                rank = k.cluster_rank() if CS > 1 else lang.const(0)
                if cfg.barriers == "pipe":
                    producer = pipe.producer()
                    for tile_m, tile_n in each_tile([producer]):
                        b_row = tile_n * BN + rank * cfg.b_box_rows
                        _pipe_producer(k, cfg, producer, a_ring, b_ring, k_tiles, tile_m,
                                       b_row, rank)
                    producer.tail()                # every stage released before exit
                else:
                    ((tile_m, tile_n),) = each_tile([])
                    b_row = tile_n * BN + rank * cfg.b_box_rows
                    _raw_producer(k, cfg, pool, full, empty, a_ring, b_ring, k_tiles, tile_m,
                                  b_row, rank)
        with role.otherwise():                     # ---- consumer warpgroups
            nvvm.SetMaxRegisterOp(CONSUMER_REGS, nvvm.SetMaxRegisterAction.increase)
            cw = wg - 1                            # 0 or 1: rows 64*cw .. of the tile
            wtid = tid % 128
            if cfg.consumers == "pingpong":
                mine = None
                if cfg.epilogue == "tma":
                    mine = smem_offset(staging.ptr, cw * (STORE_DEPTH * STORE_BUFFER_BYTES))
                pingpong_consumer(k, cfg, pipe, order, a_ring, b_ring, k_tiles, cw, wtid, raster,
                                  tiles_m * tiles_n, mine, Mp, Np)
            elif cfg.barriers == "pipe":
                consumer = pipe.consumer()
                meet = warpgroup_barrier(k, cw) if cfg.epilogue == "tma" else None
                for tile_m, tile_n in each_tile([consumer]):
                    acc = _pipe_consumer(cfg, consumer, a_ring, b_ring, k_tiles, cw, wtid)
                    row0, col0 = tile_m * BM + cw * 64, tile_n * BN
                    if cfg.epilogue == "direct":
                        store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np)
                        continue
                    # C's rows 16-byte aligned (N % 8 == 0): the TMA can store it.
                    tma_ok = if_else(Np % 8 == 0)
                    with tma_ok.then():
                        mine = smem_offset(staging.ptr, cw * (STORE_DEPTH * STORE_BUFFER_BYTES))
                        store_tile_tma(acc, BN, mine, k.param("tmap_c"), row0, col0, wtid,
                                       meet)
                    with tma_ok.otherwise():
                        store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np)
                if cfg.epilogue == "tma":
                    store_drain(wtid)
            else:
                ((tile_m, tile_n),) = each_tile([])
                meet = warpgroup_barrier(k, cw) if cfg.full_wait == "elect" else None
                acc = _raw_consumer(cfg, full, empty, a_ring, b_ring, k_tiles, cw, wtid, meet)
                store_tile(k, acc, cfg, tile_m * BM + cw * 64, tile_n * BN, wtid, Mp, Np)
        k.epilogue()                               # no CTA exits while its peer may arrive
    k.config = cfg  # type: ignore[attr-defined]
    return k


# -- the ring as a pipeline (the default) ---------------------------------------

def _pipe_producer(k, cfg, producer, a_ring, b_ring, k_tiles, tile_m, b_row, rank) -> None:
    """The TMA loop of one tile: acquire a stage (its empty barrier: every
    consumer of every CTA it reaches released it), copy A (local) and this
    CTA's part of B (multicast along the cluster's row) into it, commit it
    with the bytes that land in this CTA's stage. (The caller runs the
    tail once, after its last tile.)"""
    S, CS = cfg.stages, cfg.cluster
    a_stages = StageBuffer(a_ring, (S, cfg.bm, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    b_box_bytes = cfg.b_box_rows * BK * 2
    for t in lang.range(k_tiles, carry=[producer]):
        slot = producer.acquire()
        copy_operand(slot, a_stages, k.param("tmap_a"), tile_m * cfg.bm, t * BK, cfg.bm,
                     cfg.a_major)
        copy_operand(slot, b_stages, k.param("tmap_b"), b_row, t * BK, cfg.b_box_rows,
                     cfg.b_major, multicast="row" if CS > 1 else None,
                     byte_offset=rank * b_box_bytes if CS > 1 else 0)
        slot.commit(bytes=cfg.a_bytes + cfg.b_bytes)   # A + every CTA's part of B


def _pipe_consumer(cfg, consumer, a_ring, b_ring, k_tiles, cw, wtid) -> ir.Value:
    """The wgmma loop of one consumer warpgroup: `cfg.unroll` K tiles per
    trip, each waited (``consumer.wait()``) and released in the trip that
    took it; within a trip the release of tile j follows the
    ``wgmma.wait_group 1`` after tile j+1's wgmmas were issued, the last one
    ``wgmma.wait_group 0``. Thread 0 of the warpgroup releases (the pipe
    sends it to every CTA that multicasts into the stage), after the
    warpgroup's wait_group: its wgmmas, which read the stage, are complete."""
    S = cfg.stages
    a_stages = StageBuffer(a_ring, (S, BM, BK), "bf16")
    b_stages = StageBuffer(b_ring, (S, cfg.bn, BK), "bf16")
    leader = wtid == 0
    # This warpgroup's 64 rows of A: 64 rows of 128 B on (K-major), or the
    # next 64-row chunk (MN-major): 8 KiB either way.
    a_off = cw * (64 * BK * 2)
    majors = (cfg.a_major, cfg.b_major)

    def trip(consumer, acc, tiles: int):
        held = None
        for _ in range(tiles):
            slot = consumer.wait()                 # A and B of this K tile landed
            acc = mma_k_tile(acc, smem_address(slot.stage_ptr(a_stages)) + a_off,
                              smem_address(slot.stage_ptr(b_stages)), cfg.bn, *majors)
            if held is not None:
                nvvm.WgmmaWaitGroupSyncOp(1)       # the previous tile's wgmmas are done
                held.release(pred=leader)
            held = slot
        nvvm.WgmmaWaitGroupSyncOp(0)
        held.release(pred=leader)
        return acc

    acc = llvm.mlir_zero(acc_type(cfg.bn))
    if cfg.lag:
        # Tile 0 first; then each trip waits on tile t, issues its wgmmas,
        # waits for tile t-1's (wait_group 1) and releases t-1, carried in
        # from the trip before; the last tile after the loop.
        first = consumer.wait()
        acc = mma_k_tile(acc, smem_address(first.stage_ptr(a_stages)) + a_off,
                          smem_address(first.stage_ptr(b_stages)), cfg.bn, *majors)
        loop = lang.range(1, k_tiles, carry=[consumer, first, acc])
        for _ in loop:
            _, prev, acc = loop.carry
            slot = consumer.wait()
            acc = mma_k_tile(acc, smem_address(slot.stage_ptr(a_stages)) + a_off,
                              smem_address(slot.stage_ptr(b_stages)), cfg.bn, *majors)
            nvvm.WgmmaWaitGroupSyncOp(1)           # tile t-1's wgmmas are done
            prev.release(pred=leader)
            loop.next(consumer, slot, acc)
        (_, _, acc) = loop.results
        nvvm.WgmmaWaitGroupSyncOp(0)
        first.release(pred=leader)                 # `first` now holds the last slot
        return acc
    u = cfg.unroll
    loop = lang.range(k_tiles // u if u > 1 else k_tiles, carry=[consumer, acc])
    for _ in loop:
        _, acc = loop.carry
        loop.next(consumer, trip(consumer, acc, u))
    (_, acc) = loop.results
    if u > 1:                                      # the last k_tiles % u tiles
        rest = lang.range(k_tiles % u, carry=[consumer, acc])
        for _ in rest:
            _, acc = rest.carry
            rest.next(consumer, trip(consumer, acc, 1))
        (_, acc) = rest.results
    return acc


# -- the ring from raw barriers (barriers="raw": the measured comparison) --------

def _raw_producer(k, cfg, pool, full, empty, a_ring, b_ring, k_tiles, tile_m, b_row,
                  rank) -> None:
    S, CS = cfg.stages, cfg.cluster
    with for_range(0, k_tiles, carry=[0, 0]) as loop:
        stage, phase = loop.carry
        empty.wait(stage, phase)                   # every consumer released the slot
        full.arrive(stage, tx_count=cfg.a_bytes + cfg.b_bytes)
        a_dst = smem_view(pool, smem_offset(a_ring, stage * cfg.a_bytes), (BM, BK), "bf16")
        lang.cp_async_bulk_tensor(a_dst, k.param("tmap_a"),
                                  [tile_m * BM, loop.iv * BK], bar=full, stage=stage)
        b_dst = smem_view(pool, smem_offset(
            b_ring, stage * cfg.b_bytes + rank * (cfg.b_box_rows * BK * 2)),
            (cfg.b_box_rows, BK), "bf16")
        lang.cp_async_bulk_tensor(b_dst, k.param("tmap_b"), [b_row, loop.iv * BK],
                                  bar=full, stage=stage,
                                  multicast_mask=(1 << CS) - 1 if CS > 1 else None)
        loop.next(*next_slot(stage, phase, S))


def _raw_consumer(cfg, full, empty, a_ring, b_ring, k_tiles, cw, wtid, meet) -> ir.Value:
    S, CS = cfg.stages, cfg.cluster
    a_base = smem_address(a_ring) + cw * (64 * BK * 2)
    b_base = smem_address(b_ring)

    def release(stage):
        """The slot's wgmma reads are done: arrive on empty[stage] of
        every CTA that wrote into it (thread r of the warpgroup
        arrives on CTA r's barrier)."""
        if CS == 1:
            empty.arrive(stage, pred=wtid == 0, sem=cfg.release_sem)
        else:
            empty.arrive(stage, cta_id=wtid, pred=wtid < CS, sem=cfg.release_sem)

    acc0 = llvm.mlir_zero(acc_type(cfg.bn))
    with for_range(0, k_tiles, carry=[0, 0, 0, acc0]) as loop:
        stage, phase, prev, acc = loop.carry
        # A and B of this K tile landed:
        if cfg.full_wait == "elect":
            with if_then(wtid == 0):
                full.wait(stage, phase, scope=cfg.full_wait_scope)
            meet()                                 # the warpgroup's named barrier
        else:
            full.wait(stage, phase, scope=cfg.full_wait_scope)
        acc = mma_k_tile(acc, a_base + stage * cfg.a_bytes, b_base + stage * cfg.b_bytes,
                          cfg.bn)
        nvvm.WgmmaWaitGroupSyncOp(1)               # the previous K tile's wgmmas are done
        with if_then(loop.iv > 0):
            release(prev)
        loop.next(*next_slot(stage, phase, S), stage, acc)
    nvvm.WgmmaWaitGroupSyncOp(0)
    _, _, last, acc = loop.results
    with if_then(k_tiles > 0):
        release(last)
    return acc


# -- data, reference, manifest -------------------------------------------------

def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits (round to nearest even), as uint16."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def case(M: int = 200, N: int = 328, K: int = 200, cfg: Config | None = None,
         seed: int | None = None, name: str | None = None, sms: int = 132) -> manifest.Case:
    """The GEMM on small integer-valued bf16 inputs (every product and sum
    exact in f32, so the f32 output is checked exactly), shape not a multiple
    of the tile, for a manifest run (launched with ``cfg.smem_bytes`` of
    dynamic shared memory). `sms`: a persistent kernel's grid (fewer CTAs
    than tiles, so that each walks several)."""
    cfg = cfg or Config(bn=128, stages=4, out="f32")
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float32)
    b = rng.integers(-3, 4, (N, K)).astype(np.float32)
    c = a @ b.T
    k = build(M, N, K, cfg, name=name, source_params=True, sms=sms)
    expect = c if cfg.out == "f32" else to_bf16_bits(c)
    out_dtype = "float32" if cfg.out == "f32" else "uint16"
    # Each operand stored in its layout: K-major as is, MN-major transposed.
    ab = to_bf16_bits(a if cfg.a_major == "K" else a.T)
    bb = to_bf16_bits(b if cfg.b_major == "K" else b.T)
    a_op = layouts.Operand("a", M, K, cfg.a_major, ab.shape[1], 0)
    b_op = layouts.Operand("b", N, K, cfg.b_major, bb.shape[1], 0)
    return manifest.Case(
        k, [manifest.buffer("a", ab), manifest.buffer("b", bb),
            manifest.tensormap("a", a_op.map_shape(), a_op.box(cfg.bm), dtype="uint16",
                               swizzle="128B"),
            manifest.tensormap("b", b_op.map_shape(), b_op.box(cfg.b_box_rows),
                               dtype="uint16", swizzle="128B"),
            manifest.buffer("c", fill=-1 if cfg.out == "f32" else 0xFFFF,   # NaN poison
                            shape=[M, N], dtype=out_dtype)] +
        # The TMA epilogue's map of C (N % 8 == 0; else A's map stands in, unused).
        [manifest.tensormap("c", (M, N), STORE_BOX, dtype="uint16", swizzle="128B")
         if N % 8 == 0 else
         manifest.tensormap("a", a_op.map_shape(), a_op.box(cfg.bm), dtype="uint16",
                            swizzle="128B")]
        * (cfg.epilogue == "tma") +
        [manifest.scalar(M), manifest.scalar(N), manifest.scalar(K)],
        {"c": expect}, inputs={"a": ab, "b": bb}, shared_mem=cfg.smem_bytes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bn", type=int, default=256)
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--cluster", type=int, default=2)
    parser.add_argument("--out", default="bf16")
    parser.add_argument("--persistent", action="store_true",
                        help="one CTA per SM walks the tiles (Config.persistent)")
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it on 512x512x512 and check")
    args = parser.parse_args()
    cfg = Config(bn=args.bn, stages=args.stages, cluster=args.cluster, out=args.out,
                 persistent=args.persistent)
    k = build(cfg=cfg)
    compiled = k.compile()
    compiled.write(args.out_dir, cfg.name)
    print(f"wrote {cfg.name}.ptx/.cubin to {os.path.abspath(args.out_dir)}; "
          f"launch with {cfg.smem_bytes} bytes of dynamic shared memory")
    if args.run:
        from mbarrier_dialect import runtime as rt
        rt.require_gpu()
        M = N = K = 512
        check_shape(M, N, K)
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((M, K), np.float32), rng.standard_normal((N, K), np.float32)
        ab, bb = to_bf16_bits(a), to_bf16_bits(b)
        da, db = rt.DeviceBuffer.from_numpy(ab), rt.DeviceBuffer.from_numpy(bb)
        dc = rt.DeviceBuffer.empty((M, N), np.float32 if cfg.out == "f32" else np.uint16)
        ta = rt.encode_tensor_map_tiled(da, "bfloat16", (M, K), (cfg.bm, BK), swizzle="128B")
        tb = rt.encode_tensor_map_tiled(db, "bfloat16", (N, K), (cfg.b_box_rows, BK),
                                        swizzle="128B")
        with rt.Module.load(compiled.cubin) as mod:
            rt.launch(mod.function(cfg.name), cfg.grid(M, N), THREADS,
                      [ta, tb, dc, np.int32(M), np.int32(N), np.int32(K)],
                      cluster=cfg.cluster if cfg.cluster > 1 else None,
                      shared_mem=cfg.smem_bytes)
        got = dc.to_numpy()
        got = got if cfg.out == "f32" else from_bf16_bits(got)
        ref = from_bf16_bits(ab).astype(np.float64) @ from_bf16_bits(bb).astype(np.float64).T
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        print(f"{M}x{N}x{K}: relative error {err:.2e}")
        assert err < 1e-2


if __name__ == "__main__":
    main()
