"""A warp-specialized, cluster-multicast TMA bf16 GEMM for the H200 (sm_90a),
every barrier of it an mbarrier-dialect op.

    C[M, N] = A[M, K] @ B[N, K]^T      (bf16 inputs, f32 accumulation, bf16 or f32 C)

    python -m examples.gemm [--bn 256] [--stages 4] [--cluster 1] [--out bf16] [-o OUT_DIR] [--run]

By default A and B are both K-major (row-major A, and B stored as N x K, the
layout of a ``torch.nn.Linear`` weight); ``Config(a_major="MN")`` /
``b_major="MN"`` take an M-major A / N-major B (``gemm_parts/layouts.py``;
their M or N a multiple of 8, the TMA's row-stride rule); C is row-major.
M, N and K are kernel parameters: one cubin serves every shape with K a
multiple of 8 (the 16-byte TMA row strides; ``check_shape`` refuses other K
before any CUDA call); edges of the tile read as zeros (TMA out-of-bounds
fill) and are not stored; an odd N is stored value by value. ``Config.persistent``:
one CTA per SM walks the tiles, the pipe's states carried across them;
``consumers="pingpong"``: each consumer warpgroup a whole tile, the two
taking turns (``gemm_parts/pingpong.py``); ``split_k=S``: f32 partials of
S K slices summed by a second kernel (``gemm_parts/splitk.py``);
``gemm_parts/schedule.py`` picks a configuration per shape, and
``matmul(a, b, out=None)`` (``gemm_parts/api.py``) is the torch entry.

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
2x1 cluster; each loads its A tile and *half* of the B tile, multicast along
the row (``multicast="row"``), so each stage receives A plus both B halves;
a release (one ``fence.release.sync_restrict::shared::cta.cluster`` and a
``.relaxed.cluster`` arrival per CTA) reaches both CTAs' empty barriers.
A slot is released in the loop trip that waited on it (the pipe's rule;
``unroll=2``: two K tiles per trip). The ring lives in dynamic shared
memory (``pool.dynamic``, 1024-aligned for the 128-byte swizzle).
(bench/gemm/raw_ring.py keeps the first, hand-written ring.)
"""
from __future__ import annotations

import argparse
import dataclasses
import os

import numpy as np

if not __package__:   # `python examples/NAME.py`: the parts below import as a package
    raise SystemExit(f"examples/{os.path.basename(__file__)} imports its parts as a package: run it "
                     f"from the repository root as `python -m examples.{os.path.basename(__file__)[:-3]}` "
                     "(same options)")
from .gemm_parts import layouts, shapes, splitk
from .gemm_parts.api import matmul  # noqa: F401  (the torch entry: c = matmul(a, b))
from .gemm_parts.consumer import pipe_consumer
from .gemm_parts.epilogue import (STORE_BOX, STORE_BUFFER_BYTES, STORE_DEPTH, check_store,
                                  store_drain, store_tile, store_tile_any, warpgroup_barrier)
from .gemm_parts.launch import run_and_check
from .gemm_parts.pingpong import check_pingpong, pingpong_consumer
from .gemm_parts.producer import pipe_producer
from mbarrier_dialect import lang, manifest
from mbarrier_dialect.lang import (Kernel, OrderedSequence, Pipeline, WarpgroupRoles,
                                   byte_offset, if_then)
from mbarrier_dialect.lang.wgmma import BK
from mbarrier_dialect.manifest import to_bf16_bits

BM = 128                    # tile rows (2 consumer warpgroups x 64); BK: K per stage (128 bytes)
THREADS = 384               # producer warpgroup + 2 consumer warpgroups
PRODUCER_REGS, CONSUMER_REGS = 40, 232
SWIZZLE_ALIGN = 1024        # 8 rows x 128 B: the 128-byte swizzle's repeat


