"""The dK/dV kernel of the attention backward pass (FlashAttention-2/3's
shape), every barrier a dialect op:

    P = exp2(S scale_log2 - lse2),  dP = dO V^T,  dS = P (dP - D)
    dV = P^T dO,  dK = scale dS^T Q,  dQ += dS K   (a bulk reduction)

with ``lse2 = lse log2 e`` and ``D = rowsum(dO O)`` from the preprocess
kernel (backward_rows.py), both padded to a whole number of query blocks
per batch x head (padding rows: lse2 = +inf, D = 0, so their P and dS are
exactly 0 and no query-row mask is needed).

One CTA per (key/value block of 64 x ``consumers`` rows, batch x head),
1 + ``consumers`` warpgroups:

* warpgroup 0, the **producer** (``setmaxnreg.dec 24``): one thread loads
  the K and V blocks once (a ``TMABar``), then for each query block of
  BM = 64 rows acquires a stage of the Q/dO ring (one ``lang.Pipeline``
  whose stage holds Q, dO and the block's 64 lse2 and delta, released by
  every consumer warpgroup), starts the TMA copies of Q and dO and two
  256-byte bulk copies of lse2 and delta into it and commits it with their
  bytes (lse2 and delta read from shared memory where they are used: not
  32 registers held across the GEMMs); ``tail()`` before it exits.
  Causal: the query blocks from the one holding the block's first key on
  (the others see none of its keys), the CTAs in longest-first order
  (:func:`_longest_first`).
* warpgroups 1.., the **consumers** (``setmaxnreg.inc``: CONSUMER_REGS),
  64 keys each, all on the same Q/dO stages: per query block, S^T = K Q^T
  and dP^T = V dO^T (SS wgmma, both K-major, one group each),
  ``wait_group 1`` (S^T done: P^T = exp2(S^T scale_log2 - lse2) while dP^T
  still runs), ``wait_group 0``, dS^T = P^T (dP^T - D) (masked: keys past
  seq, and causal keys after the query), dS^T written to the warpgroup's
  shared buffer in the 128-byte swizzle, ``fence.proxy.async``; the dQ
  issuer (the first consumer thread) waits until the last block's dQ
  reduction has read its shared source (``wait_group.read 0``); all
  consumers meet (``meet_ds``, a named barrier of every consumer thread);
  dV += P^T dO and dK += dS^T Q (RS wgmma: the S^T accumulator fragment is
  the A fragment, dO and Q MN-major B through ``imm-trans-b``), dQ_j = dS K
  (SS wgmma, both operands MN-major: ``imm-trans-a`` and ``imm-trans-b``),
  ``wait_group 0`` (after the first dQ group: release the stage), the dQ_j
  fragment stored to the shared dQ
  tile in dq_accum's fragment order (backward_rows.py), conflict-free
  16-byte stores, ``fence.proxy.async``; all consumers meet again
  (``meet_dq``) and the issuer adds the tile to dq_accum with one
  ``cp.reduce.async.bulk .add.f32`` per tile (FA3's dQ path: one bulk
  reduction instead of 64 x head-dim atomics per thread group) and
  commits the bulk group. At the end dK is scaled and dK, dV stored (rows
  below seq).

Who computes which dQ (:func:`dq_jobs`): one consumer, every 64-column
half of the head dim over its 64 keys; two consumers at head dim 128
(FA3's split), warpgroup g the half g over all 128 keys (both dS^T
buffers: ``meet_ds`` makes them visible to both); two at head dim 64,
each the whole tile over its own keys, into its own shared tile (two
reductions into the same dq_accum block).

Why a reduction into dq_accum (FA2's and FA3's choice) rather than a
separate dQ kernel: a dQ kernel recomputes S and dP (two more of the five
GEMMs, 40% more tensor work) to avoid the adds; the adds are 64 x D per
(key block, query block) against the 5 x 64 x 64 x D multiply-adds of that
step, and the bulk reduction does them in L2 without a thread's
instruction per value. One dS^T buffer per warpgroup suffices: the dS^T of
block j + 1 is written after ``meet_dq`` of block j, which every warp
reaches after its ``wait_group 0`` on block j's dQ GEMM (the last reader);
the shared dQ tile of block j + 1 is written after ``meet_ds`` of block
j + 1, which the issuer reaches after ``wait_group.read 0`` on block j's
reduction.
"""
from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import llvm, nvvm

from mlir.dialects import vector

