"""A warp-specialized FlashAttention-style forward kernel for the H200
(sm_90a), every barrier of it an mbarrier-dialect op.

    O = softmax(Q K^T * scale) V,   lse = log sum_j exp(Q K^T * scale)

    python -m examples.attention [--head-dim 128] [--block-n N] [--causal] [--pingpong] [--serial]
                                 [--epilogue tma] [--persistent] [-o OUT_DIR] [--run]

Q, K, V, O are [batch, heads, seq, head_dim] bf16 (contiguous; the TMA maps
see them as [batch*heads, seq, head_dim]), lse [batch, heads, seq] f32;
accumulation and softmax statistics in f32 (online softmax in log2 units,
``ex2.approx``). seq is a kernel parameter: the tail tile reads zeros (TMA
out-of-bounds fill), its scores are masked to -inf, its rows are not stored.
One CTA per (query tile of BM rows, batch x head); heavy causal tiles first.

The CTA is 1 + BM/64 warpgroups:

* warpgroup 0, the **producer** (``setmaxnreg.dec 24``): one thread loads
  the Q tile once (a ``TMABar``: ``arrive.expect_tx`` + the copies), then
  for each kv block acquires a stage of the K ring and of the V ring
  (two ``lang.Pipeline``\\ s: separate rings, as FA3's ``pipeline_k`` and
  ``pipeline_v``), starts the TMA copies into it and commits it with the
  bytes; ``tail()`` on both before it exits.
* warpgroups 1.., the **consumers** (``setmaxnreg.inc``), 64 query rows
  each: wait for Q; per kv block wait for K (``consumer.wait()``), S = Q K^T
  (SS wgmma, both K-major, 128-byte swizzle), release K, mask, online
  softmax, wait for V, O += P V (RS wgmma: P from registers, V MN-major
  through ``imm-trans-b``; attention_parts/mma.py says why inline PTX for
  this one MMA), release V. Thread 0 of the warpgroup releases, after the
  warpgroup's ``wgmma.wait_group`` (its MMAs that read the stage are done).
  ``overlap=True`` (the default, FA3's intra-warpgroup overlap) issues S of
  block j together with P V of block j-1 and runs the softmax of j under
  that PV GEMM (attention_parts/consumer.py has both schedules).
* ``pingpong=True``: FA3's warp scheduler. The consumer warpgroups take
  turns at the tensor cores with named barriers (``k.named_barrier``, one
  per consumer warpgroup: ``sync(own)`` before the GEMMs of a step,
  ``arrive(next)`` after they were issued; warpgroup 0 gets the first
  turn), so that one warpgroup's softmax runs while another's GEMMs do.
* The epilogue: O / l in bf16 and the log-sum-exp (by one lane per row);
  rows past seq are not stored. ``epilogue="direct"`` stores each thread's
  pairs of columns; ``epilogue="tma"`` writes the warpgroup's rows into its
  (no longer read) rows of the Q tile and stores them with the TMA.

* ``persistent=True``: one CTA per SM walks the tiles; Q comes through a
  2-stage pipe (released after the epilogue), the Q, K, V pipe states are
  carried across tiles, the ping-pong turn ends are taken once per CTA.
  :func:`config_for` picks the measured-fastest configuration
  (attention_parts/schedule.py).

From torch: ``forward(q, k, v, causal=False, scale=None) -> (o, lse)``
on CUDA tensors [batch, heads, seq, head_dim] bf16 runs config_for's
kernel, compiled once into a disk cache (``$MBARRIER_ATTENTION_CACHE``,
else ``~/.cache/mbarrier-dialect/attention``; ``api.clear_cache()`` or
removing the folder clears it), capturable in a CUDA graph; bad input is a
ValueError before any CUDA call (attention_parts/api.py).
``backward(q, k, v, o, lse, do, causal=False, scale=None) -> (dq, dk, dv)``
is the backward pass with the forward's lse: a preprocess row kernel, the
warp-specialized dK/dV kernel (dQ by bulk reductions) and a convert kernel
(attention_parts/backward*.py), cached and checked the same way.

docs/pipelines.md ("A FlashAttention-3-class forward kernel") walks
through the protocol; bench/attention/ measures it against torch
(api_run.py: the torch entry against FlashAttention-4, cuDNN and FA2).
"""
from __future__ import annotations