@dataclasses.dataclass(frozen=True)
class Config:
    # The defaults: the schedule's large-shape pick p1_256_ts (128 x 256 tiles, persistent,
    # TMA-store epilogue), config_for's at 4096^3 and 8192^3 (gemm_parts/schedule.py).
    bn: int = 256           # tile columns: one wgmma m64nBNk16 per warpgroup and k16 step
    stages: int = 4         # ring depth
    cluster: int = 1        # 1, or 2: B multicast across a 2x1 cluster (along M)
    out: str = "bf16"       # C element type: "bf16" or "f32"
    group_m: int = 16       # CTA raster: groups of group_m M tiles walk N together (L2 reuse)
    # A persistent kernel: one CTA per SM (``grid(M, N, sms)``) walks the output tiles
    # (``tile = %ctaid.x + i * %nctaid.x``, the raster below), the pipe's states carried
    # across tiles, so the ring never drains: the producer loads the next tile's first
    # stages while the consumers store this one.
    persistent: bool = True
    # The epilogue: "direct" stores registers straight to C; "tma" goes through shared
    # staging buffers (2 x 64x64 bf16 per consumer warpgroup, 128-byte swizzled) and the
    # TMA store, so a warpgroup starts its next tile while its stores drain (bf16 C only;
    # a C whose row stride N*2 is not a multiple of 16 falls back to "direct" at run time).
    epilogue: str = "tma"
    # pipe: K tiles per trip of the consumer loop (the last of a trip waits
    # for its own wgmmas; unroll=2 keeps a group in flight at every other).
    unroll: int = 1
    # pipe: release each stage one trip late, after the next tile's wgmmas
    # were issued and `wgmma.wait_group 1` (CUTLASS's consumer): the slot is
    # carried once through the loop (the verifier checks it is released
    # exactly once, in the next trip or after the loop).
    lag: bool = False
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
    # A (M x K) and B (N x K): each "K" (K contiguous) or "MN" (M or N contiguous;
    # gemm_parts/layouts.py), through TMA boxes and wgmma's transpose bits, not a copy.
    a_major: str = "K"
    b_major: str = "K"
    # Split-K (gemm_parts/splitk.py): each tile's K blocks in split_k work units
    # (persistent, cooperative, direct f32 partials; a second kernel sums them).
    split_k: int = 1
    # The M x N product stored as C^T, a row-major N x M C (matmul's operands
    # swapped for a small N: C = (B A^T)^T; gemm_parts/epilogue.py).
    store_transposed: bool = False

    def __post_init__(self):
        layouts.check_majors(self.a_major, self.b_major, self.b_box_rows)
        if self.bn % 16 or not 16 <= self.bn <= 256:
            raise ValueError(f"bn is a multiple of 16 up to 256, got {self.bn}")
        if self.cluster not in (1, 2):
            raise ValueError(f"cluster is 1 or 2, got {self.cluster}")
        if self.cluster == 2 and (self.bn // 2) % 8:
            raise ValueError("with cluster=2 each CTA multicasts bn/2 rows of B: a multiple of 8")
        for knob in ("persistent", "lag"):
            if not isinstance(getattr(self, knob), bool):
                raise TypeError(f"{knob} is a bool (a build-time choice), got "
                                f"{type(getattr(self, knob)).__name__}")
        if self.lag and self.unroll != 1:
            raise ValueError("lag carries one slot per trip: it takes unroll=1")
        if isinstance(self.unroll, bool) or not isinstance(self.unroll, int) \
                or not 1 <= self.unroll <= 4:
            raise ValueError(f"unroll is 1 to 4, got {self.unroll!r}")
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
        check_store(self)                          # gemm_parts/epilogue.py
        check_pingpong(self)                       # gemm_parts/pingpong.py
        splitk.check_split(self)                   # gemm_parts/splitk.py
        if self.group_m % self.cluster:
            raise ValueError("group_m must be a multiple of the cluster size")
        if self.smem_bytes + self.static_smem_bytes > 227 * 1024:
            raise ValueError(f"{self.stages} stages of {self.bn}-wide tiles need "
                             f"{self.smem_bytes} bytes of shared memory, more than 227 KiB")

    @property
    def barriers(self) -> str:
        """The ring: an mbarrier.pipe (bench/gemm/raw_ring.py's RawConfig: "raw")."""
        return "pipe"

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
        p = "_p" if self.persistent else ""
        e = "_ts" if self.epilogue == "tma" else ""
        pp = ("_pp" if self.consumers == "pingpong" else "") + \
            (f"_k{self.split_k}" if self.split_k > 1 else "")
        lay = layouts.layout_suffix(self.a_major, self.b_major) + "_ct" * self.store_transposed
        return f"gemm_{self.bm}x{self.bn}x64_s{self.stages}{c}{u}{p}{pp}{e}_{self.out}{lay}"

    def tiles(self, M: int, N: int) -> int:
        """Output tiles of an M x N output: M tiles padded to whole clusters."""
        return shapes.tiles(M, N, self.bm, self.bn, self.cluster)

    def grid(self, M: int, N: int, sms: int = 132) -> int:   # CTAs (shapes.grid)
        return shapes.grid(M, N, self.bm, self.bn, self.cluster, self.persistent, sms,
                           self.split_k)


# -- the kernel ----------------------------------------------------------------

def build(M: int = 8192, N: int = 8192, K: int = 8192, cfg: Config | None = None,
          name: str | None = None, source_params: bool = False, sms: int = 132,
          **overrides) -> Kernel:
    """The GEMM kernel ``gemm(tmap_a, tmap_b, c, M, N, K)``; its declared
    grid covers M x N (launch with ``cfg.grid(M, N)`` CTAs for other shapes).
    ``tmap_a`` describes A (M x K bf16, box 128 x 64, 128-byte swizzle),
    ``tmap_b`` B (N x K bf16, box bn/cluster x 64, 128-byte swizzle).
    `source_params`: two leading, unused ``a``, ``b`` pointers (a manifest
    names a tensor map's buffer before it); `sms`: a persistent grid's SMs.
    A RawConfig (bench/gemm/raw_ring.py) brings its own ring barriers."""
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
            # full[s] + empty[s] per stage, the counts the pipe's (empty: the
            # consumer warpgroups x the CTAs that multicast into the stage).
            pingpong = cfg.consumers == "pingpong"
            pipe = Pipeline(pool, S, kind="tma", consumers=1 if pingpong else 2,
                            multicast="row" if CS > 1 else "none")
            # Pingpong: the two warpgroups take turns at the mainloop
            # (stage 0) and the epilogue (stage 1); all 128 threads of the
            # warpgroup hand a turn on.
            order = OrderedSequence(pool, depth=2, groups=2, arrivals=128) if pingpong else None
        else:
            raw = cfg.raw_ring(pool)               # bench/gemm/raw_ring.py
        if cfg.epilogue == "tma":                  # STORE_DEPTH 64x64 buffers per consumer wg
            staging = pool.alloc((2 * STORE_DEPTH * STORE_BUFFER_BYTES,), "i8", align=1024)
        pool.commit()
        ring = pool.dynamic(align=SWIZZLE_ALIGN)
        a_ring = ring                              # S x [128 x 64] bf16
        b_ring = byte_offset(ring, S * cfg.a_bytes)  # S x [bn x 64] bf16
        if cfg.barriers == "pipe":
            k.prologue(pipes=[pipe], sequences=[order] if order else [])
        else:
            raw.prologue(k)

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
            """This CTA's (tile_m, tile_n, k_first, k_count, split): its own
            block's tile, or (persistent) every %nctaid.x-th work unit from
            its block id on (splitk.unit), `carry` through the loop. The
            grid is whole clusters, so a cluster's CTAs walk the same
            number of tiles, each the same N tile as its peers."""
            if not cfg.persistent:
                yield (*raster(k.block_rank()), None, k_tiles, None)
                return
            for vb in lang.range(k.block_rank(), splitk.units(cfg, tiles_m * tiles_n),
                                 k.block_count(), carry=carry):
                yield splitk.unit(cfg, vb, raster, k_tiles)

        roles = WarpgroupRoles(k, PRODUCER_REGS, CONSUMER_REGS)
        tid = roles.tid
        with roles.producer():                     # ---- producer warpgroup
            with if_then(tid == 0):
                lang.prefetch_tensormap(k.param("tmap_a"))
                lang.prefetch_tensormap(k.param("tmap_b"))
                rank = k.cluster_rank() if CS > 1 else lang.const(0)
                if cfg.barriers == "pipe":
                    producer = pipe.producer()
                    for tile_m, tile_n, k_first, k_count, _ in each_tile([producer]):
                        b_row = tile_n * BN + rank * cfg.b_box_rows
                        pipe_producer(k, cfg, producer, a_ring, b_ring, k_count, tile_m,
                                      b_row, rank, k_first)
                    producer.tail()                # every stage released before exit
                else:
                    ((tile_m, tile_n, *_),) = each_tile([])
                    b_row = tile_n * BN + rank * cfg.b_box_rows
                    raw.produce(k, a_ring, b_ring, k_tiles, tile_m, b_row, rank)
        with roles.consumers():                    # ---- consumer warpgroups
            cw = roles.warpgroup - 1               # 0 or 1: rows 64*cw .. of the tile
            wtid = tid % 128
            if cfg.consumers == "pingpong":
                mine = None
                if cfg.epilogue == "tma":
                    mine = byte_offset(staging.ptr, cw * (STORE_DEPTH * STORE_BUFFER_BYTES))
                pingpong_consumer(k, cfg, pipe, order, a_ring, b_ring, k_tiles, cw, wtid, raster,
                                  tiles_m * tiles_n, mine, Mp, Np)
            elif cfg.barriers == "pipe":
                consumer = pipe.consumer()
                meet = warpgroup_barrier(k, cw) if cfg.epilogue == "tma" else None
                for tile_m, tile_n, _, k_count, split in each_tile([consumer]):
                    acc = pipe_consumer(cfg, consumer, a_ring, b_ring, k_count, cw, wtid)
                    row0, col0 = tile_m * BM + cw * 64, tile_n * BN
                    if split is not None:              # f32 partial into slice `split`
                        store_tile(k, acc, splitk.partial_config(cfg), row0, col0, wtid, Mp, Np,
                                   c=splitk.partial_ptr(k, split, Mp, Np))
                        continue
                    if cfg.epilogue == "direct":
                        store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np)
                        continue
                    mine = byte_offset(staging.ptr, cw * (STORE_DEPTH * STORE_BUFFER_BYTES))
                    store_tile_any(k, acc, cfg, mine, row0, col0, wtid, meet, Mp, Np)
                if cfg.epilogue == "tma":
                    store_drain(wtid)
            else:
                ((tile_m, tile_n, *_),) = each_tile([])
                acc = raw.consume(k, a_ring, b_ring, k_tiles, cw, wtid)
                store_tile(k, acc, cfg, tile_m * BM + cw * 64, tile_n * BN, wtid, Mp, Np)
        k.epilogue()                               # no CTA exits while its peer may arrive
    k.config = cfg  # type: ignore[attr-defined]
    return k