from mbarrier_dialect.lang.wgmma import smem_address, wgmma, wgmma_descriptor
from mbarrier_dialect import lang
from mbarrier_dialect.lang import (Kernel, Pipeline, TMABar, WarpgroupRoles, byte_offset,
                                   if_then)
from mbarrier_dialect.lang.pipeline import StageBuffer

from . import mma, softmax as sm

CHUNK = 64
PRODUCER_REGS = 24
# setmaxnreg of a consumer warpgroup: one consumer (256 threads, launched
# with 255 registers) takes all it can; two (384 threads, launched with 168)
# take 240, the producer's 24 besides.
CONSUMER_REGS = {1: 256, 2: 240}
SWIZZLE_ALIGN = 1024
WARPGROUP = 128                 # threads; the first consumer thread issues the dQ reductions
DS_BYTES = 64 * 64 * 2          # one dS^T buffer: 64 keys x 64 queries, bf16
HALF_FLOATS = 64 * 64           # one 64-column half of a dQ tile, f32
ROW_BYTES = 64 * 4              # lse2 or delta of one query block, f32


@dataclasses.dataclass(frozen=True)
class BwdConfig:
    head_dim: int = 128
    causal: bool = False
    stages: int = 2             # depth of the Q/dO ring
    block_m: int = 64           # query rows per block (fixed: one m64 wgmma of dQ)
    consumers: int = 1          # consumer warpgroups, 64 keys each (the CTA's block: 64 x this)

    def __post_init__(self):
        if not isinstance(self.causal, bool):
            raise TypeError(f"causal is a bool (a build-time choice), got "
                            f"{type(self.causal).__name__}")
        if self.head_dim not in (64, 128):
            raise ValueError(f"head_dim is 64 or 128, got {self.head_dim}")
        if isinstance(self.consumers, bool) or self.consumers not in (1, 2):
            raise ValueError(f"consumers is 1 or 2 (warpgroups of 64 keys), got "
                             f"{self.consumers!r}")
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) \
                or not 1 <= self.stages <= 4:
            raise ValueError(f"stages is 1 to 4, got {self.stages!r}")

    @property
    def block_n(self) -> int:        # keys per CTA
        return 64 * self.consumers

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers)

    @property
    def tile_bytes(self) -> int:     # one 64-row tile of Q, dO, K or V
        return 64 * self.head_dim * 2

    @property
    def dq_tiles(self) -> int:       # shared dQ tiles (64 x head_dim f32), one reduction each
        return 2 if self.consumers == 2 and self.head_dim == 64 else 1

    @property
    def dq_tile_bytes(self) -> int:
        return 64 * self.head_dim * 4

    @property
    def smem_bytes(self) -> int:
        c = self.consumers
        return ((2 * c + 2 * self.stages) * self.tile_bytes + c * DS_BYTES
                + self.dq_tiles * self.dq_tile_bytes + 2 * self.stages * ROW_BYTES
                + SWIZZLE_ALIGN)

    @property
    def name(self) -> str:
        c = "_causal" if self.causal else ""
        w = f"_w{self.consumers}" if self.consumers > 1 else ""
        return f"attn_bwd_d{self.head_dim}_s{self.stages}{w}{c}"


PARAMS = [("tmap_q", "ptr"), ("tmap_k", "ptr"), ("tmap_v", "ptr"), ("tmap_do", "ptr"),
          ("dq_accum", "ptr"), ("dk", "ptr"), ("dv", "ptr"), ("lse2", "ptr"), ("delta", "ptr"),
          ("seq", "i32"), ("scale_log2", "f32"), ("scale", "f32")]