import argparse
import dataclasses
import os

from mlir.dialects import llvm

if not __package__:   # `python examples/NAME.py`: the parts below import as a package
    raise SystemExit(f"examples/{os.path.basename(__file__)} imports its parts as a package: run it "
                     f"from the repository root as `python -m examples.{os.path.basename(__file__)[:-3]}` "
                     "(same options)")
from .attention_parts import api, mma, schedule, softmax as sm  # noqa: E402
from .attention_parts import backward as bwd, backward_api, backward_rows as bwd_rows  # noqa: E402
from .attention_parts.consumer import (Rows, by_warpgroup, consumer, first_turn as take_first_turn,  # noqa: E402
                                      last_turn)
from .attention_parts.shapes import check_shape, grid  # noqa: E402,F401
from mbarrier_dialect import lang  # noqa: E402
from mbarrier_dialect.lang import (Kernel, Pipeline, TMABar, WarpgroupRoles, byte_offset,  # noqa: E402
                                   if_then)
from mbarrier_dialect.lang.pipeline import StageBuffer  # noqa: E402

CHUNK = 64                  # head-dim columns per TMA box / swizzle atom (128 bytes of bf16)
PRODUCER_REGS = 24
SWIZZLE_ALIGN = 1024
SMS = 132                   # the H200's SMs: a persistent kernel's declared grid
HEAD_DIMS = (64, 128, 256)  # wgmma's N is at most 256: O += P V takes the whole head dim