def case(M: int = 200, N: int = 328, K: int = 200, cfg: Config | None = None,
         seed: int | None = None, name: str | None = None, sms: int = 132) -> manifest.Case:
    """The GEMM on small integer-valued bf16 inputs (every product and sum
    exact in f32, so the f32 output is checked exactly), shape not a multiple
    of the tile, for a manifest run (launched with ``cfg.smem_bytes`` of
    dynamic shared memory). `sms`: a persistent kernel's grid (fewer CTAs
    than tiles, so that each walks several)."""
    cfg = cfg or Config(bn=128, stages=4, out="f32", epilogue="direct")
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float32)
    b = rng.integers(-3, 4, (N, K)).astype(np.float32)
    c = (a @ b.T).T.copy() if cfg.store_transposed else a @ b.T   # C: N x M, or M x N
    k = build(M, N, K, cfg, name=name, source_params=True, sms=sms)
    f32 = cfg.out == "f32" or cfg.split_k > 1      # split-K: its f32 partials, checked
    expect = splitk.partials(a, b, cfg.split_k) if cfg.split_k > 1 else \
        c if f32 else to_bf16_bits(c)
    out_dtype = "float32" if f32 else "uint16"
    ab = to_bf16_bits(a if cfg.a_major == "K" else a.T)   # MN-major: stored transposed
    bb = to_bf16_bits(b if cfg.b_major == "K" else b.T)
    a_op = layouts.Operand("a", M, K, cfg.a_major, ab.shape[1], 0)
    b_op = layouts.Operand("b", N, K, cfg.b_major, bb.shape[1], 0)
    a_map = manifest.tensormap("a", a_op.map_shape(), a_op.box(cfg.bm), dtype="uint16",
                               swizzle="128B")
    return manifest.Case(
        k, [manifest.buffer("a", ab), manifest.buffer("b", bb), a_map,
            manifest.tensormap("b", b_op.map_shape(), b_op.box(cfg.b_box_rows),
                               dtype="uint16", swizzle="128B"),
            manifest.buffer("c", fill=-1 if f32 else 0xFFFF,   # NaN poison
                            shape=list(expect.shape), dtype=out_dtype)] +
        # The TMA epilogue's map of C (rows 16-byte aligned; else A's map, unused).
        [manifest.tensormap("c", c.shape, STORE_BOX, dtype="uint16", swizzle="128B")
         if c.shape[1] % 8 == 0 else a_map]
        * (cfg.epilogue == "tma") +
        [manifest.scalar(M), manifest.scalar(N), manifest.scalar(K)],
        {"c": expect}, inputs={"a": ab, "b": bb}, shared_mem=cfg.smem_bytes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bn", type=int, default=256)
    parser.add_argument("--stages", type=int, default=4)
    parser.add_argument("--cluster", type=int, default=1)
    parser.add_argument("--out", default="bf16")
    parser.add_argument("--persistent", action=argparse.BooleanOptionalAction, default=True,
                        help="one CTA per SM walks the tiles (Config.persistent)")
    parser.add_argument("--epilogue", default="tma", help="tma (bf16 C) or direct")
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true", help="launch it on 512x512x512 and check")
    args = parser.parse_args()
    cfg = Config(bn=args.bn, stages=args.stages, cluster=args.cluster, out=args.out,
                 persistent=args.persistent, epilogue=args.epilogue)
    k = build(cfg=cfg)
    compiled = k.compile()
    compiled.write(args.out_dir, cfg.name)
    print(f"wrote {cfg.name}.ptx/.cubin to {os.path.abspath(args.out_dir)}; "
          f"launch with {cfg.smem_bytes} bytes of dynamic shared memory")
    if args.run:
        err = run_and_check(compiled, cfg, THREADS)
        print(f"512x512x512: relative error {err:.2e}")
        assert err < 1e-2


if __name__ == "__main__":
    main()