def build(batch: int = 1, heads: int = 16, seq: int = 4096, cfg: BwdConfig | None = None,
          name: str | None = None, **overrides) -> Kernel:
    """The kernel ``attn_bwd(tmap_q, tmap_k, tmap_v, tmap_do, dq_accum, dk,
    dv, lse2, delta, seq, scale_log2, scale)``: tensor maps of [batch*heads,
    seq, head_dim] bf16 with (1, 64, 64) boxes, 128-byte swizzle; dq_accum
    f32 [batch*heads, seq_pad, head_dim] (zeroed; seq_pad = seq rounded up
    to 64; each 64-row block in the fragment order of backward_rows.py),
    lse2 and delta f32 [batch*heads, seq_pad]; dk, dv bf16 [batch*heads,
    seq, head_dim]. Launch with ``grid(batch*heads, seq, cfg.consumers)``.
    Shared memory: the K tiles of the consumer warpgroups (64 rows each),
    their V tiles, the Q stages, the dO stages, one dS^T buffer per
    consumer, the dQ tile(s)."""
    cfg = dataclasses.replace(cfg or BwdConfig(), **overrides)
    D, S, C = cfg.head_dim, cfg.stages, cfg.consumers
    chunks = D // CHUNK
    tile = cfg.tile_bytes
    with Kernel(name or cfg.name, block=cfg.threads, grid=grid(batch * heads, seq, C),
                chip="sm_90a", params=PARAMS) as k:
        pool = k.smem_pool()
        kv_full = TMABar(pool, 1)                  # K and V landed (one phase)
        qdo_pipe = Pipeline(pool, S, kind="tma", consumers=C)
        meet_ds = k.named_barrier(threads=128 * C)   # every consumer's dS^T written
        meet_dq = k.named_barrier(threads=128 * C)   # every consumer's dQ part written
        pool.commit()
        base = pool.dynamic(align=SWIZZLE_ALIGN)
        q_stages = StageBuffer(byte_offset(base, 2 * C * tile), (S, 64 * D), "bf16")
        do_stages = StageBuffer(byte_offset(base, (2 * C + S) * tile), (S, 64 * D), "bf16")
        ds_base = byte_offset(base, (2 * C + 2 * S) * tile)
        dq_base = byte_offset(ds_base, C * DS_BYTES)
        rows_base = byte_offset(dq_base, cfg.dq_tiles * cfg.dq_tile_bytes)
        lse_stages = StageBuffer(rows_base, (S, 64), "f32")
        delta_stages = StageBuffer(byte_offset(rows_base, S * ROW_BYTES), (S, 64), "f32")
        k.prologue({kv_full: 1}, pipes=[qdo_pipe])

        seq_len = k.param("seq")
        n_kv = (seq_len + (cfg.block_n - 1)) // cfg.block_n
        n_q = (seq_len + 63) // 64
        bid = k.block_rank()
        if cfg.causal:
            bh, kv_tile = _longest_first(bid, n_kv, k.block_count() // n_kv)
        else:
            bh, kv_tile = bid // n_kv, bid % n_kv
        n0 = kv_tile * cfg.block_n
        # causal: the query blocks from the one of the CTA's first key on
        first = kv_tile * C if cfg.causal else lang.const(0)

        roles = WarpgroupRoles(k, PRODUCER_REGS, CONSUMER_REGS[C])
        tid = roles.tid
        with roles.producer():
            with if_then(tid == 0):
                for t in ("tmap_q", "tmap_k", "tmap_v", "tmap_do"):
                    lang.prefetch_tensormap(k.param(t))
                kv_full.arrive(0, tx_count=2 * C * tile)
                for which, tmap in ((0, "tmap_k"), (1, "tmap_v")):
                    for g in range(C):
                        for c in range(chunks):
                            dst = pool.view(byte_offset(base, (which * C + g) * tile + c * 8192),
                                            (64, CHUNK), "bf16", align=SWIZZLE_ALIGN)
                            lang.cp_async_bulk_tensor(dst, k.param(tmap),
                                                      [bh, n0 + g * 64, c * CHUNK], bar=kv_full)
                qp = qdo_pipe.producer()
                seq_pad = n_q * 64
                for j in lang.range(first, n_q, carry=[qp]):
                    slot = qp.acquire()
                    for stages, arr in ((lse_stages, "lse2"), (delta_stages, "delta")):
                        slot.cp_async_bulk(stages, k.param(arr), src_index=bh * seq_pad + j * 64,
                                           nbytes=ROW_BYTES)
                    for stages, tmap in ((q_stages, "tmap_q"), (do_stages, "tmap_do")):
                        for c in range(chunks):
                            slot.cp_async_bulk_tensor(stages, k.param(tmap),
                                                      [bh, j * 64, c * CHUNK], box_bytes=8192,
                                                      byte_offset_in_stage=c * 8192)
                    slot.commit(bytes=2 * tile + 2 * ROW_BYTES)
                qp.tail()
        with roles.consumers():
            wtid = tid % 128
            cw = roles.warpgroup - 1
            k_base = smem_address(base)
            w = _Warpgroup(cw, wtid, tid == WARPGROUP, n0 + cw * 64, k_base + cw * tile,
                           k_base + (C + cw) * tile, k_base, byte_offset(ds_base, cw * DS_BYTES),
                           smem_address(ds_base), dq_base, dq_jobs(cfg, cw), meet_ds, meet_dq)
            kv_full.wait(0, 0)
            qc = qdo_pipe.consumer()
            acc = llvm.mlir_zero(mma.acc_type(D))
            loop = lang.range(first, n_q, carry=[qc, acc, acc])
            for j in loop:
                _, dv, dk = loop.carry
                dv, dk = _step(k, cfg, qc, (q_stages, do_stages, lse_stages, delta_stages), w,
                               bh, j, seq_len, dv, dk)
                loop.next(qc, dv, dk)
            _, dv, dk = loop.results
            with if_then(w.issuer):
                lang.bulk_wait_group_read(0)       # the last reduction read its source
            scale = k.param("scale")
            dk_vals = [sm.fmul(x, scale) for x in mma.unpack(dk, D)]
            for vals, out in ((mma.unpack(dv, D), "dv"), (dk_vals, "dk")):
                _store_rows(k, D, vals, k.param(out), wtid, bh, w.n0, seq_len)
    k.config = cfg  # type: ignore[attr-defined]
    return k



def grid(batch_heads: int, seq: int, consumers: int = 1) -> int:
    """CTAs: one per (key block of 64 x consumers rows, batch x head)."""
    return -(-seq // (64 * consumers)) * batch_heads


#: Causal: batch x heads per group of :func:`_longest_first`.
CAUSAL_GROUP = 8


def _longest_first(bid, n_kv, bh_total, select=None):
    """(batch x head, key block) of CTA `bid`, causal: the CTAs go in groups
    of CAUSAL_GROUP batch x heads (their Q and dO shared through L2), within
    a group key block 0 of each first (the most query blocks), then key
    block 1, ...: the last CTAs to start are the shortest
    (longest-processing-time first), so the tail wave is short. Values
    (`select` a Python one for ints: the test checks the order is a
    permutation)."""
    if select is None:
        def select(c, a, b):
            return lang.select(c, a, lang.const(b))
    group = bid // (CAUSAL_GROUP * n_kv)
    g0 = group * CAUSAL_GROUP
    left = bh_total - g0
    size = select(left < CAUSAL_GROUP, left, CAUSAL_GROUP)
    r = bid - g0 * n_kv
    return g0 + r % size, r // size


def dq_jobs(cfg: BwdConfig, cw) -> list:
    """What consumer warpgroup `cw` (a value) contributes to dQ_j, as
    (half, key groups, dQ tile): the 64-column half of the head dim (an int
    or `cw`), the consumer warpgroups whose keys (and dS^T) it sums over,
    the shared dQ tile it writes (an int or `cw`)."""
    C, halves = cfg.consumers, cfg.head_dim // 64
    if C == 1:
        return [(h, [0], 0) for h in range(halves)]
    if halves == C:                                # FA3's split: one half each, all keys
        return [(cw, list(range(C)), 0)]
    return [(0, None, cw)]                         # head dim 64: each its own keys and tile


@dataclasses.dataclass
class _Warpgroup:
    """A consumer warpgroup's part: its index, thread, whether it issues
    the dQ reductions, first key, the shared addresses of its K and V tiles
    and of the first K tile, its dS^T buffer, the CTA's dS^T buffers (i32),
    the dQ tiles, its dQ jobs and the two meetings of every consumer."""
    cw: object
    wtid: object
    issuer: object
    n0: object
    k_addr: object
    v_addr: object
    k_base: object
    ds_ptr: object
    ds_base: object
    dq_base: object
    jobs: list
    meet_ds: object
    meet_dq: object


def _frag_rows(wtid):
    """The two accumulator rows (halves 0, 1) of this thread, relative."""
    warp, lane = wtid // 32, wtid % 32
    return [warp * 16 + lane // 4 + 8 * h for h in (0, 1)]


def _ss(acc_n, a_addr, b_addr, D):
    """A B^T of two 64-row K-major tiles (64-column chunks 64 x 128 bytes
    apart), m64n64, one group."""
    nvvm.WgmmaFenceAlignedOp()
    acc = llvm.mlir_zero(mma.acc_type(acc_n))
    for kk in range(D // 16):
        c, s = divmod(kk, 4)
        acc = mma.wgmma_ss(acc, wgmma_descriptor(a_addr + c * 8192) + 2 * s,
                           wgmma_descriptor(b_addr + c * 8192) + 2 * s, acc_n, zero=kk == 0)
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc


def _rs(acc, frags, b_addr, D):
    """acc += A B, A (64 x 64) from registers, B a 64-row tile MN-major."""
    nvvm.WgmmaFenceAlignedOp()
    for kk in range(4):
        acc = mma.wgmma_rs_tn(acc, frags[kk], mma.mn_major_descriptor(b_addr + kk * 2048, 8192), D)
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc


def _columns(stage_ptr, lane):
    """The 16 f32 of a query block's lse2 or delta (its stage in shared
    memory) at this thread's accumulator columns 8 i + 2 (l % 4) + e, as a
    list indexed 2 i + e: eight 8-byte loads, where they are used."""
    f32 = ir.F32Type.get()
    v2 = ir.VectorType.get([2], f32)
    out = []
    for i in range(8):
        v = llvm.LoadOp(v2, byte_offset(stage_ptr, (8 * i + (lane % 4) * 2) * 4), alignment=8).res
        for e in (0, 1):
            out.append(llvm.ExtractElementOp(v, lang.const(e)).res)
    return out


def _step(k, cfg, qc, stages, w, bh, j, seq_len, dv, dk):
    D, wtid, n0 = cfg.head_dim, w.wtid, w.n0
    lane = wtid % 32
    q0 = j * 64
    seq_pad = (seq_len + 63) // 64 * 64
    k_addr, v_addr = w.k_addr, w.v_addr
    q_stages, do_stages, lse_stages, delta_stages = stages
    slot = qc.wait()                               # Q_j, dO_j, lse2_j, delta_j landed
    q_addr = smem_address(slot.stage_ptr(q_stages))
    do_addr = smem_address(slot.stage_ptr(do_stages))
    s_acc = _ss(64, k_addr, q_addr, D)             # S^T = K Q^T
    dp_acc = _ss(64, v_addr, do_addr, D)           # dP^T = V dO^T
    nvvm.WgmmaWaitGroupSyncOp(1)                   # S^T done; dP^T may still run
    s = mma.unpack(s_acc, 64)
    lse2 = _columns(slot.stage_ptr(lse_stages), lane)
    rows = [n0 + r for r in _frag_rows(wtid)]     # the keys of row halves 0, 1
    ninf = sm.fconst(float("-inf"))
    scale_log2 = k.param("scale_log2")
    p = []
    for jj, x in enumerate(s):
        h, col = (jj // 2) % 2, 2 * (jj // 4) + jj % 2
        qrow = q0 + (lane % 4) * 2 + 8 * (jj // 4) + jj % 2
        keep = rows[h] < seq_len
        if cfg.causal:
            keep = keep & (rows[h] <= qrow)
        x = sm.fma(x, scale_log2, sm.fmul(lse2[col], sm.fconst(-1.0)))
        p.append(sm.exp2(lang.select(keep, lang.wrap(x), lang.wrap(ninf))))
    p_frags = mma.a_fragments(p)
    nvvm.WgmmaWaitGroupSyncOp(0)                   # dP^T done
    dp = mma.unpack(dp_acc, 64)
    delta = _columns(slot.stage_ptr(delta_stages), lane)
    ds = [sm.fmul(pj, llvm.FSubOp(dp[jj], delta[2 * (jj // 4) + jj % 2]).res)
          for jj, pj in enumerate(p)]
    ds_frags = mma.a_fragments(ds)
    _store_ds(ds, w.ds_ptr, wtid)
    lang.fence_proxy_async()                       # my dS writes, before the async proxy reads
    with if_then(w.issuer):
        lang.bulk_wait_group_read(0)               # block j-1's reduction read the dQ tiles
    w.meet_ds.sync()                               # every dS^T written, the dQ tiles free
    dv = _rs(dv, p_frags, do_addr, D)              # dV += P^T dO
    dk = _rs(dk, ds_frags, q_addr, D)              # dK += dS^T Q
    for i, (half, groups, buf) in enumerate(w.jobs):   # dQ_j = dS K, 64 columns at a time
        dq = _dq_half(w, cfg, half, groups)
        nvvm.WgmmaWaitGroupSyncOp(0)
        if i == 0:
            slot.release(pred=wtid == 0)           # Q_j, dO_j read by dV, dK (done)
        _store_dq(mma.unpack(dq, 64), byte_offset(w.dq_base, buf * cfg.dq_tile_bytes
                                                  + half * (HALF_FLOATS * 4)), wtid)
    lang.fence_proxy_async()                       # my dQ writes, before the reduction reads
    w.meet_dq.sync()                               # every dQ part written
    with if_then(w.issuer):
        row = (bh.to("i64") * seq_pad.to("i64") + q0.to("i64")) * D
        for t in range(cfg.dq_tiles):
            _reduce_add(k.element_ptr(k.param("dq_accum"), row, ir.F32Type.get()),
                        smem_address(w.dq_base) + t * cfg.dq_tile_bytes, cfg.dq_tile_bytes)
        lang.bulk_commit_group()
    return dv, dk


def _dq_half(w, cfg, half, groups):
    """dS K for the 64 columns `half` of the head dim over the keys of the
    consumer warpgroups `groups` (None: this warpgroup's own): m64n64k16,
    4 per 64 keys, both operands MN-major (dS^T keys x queries, K keys x
    head dim), one group."""
    tile = cfg.tile_bytes
    steps = [(w.ds_base + w.cw * DS_BYTES, w.k_addr)] if groups is None else \
        [(w.ds_base + g * DS_BYTES, w.k_base + g * tile) for g in groups]
    nvvm.WgmmaFenceAlignedOp()
    dq = llvm.mlir_zero(mma.acc_type(64))
    kk = 0
    for ds_addr, k_addr in steps:
        for s in range(4):
            dq = wgmma(dq, mma.mn_major_descriptor(ds_addr + s * 2048, 8192),
                       mma.mn_major_descriptor(k_addr + half * 8192 + s * 2048, 8192), 64,
                       accumulate=kk > 0, a_major="MN", b_major="MN")
            kk += 1
    nvvm.WgmmaGroupSyncAlignedOp()
    return dq


def _store_ds(ds, ds_ptr, wtid) -> None:
    """dS^T (keys x queries, queries contiguous) in bf16, 128-byte swizzled:
    the 16-byte chunk c of key row r at c ^ (r % 8) (r % 8 is lane / 4)."""
    lane = wtid % 32
    swz = lane // 4
    for h, r in enumerate(_frag_rows(wtid)):
        for i in range(8):
            v = mma.bf16x2(ds[4 * i + 2 * h], ds[4 * i + 2 * h + 1])
            offset = r * 128 + (swz ^ i) * 16 + (lane % 4) * 4
            llvm.StoreOp(v, byte_offset(ds_ptr, offset), alignment=4)


def _store_dq(vals, half_ptr, wtid) -> None:
    """A 64 x 64 dQ fragment into its half of a shared dQ tile in
    dq_accum's fragment order (backward_rows.py): values 4 i .. 4 i + 3 of
    thread t at floats 4 (128 i + t), one 16-byte store each (a warp's 32
    stores contiguous: no bank conflict)."""
    f32 = ir.F32Type.get()
    v4 = ir.VectorType.get([4], f32)
    for i in range(8):
        v = vector.from_elements(v4, vals[4 * i:4 * i + 4])
        llvm.StoreOp(v, byte_offset(half_ptr, (wtid + 128 * i) * 16), alignment=16)


def _reduce_add(dst, src_addr, nbytes: int) -> None:
    """``cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32``: the
    `nbytes` bytes of f32 at shared address `src_addr` added to global
    `dst` by the TMA unit, in the thread's open bulk group (inline PTX:
    MLIR 22 has the tensor form only; a copy, not a barrier)."""
    llvm.InlineAsmOp(None, [dst, src_addr, lang.const(nbytes)],
                     "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
                     "[$0], [$1], $2;", "l,r,r,~{memory}", has_side_effects=True)


def _store_rows(k, D, vals, out, wtid, bh, n0, seq_len) -> None:
    """bf16 rows n0 + row of [bh, seq, D] `out`, those below seq."""
    bf16 = ir.BF16Type.get()
    lane = wtid % 32
    for h, r in enumerate(_frag_rows(wtid)):
        with if_then(n0 + r < seq_len):
            row_ptr = k.element_ptr(out, (bh.to("i64") * seq_len.to("i64") + (n0 + r).to("i64"))
                                    * D, bf16)
            for jj in range(D // 8):
                v = mma.bf16x2(vals[4 * jj + 2 * h], vals[4 * jj + 2 * h + 1])
                llvm.StoreOp(v, k.element_ptr(row_ptr, 8 * jj + (lane % 4) * 2, bf16),
                             alignment=4)