@dataclasses.dataclass(frozen=True)
class Config:
    head_dim: int = 128     # 64, 128 or 256 (256: FA3's 128 x 80, 2 stages; no Q ring)
    causal: bool = False
    block_m: int = 128      # query rows per CTA: 64 per consumer warpgroup (128 or 192)
    block_n: int = 128      # kv rows per block
    stages: int = 2         # depth of the K ring and of the V ring
    pingpong: bool = False  # consumer warpgroups take turns at the GEMMs (named barriers)
    overlap: bool = True    # FA3's intra-warpgroup overlap: softmax of j under the PV GEMM of j-1
    # The O epilogue: "direct" stores each thread's bf16 pairs to global
    # memory; "tma" writes the warpgroup's 64 rows into its (no longer read)
    # rows of the Q tile, 128-byte swizzled, and one thread stores them with
    # the TMA (64 x 64 boxes, clipped at seq).
    epilogue: str = "direct"
    # A persistent kernel: ``grid(..., sms=)`` CTAs (at most one per SM)
    # walk the (query tile, batch x head) tiles, ``tile = %ctaid.x + i *
    # %nctaid.x`` (causal: the longest query tiles of every batch x head
    # first). Q comes through a ring of two stages (a third
    # ``lang.Pipeline``, released after the tile's epilogue), and the Q, K
    # and V pipes' states are carried across tiles: the producer loads the
    # next tile's Q and first K/V blocks while the consumers finish this
    # one (the short-sequence rows: a CTA per tile pays them in series).
    persistent: bool = False

    def __post_init__(self):
        for name in ("causal", "pingpong", "overlap", "persistent"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} is a bool (a build-time choice), got "
                                f"{type(getattr(self, name)).__name__}")
        if self.epilogue not in ("direct", "tma"):
            raise ValueError(f"epilogue is 'direct' or 'tma', got {self.epilogue!r}")
        if self.head_dim not in HEAD_DIMS:
            raise ValueError(f"head_dim is 64, 128 or 256, got {self.head_dim}")
        if self.block_m not in (128, 192):
            raise ValueError(f"block_m is 128 or 192 (two or three consumer warpgroups), "
                             f"got {self.block_m}")
        if self.block_n % 16 or not 16 <= self.block_n <= 256:
            raise ValueError(f"block_n is a multiple of 16 up to 256, got {self.block_n}")
        if self.causal and self.block_n > self.block_m:
            raise ValueError("causal takes block_n <= block_m")
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) \
                or not 1 <= self.stages <= 4:
            raise ValueError(f"stages is 1 to 4, got {self.stages!r}")
        if self.smem_bytes > 227 * 1024:
            raise ValueError(f"{self.stages} stages of {self.block_n}x{self.head_dim} K and V "
                             f"need {self.smem_bytes} bytes of shared memory, more than 227 KiB")
        # registers: 65536 per SM, the producer warpgroup's 24 per thread first;
        # a consumer holds S (block_n/2), O (head_dim/2), P (block_n/4) and ~32 more.
        if self.consumer_regs < self.block_n // 2 + self.head_dim // 2 + self.block_n // 4 + 32:
            raise ValueError(f"S, P and O of a {self.block_m}x{self.block_n} block at head dim "
                             f"{self.head_dim} do not fit {self.consumer_regs} registers")

    @property
    def consumers(self) -> int:
        return self.block_m // 64

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers)

    @property
    def consumer_regs(self) -> int:
        """setmaxnreg of a consumer warpgroup: a multiple of 8 up to 240."""
        return min(240, (65536 // 128 - PRODUCER_REGS) // self.consumers // 8 * 8)

    @property
    def q_bytes(self) -> int:
        return self.block_m * self.head_dim * 2

    @property
    def kv_bytes(self) -> int:       # one stage of K (or V)
        return self.block_n * self.head_dim * 2

    @property
    def q_stages(self) -> int:       # the Q tile's buffers: two in the persistent ring
        return 2 if self.persistent else 1

    @property
    def smem_bytes(self) -> int:     # dynamic shared memory to launch with
        return self.q_stages * self.q_bytes + 2 * self.stages * self.kv_bytes + SWIZZLE_ALIGN

    @property
    def name(self) -> str:
        c = "_causal" if self.causal else ""
        p = "_pp" if self.pingpong else ""
        o = "" if self.overlap else "_serial"
        e = "_ts" if self.epilogue == "tma" else ""
        r = "_persist" if self.persistent else ""
        return (f"attn_d{self.head_dim}_m{self.block_m}n{self.block_n}_s{self.stages}{c}{p}{o}{e}"
                f"{r}")


def config_for(head_dim: int, seq: int, causal: bool) -> Config:
    """The measured-fastest configuration for the problem on the H200
    (attention_parts/schedule.py's table; ``Config()`` itself keeps the
    plain defaults that build.py's named configurations start from)."""
    return Config(**schedule.choose(head_dim, seq, causal))


def build(batch: int = 1, heads: int = 16, seq: int = 4096, cfg: Config | None = None,
          name: str | None = None, source_params: bool = False, first_turn: bool = True,
          sms: int = SMS, **overrides) -> Kernel:
    """The kernel ``attn(tmap_q, tmap_k, tmap_v, o, lse, seq, scale_log2)``
    (persistent: ``..., seq, batch_heads, scale_log2``); its declared grid
    covers batch x heads x seq (launch with ``grid(batch, heads, seq,
    cfg.block_m)`` CTAs for other shapes, ``sms=`` the SMs when
    persistent). The tensor maps describe [batch*heads, seq, head_dim] bf16
    with boxes (1, block_m, 64) for Q and (1, block_n, 64) for K and V,
    128-byte swizzle. `source_params` adds three leading, unused ``q``,
    ``k``, ``v`` pointers: a manifest names the buffer of a tensor map as
    an argument before it. `first_turn=False` (pingpong only) builds the
    hang without warpgroup 0's first turn, for the checker's test."""
    cfg = dataclasses.replace(cfg or Config(), **overrides)
    D, BM, BN, S = cfg.head_dim, cfg.block_m, cfg.block_n, cfg.stages
    chunks = D // CHUNK
    with Kernel(name or cfg.name, block=cfg.threads,
                grid=grid(batch, heads, seq, BM, sms if cfg.persistent else None),
                chip="sm_90a",
                params=[("q", "ptr"), ("k", "ptr"), ("v", "ptr")] * source_params +
                [("tmap_q", "ptr"), ("tmap_k", "ptr"), ("tmap_v", "ptr"), ("o", "ptr")] +
                [("tmap_o", "ptr")] * (cfg.epilogue == "tma") +
                [("lse", "ptr"), ("seq", "i32")] + [("batch_heads", "i32")] * cfg.persistent +
                [("scale_log2", "f32")]) as k:
        pool = k.smem_pool()
        if cfg.persistent:                         # two Q buffers, a stage per tile
            q_pipe = Pipeline(pool, 2, kind="tma", consumers=cfg.consumers)
        else:
            q_full = TMABar(pool, 1)               # the Q tile landed (one phase)
        k_pipe = Pipeline(pool, S, kind="tma", consumers=cfg.consumers)
        v_pipe = Pipeline(pool, S, kind="tma", consumers=cfg.consumers)
        turns = ([k.named_barrier(threads=256) for _ in range(cfg.consumers)]
                 if cfg.pingpong else None)
        meets = ([k.named_barrier(threads=128) for _ in range(cfg.consumers)]
                 if cfg.epilogue == "tma" else None)
        pool.commit()
        base = pool.dynamic(align=SWIZZLE_ALIGN)
        q_all = cfg.q_stages * cfg.q_bytes
        q_stages = StageBuffer(base, (cfg.q_stages, BM * D), "bf16")  # chunks x [BM x 64] each
        k_stages = StageBuffer(byte_offset(base, q_all), (S, BN * D), "bf16")
        v_stages = StageBuffer(byte_offset(base, q_all + S * cfg.kv_bytes), (S, BN * D), "bf16")
        if cfg.persistent:
            k.prologue(pipes=[q_pipe, k_pipe, v_pipe])
        else:
            k.prologue({q_full: 1}, pipes=[k_pipe, v_pipe])

        seq_len = k.param("seq")
        n_q = (seq_len + (BM - 1)) // BM

        def tiles(carry):
            """(bh, q0, n_full, n_blocks) of this CTA's tiles: its block's,
            or (persistent) every %nctaid.x-th tile from its block id on,
            `carry` through the loop."""
            if not cfg.persistent:
                bid = k.block_rank()
                yield _tile(cfg, bid // n_q, bid % n_q, n_q, seq_len)
                return
            n_tiles = n_q * k.param("batch_heads")
            for t in lang.range(k.block_rank(), n_tiles, k.block_count(), carry=carry):
                if cfg.causal:                     # every bh's longest query tile first
                    yield _tile(cfg, t % k.param("batch_heads"), t // k.param("batch_heads"),
                                n_q, seq_len)
                else:                              # a bh's tiles together (its K, V in L2)
                    yield _tile(cfg, t // n_q, t % n_q, n_q, seq_len)

        roles = WarpgroupRoles(k, PRODUCER_REGS, cfg.consumer_regs)
        tid = roles.tid
        with roles.producer():                     # ---- producer warpgroup
            with if_then(tid == 0):
                for t in ("tmap_q", "tmap_k", "tmap_v"):
                    lang.prefetch_tensormap(k.param(t))
                kp, vp = k_pipe.producer(), v_pipe.producer()
                qp = q_pipe.producer() if cfg.persistent else None
                for bh, q0, _, n_blocks in tiles([qp, kp, vp] if qp else []):
                    if qp is None:
                        q_full.arrive(0, tx_count=cfg.q_bytes)
                        for c in range(chunks):
                            dst = pool.view(byte_offset(base, c * BM * 128), (BM, CHUNK), "bf16",
                                            align=SWIZZLE_ALIGN)
                            lang.cp_async_bulk_tensor(dst, k.param("tmap_q"),
                                                      [bh, q0, c * CHUNK], bar=q_full)
                    else:
                        slot = qp.acquire()        # the Q buffer of the tile before last is free
                        for c in range(chunks):
                            slot.cp_async_bulk_tensor(q_stages, k.param("tmap_q"),
                                                      [bh, q0, c * CHUNK], box_bytes=BM * 128,
                                                      byte_offset_in_stage=c * BM * 128)
                        slot.commit(bytes=cfg.q_bytes)
                    _producer(k, cfg, kp, vp, k_stages, v_stages, bh, n_blocks)
                if qp is not None:
                    qp.tail()
                kp.tail()                          # every stage released before exit
                vp.tail()
        with roles.consumers():                    # ---- consumer warpgroups
            kc, vc = k_pipe.consumer(), v_pipe.consumer()
            qc = q_pipe.consumer() if cfg.persistent else None
            cw = roles.warpgroup - 1
            if qc is not None and turns is not None and first_turn:
                take_first_turn(turns, cw)         # once per CTA: the turn goes round across tiles
            for bh, q0, n_full, n_blocks in tiles([qc, kc, vc] if qc else []):
                if qc is None:
                    q_full.wait(0, 0)
                    q_smem = base
                else:
                    q_slot = qc.wait()             # this tile's Q landed
                    q_smem = q_slot.stage_ptr(q_stages)
                rows = Rows(k, cfg, k_stages, v_stages, turns, cw, tid % 128, q0, seq_len)
                m, l, o = consumer(rows, q_smem, kc, vc, n_full, n_blocks, first_turn,
                                   turn_ends=qc is None)
                o_vals, lse = sm.finish(mma.unpack(o, D), m, l)
                if cfg.epilogue == "tma":
                    _store_tma(k, cfg, o_vals, rows, q_smem, meets, bh)
                    _store_lse(k, lse, rows.rows, rows.lane, bh, seq_len)
                else:
                    _store(k, cfg, o_vals, lse, rows.rows, rows.lane, bh, seq_len)
                if qc is not None:
                    # after the TMA store read it (thread 0 waited): the buffer may refill
                    q_slot.release(pred=rows.wtid == 0)
            if qc is not None and turns is not None:
                last_turn(turns, cw)               # warpgroup 0's last phase completes
    k.config = cfg  # type: ignore[attr-defined]
    return k


def kernel_for(fields: dict):
    """What attention_parts/api.py's cache needs of a configuration: the
    kernel's MLIR source, its launch facts, and a function compiling it."""
    cfg = Config(**fields)
    kernel = build(cfg=cfg)
    launch = {"entry": cfg.name, "threads": cfg.threads, "smem_bytes": cfg.smem_bytes,
              "block_m": cfg.block_m, "block_n": cfg.block_n, "epilogue": cfg.epilogue,
              "persistent": cfg.persistent, "head_dim": cfg.head_dim, "causal": cfg.causal}
    return str(kernel.module), launch, lambda: kernel.compile().cubin


_forward = None


def forward(q, k, v, causal: bool = False, scale: float | None = None):
    """(O, lse) of torch CUDA tensors q, k, v [batch, heads, seq, head_dim]
    bf16: O bf16 [b, h, s, d], lse f32 [b, h, s] (natural log), scale
    default 1/sqrt(head_dim); config_for's kernel, compiled once into the
    disk cache (attention_parts/api.py says where, and what it refuses)."""
    global _forward
    if _forward is None:
        _forward = api.Forward(api.Cache(compiler=_compiler()))
    return _forward(q, k, v, causal, scale)


def _compiler(build=None) -> api.Compiler:
    from mbarrier_dialect.versions import version_report
    return api.Compiler(build or kernel_for, lambda: version_report("attention"))


_backward = None


def backward(q, k, v, o, lse, do, causal: bool = False, scale: float | None = None):
    """(dQ, dK, dV) bf16 [b, h, s, d] of the attention whose forward gave
    (o, lse) on q, k, v, for the output gradient do (bf16 [b, h, s, d]);
    the three kernels of attention_parts/backward*.py, compiled once into
    forward's disk cache; backward_api.py says what it refuses."""
    global _backward
    if _backward is None:
        _backward = backward_api.Backward(api.Cache(compiler=_compiler(backward_kernel_for)))
    return _backward(q, k, v, o, lse, do, causal, scale)


def backward_kernel_for(fields: dict):
    """kernel_for of the backward's three kernels (backward_api.fields)."""
    kind, d = fields["kernel"], fields["head_dim"]
    consumers = fields.get("consumers", 1)
    if kind == "bwd":
        cfg = bwd.BwdConfig(head_dim=d, causal=fields["causal"], consumers=consumers)
        kernel, threads, smem = bwd.build(cfg=cfg), cfg.threads, cfg.smem_bytes
    else:
        kernel = (bwd_rows.preprocess if kind == "bwd_pre" else bwd_rows.convert)(d)
        threads, smem = bwd_rows.THREADS, 0
    launch = {"entry": kernel.name, "threads": threads, "smem_bytes": smem,
              "consumers": consumers}
    return str(kernel.module), launch, lambda: kernel.compile().cubin


def _tile(cfg, bh, q_tile, n_q, seq_len):
    """(bh, q0, n_full, n_blocks) of query tile `q_tile` (causal: counted
    from the last, the longest rows first) of batch x head `bh`: its kv
    blocks end at seq (causal: at its last row), those below n_full need
    no mask (every column < seq and, causal, <= every row of the tile)."""
    BM, BN = cfg.block_m, cfg.block_n
    if cfg.causal:
        q_tile = n_q - 1 - q_tile
    q0 = q_tile * BM
    kv_end = lang.select(q0 + BM < seq_len, q0 + BM, seq_len) if cfg.causal else seq_len
    n_blocks = (kv_end + (BN - 1)) // BN
    n_full = seq_len // BN
    if cfg.causal:
        diag = (q0 + 1) // BN
        n_full = lang.select(diag < n_full, diag, n_full)
    return bh, q0, n_full, n_blocks


def _producer(k, cfg, kp, vp, k_stages, v_stages, bh, n_blocks) -> None:
    """The TMA loop of one tile: per kv block a K stage and a V stage, each
    two (or one) 64-column boxes, committed with the bytes that land (the
    caller runs the tails once, after its last tile)."""
    BN, chunks = cfg.block_n, cfg.head_dim // CHUNK
    box = BN * CHUNK * 2
    for j in lang.range(n_blocks, carry=[kp, vp]):
        for side, stages, tmap in ((kp, k_stages, "tmap_k"), (vp, v_stages, "tmap_v")):
            slot = side.acquire()
            for c in range(chunks):
                slot.cp_async_bulk_tensor(stages, k.param(tmap), [bh, j * BN, c * CHUNK],
                                          box_bytes=box, byte_offset_in_stage=c * box)
            slot.commit(bytes=cfg.kv_bytes)


def _store(k, cfg, o_vals, lse, rows, lane, bh, seq_len) -> None:
    """O rows (bf16 pairs, 4-byte stores) and lse (lane l % 4 == 0) of this
    thread's two rows, those below seq."""
    from mlir import ir
    D = cfg.head_dim
    bf16 = ir.BF16Type.get()
    base_row = bh.to("i64") * seq_len.to("i64")
    for h in (0, 1):
        r = rows[h]
        with if_then(r < seq_len):
            grow = base_row + r.to("i64")
            row_ptr = k.element_ptr(k.param("o"), grow * D, bf16)
            for j8 in range(D // 8):
                col = (lane % 4) * 2 + 8 * j8
                v = mma.bf16x2(o_vals[4 * j8 + 2 * h], o_vals[4 * j8 + 2 * h + 1])
                llvm.StoreOp(v, k.element_ptr(row_ptr, col, bf16), alignment=4)
    _store_lse(k, lse, rows, lane, bh, seq_len)


def _store_lse(k, lse, rows, lane, bh, seq_len) -> None:
    """lse of this thread's two rows below seq, by lane l % 4 == 0."""
    from mlir import ir
    f32 = ir.F32Type.get()
    base_row = bh.to("i64") * seq_len.to("i64")
    for h in (0, 1):
        with if_then((rows[h] < seq_len) & (lane % 4 == 0)):
            llvm.StoreOp(lse[h], k.element_ptr(k.param("lse"), base_row + rows[h].to("i64"), f32),
                         alignment=4)


def _store_tma(k, cfg, o_vals, r, q_smem, meets, bh) -> None:
    """O through the TMA store: this warpgroup's 64 rows of the Q tile are
    free (its last S = Q K^T completed before the last softmax), so each
    thread writes its bf16 pairs there in the 128-byte swizzled layout of a
    (1, 64, 64) box (16-byte chunk c of row rr at chunk c ^ (rr % 8); rr %
    8 is lane / 4), fences them for the async proxy, the warpgroup meets
    (its own named barrier of 128), and its thread 0 stores the head dim's
    64-column chunks, commits them as one bulk group and waits until they
    were read (``wait_group.read 0``) before the CTA may exit."""
    D, BM = cfg.head_dim, cfg.block_m
    lane, warp = r.lane, r.wtid // 32
    swz = lane // 4
    mine = [byte_offset(q_smem, r.cw * (64 * 128))]
    for h in (0, 1):
        rr = warp * 16 + swz + 8 * h
        for j8 in range(D // 8):
            c, jj = divmod(j8, 8)
            v = mma.bf16x2(o_vals[4 * j8 + 2 * h], o_vals[4 * j8 + 2 * h + 1])
            offset = c * BM * 128 + rr * 128 + (swz ^ jj) * 16 + (lane % 4) * 4
            llvm.StoreOp(v, byte_offset(mine[0], offset), alignment=4)
    lang.fence_proxy_async()                       # my writes, before the async proxy reads

    def meet(g):
        meets[g].sync()
        return []
    by_warpgroup(r.cw, cfg.consumers, meet)
    with if_then(r.wtid == 0):
        for c in range(D // CHUNK):
            lang.cp_async_bulk_tensor_store(byte_offset(mine[0], c * BM * 128), k.param("tmap_o"),
                                            [bh, r.q0 + r.cw * 64, c * CHUNK])
        lang.bulk_commit_group()
        lang.bulk_wait_group_read(0)               # the tile was read: the CTA may exit


def exact_data(batch: int, heads: int, seq: int, head_dim: int, causal: bool, seed=None):
    """Inputs whose attention is exact in the kernel's arithmetic, and the
    expected O (bf16 bits) and lse (f32). Key j is 4 (e_a + e_b) for its own
    pair a < b of head-dim components; query i is 16 (e_a + e_b) of the key
    t(i) it attends to (t(i) <= i when causal), so its score is 128 with key
    t(i), 64 with a key sharing one component, 0 else. With scale_log2 = 4
    the gap is 256 in log2 units: every other probability is exp2(-256) = 0
    (ex2.approx.ftz), every rescale factor exp2(0) = 1 or exp2(<= -256) = 0,
    l = 1, O[i] = V[t(i)] (small integers) and lse = 512 ln 2 (f32), exactly,
    whichever block holds t(i), masked tails included."""
    import numpy as np
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in range(head_dim) for b in range(a + 1, head_dim)]
    if seq > len(pairs):
        raise ValueError(f"seq {seq}: at most {len(pairs)} distinct keys of head dim {head_dim}")
    q = np.zeros((batch, heads, seq, head_dim), np.float32)
    kk = np.zeros_like(q)
    v = rng.integers(-8, 9, (batch, heads, seq, head_dim)).astype(np.float32)
    o = np.zeros_like(q)
    for bh in np.ndindex(batch, heads):
        keys = rng.permutation(len(pairs))[:seq]
        for j, p in enumerate(keys):
            kk[bh][j, list(pairs[p])] = 4.0
        for i in range(seq):
            t = int(rng.integers(0, i + 1 if causal else seq))
            q[bh][i, list(pairs[keys[t]])] = 16.0
            o[bh][i] = v[bh][t]
    lse = np.full((batch, heads, seq), np.float32(512.0) * np.float32(sm.LN2), np.float32)
    return q, kk, v, o, lse


def case(batch: int = 2, heads: int = 2, seq: int = 300, cfg: Config | None = None,
         seed: int | None = None, name: str | None = None, sms: int = SMS):
    """The exact case of :func:`exact_data` for a manifest run (test/gpu):
    O and lse compared bit for bit. `sms`: a persistent kernel's grid (a
    few CTAs make each walk several tiles, round the Q ring)."""
    from mbarrier_dialect.manifest import to_bf16_bits
    from mbarrier_dialect import manifest
    cfg = cfg or Config()
    q, kk, v, o, lse = exact_data(batch, heads, seq, cfg.head_dim, cfg.causal, seed)
    bits = {n: to_bf16_bits(a) for n, a in (("q", q), ("k", kk), ("v", v))}
    k = build(batch, heads, seq, cfg, name=name, source_params=True, sms=sms)
    shape = (batch * heads, seq, cfg.head_dim)
    maps = [manifest.tensormap(n, shape, (1, rows, CHUNK), dtype="uint16", swizzle="128B")
            for n, rows in (("q", cfg.block_m), ("k", cfg.block_n), ("v", cfg.block_n))]
    return manifest.Case(
        k, [manifest.buffer(n, bits[n]) for n in ("q", "k", "v")] + maps +
        [manifest.buffer("o", fill=0xFFFF, shape=list(o.shape), dtype="uint16")] +
        [manifest.tensormap("o", shape, (1, 64, CHUNK), dtype="uint16", swizzle="128B")]
        * (cfg.epilogue == "tma") +
        [manifest.buffer("lse", fill=-1, shape=list(lse.shape), dtype="float32"),
         manifest.scalar(seq)] +
        [manifest.scalar(batch * heads)] * cfg.persistent + [manifest.scalar(4.0, "float32")],
        {"o": to_bf16_bits(o), "lse": lse}, inputs=bits, shared_mem=cfg.smem_bytes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--head-dim", type=int, default=128, help="64, 128 or 256")
    parser.add_argument("--block-n", type=int, default=None,
                        help="kv rows per block (default 128; 80 at head dim 256)")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--pingpong", action="store_true")
    parser.add_argument("--serial", action="store_true", help="no intra-warpgroup overlap")
    parser.add_argument("--epilogue", default="direct", help="direct or tma")
    parser.add_argument("--persistent", action="store_true",
                        help="one CTA per SM walks the tiles (Config.persistent)")
    parser.add_argument("-o", "--out-dir", default=".")
    parser.add_argument("--run", action="store_true",
                        help="launch it on the exact one-hot case (2 x 2 x 300) and check")
    args = parser.parse_args()
    block_n = args.block_n or (80 if args.head_dim == 256 else 128)
    cfg = Config(head_dim=args.head_dim, block_n=block_n, causal=args.causal,
                 pingpong=args.pingpong,
                 overlap=not args.serial, epilogue=args.epilogue, persistent=args.persistent)
    compiled = build(cfg=cfg).compile()
    compiled.write(args.out_dir, cfg.name)
    print(f"wrote {cfg.name}.ptx/.cubin to {os.path.abspath(args.out_dir)}; "
          f"launch with {cfg.threads} threads, {cfg.smem_bytes} bytes of dynamic shared memory")
    if args.run:
        run_exact(cfg, compiled.cubin)


def run_exact(cfg: Config, cubin: bytes, batch: int = 2, heads: int = 2, seq: int = 300) -> None:
    """Launch the kernel on :func:`exact_data` and compare O and lse bit for bit."""
    import numpy as np
    from mbarrier_dialect.manifest import to_bf16_bits
    from mbarrier_dialect import runtime as rt
    rt.require_gpu()
    check_shape(batch, heads, seq, cfg.head_dim, cfg.head_dim)
    q, kk, v, o, lse = exact_data(batch, heads, seq, cfg.head_dim, cfg.causal, seed=1)
    shape = (batch * heads, seq, cfg.head_dim)
    bufs = [rt.DeviceBuffer.from_numpy(to_bf16_bits(a)) for a in (q, kk, v)]
    maps = [rt.encode_tensor_map_tiled(b, "bfloat16", shape, (1, rows, CHUNK), swizzle="128B")
            for b, rows in zip(bufs, (cfg.block_m, cfg.block_n, cfg.block_n))]
    d_o = rt.DeviceBuffer.empty(o.shape, np.uint16)
    d_lse = rt.DeviceBuffer.empty(lse.shape, np.float32)
    o_map = ([rt.encode_tensor_map_tiled(d_o, "bfloat16", shape, (1, 64, CHUNK), swizzle="128B")]
             if cfg.epilogue == "tma" else [])
    with rt.Module.load(cubin) as mod:
        sms = rt.sm_count() if cfg.persistent else None
        rt.launch(mod.function(cfg.name), grid(batch, heads, seq, cfg.block_m, sms), cfg.threads,
                  [*maps, d_o, *o_map, d_lse, np.int32(seq),
                   *[np.int32(batch * heads)] * cfg.persistent, np.float32(4.0)],
                  shared_mem=cfg.smem_bytes)
    ok_o = (d_o.to_numpy() == to_bf16_bits(o)).all()
    ok_lse = (d_lse.to_numpy() == lse).all()
    print(f"{batch}x{heads}x{seq}: O {'exact' if ok_o else 'WRONG'}, lse "
          f"{'exact' if ok_lse else 'WRONG'}")
    assert ok_o and ok_lse


if __name__ == "__main__":
    main()
