"""The consumer warpgroups of examples/attention.py: 64 query rows each, the
K and V rings' consumer sides, two schedules of the two GEMMs and the
softmax.

* ``serial`` (``Config.overlap=False``): per kv block j: wait K_j, S = Q K_j^T,
  ``wait_group 0``, release K_j, softmax, rescale O, wait V_j, O += P V_j,
  ``wait_group 0``, release V_j.
* ``overlap`` (FA3's intra-warpgroup overlap): block 0's S and softmax
  first; then per block j >= 1: wait K_j, issue S = Q K_j^T, wait V_{j-1},
  issue O += P_{j-1} V_{j-1}, ``wait_group 1`` (S is done; the PV group may
  still run), release K_j, softmax of S (it overlaps the PV GEMM on the
  tensor cores), ``wait_group 0``, release V_{j-1}, rescale O; the last PV
  after the loop. Every slot is released in the trip that waited on it (V
  lags K by one block: its consumer state is one behind, no slot is carried).

With ``turns`` (``Config.pingpong``) the GEMMs a warpgroup issues in one
step are issued in its turn: ``sync`` on its own named barrier, issue,
``arrive`` on the other warpgroup's (FA3's ``warp_scheduler_barrier``), so
the two warpgroups' GEMMs alternate at the tensor cores and one's softmax
runs under the other's GEMMs. With three consumer warpgroups the turn goes
round: g syncs on ``turns[g]`` and arrives on ``turns[(g + 1) % 3]``.
Warpgroup 0 gets the first turn (it arrives on its own barrier once); the
last warpgroup arrives on warpgroup 0's once more at the end, so every
phase of every turn barrier completes (256 threads: the one that syncs and
the one that hands over). A persistent kernel does both once per CTA,
around its tile loop, not per tile (see :func:`consumer`).
"""
from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import llvm, nvvm

from mbarrier_dialect.lang.wgmma import smem_address, wgmma_descriptor
from mbarrier_dialect import lang
from mbarrier_dialect.lang import if_else, if_then

from . import mma, softmax as sm

CHUNK = 64


@dataclasses.dataclass
class Rows:
    """What a consumer warpgroup's code needs: its rows and the kernel's."""
    k: object
    cfg: object
    k_stages: object
    v_stages: object
    turns: list | None
    cw: lang.Value
    wtid: lang.Value
    q0: lang.Value
    seq_len: lang.Value
    q_addr: lang.Value = None

    @property
    def lane(self):
        return self.wtid % 32

    @property
    def rows(self):
        """The two query rows this thread holds (row halves 0 and 1)."""
        warp = self.wtid // 32
        return [self.q0 + self.cw * 64 + warp * 16 + self.lane // 4 + 8 * h for h in (0, 1)]


def by_warpgroup(cw, n: int, fn):
    """`fn(g)` in consumer warpgroup g (0 .. n-1, `cw` a value): an if/else
    chain whose branches yield what `fn` returns (a list of values)."""
    def level(g):                                  # warpgroup g, else the ones after it
        if g == n - 1:
            return fn(g)
        side = if_else(cw == g)
        with side.then():
            side.yield_(*fn(g))
        with side.otherwise():
            side.yield_(*level(g + 1))
        return side.results
    return level(0)


def in_turn(r: Rows, fn):
    """`fn()` (it issues wgmmas and returns their accumulators, a list) in
    this warpgroup's turn, or plainly without turns: warpgroup g syncs on
    ``turns[g]``, issues, and hands the turn to ``turns[(g + 1) % n]``."""
    if r.turns is None:
        return fn()
    n = len(r.turns)

    def turn(g):
        r.turns[g].sync()
        accs = fn()
        r.turns[(g + 1) % n].arrive()
        return accs
    return by_warpgroup(r.cw, n, turn)


def issue_qk(r: Rows, k_addr) -> ir.Value:
    """S = Q K^T of this warpgroup's 64 rows: D/16 SS wgmmas, one group."""
    D, BM, BN = r.cfg.head_dim, r.cfg.block_m, r.cfg.block_n
    nvvm.WgmmaFenceAlignedOp()
    acc = llvm.mlir_zero(mma.acc_type(BN))
    for kk in range(D // 16):
        c, s = divmod(kk, 4)
        acc = mma.wgmma_ss(acc, wgmma_descriptor(r.q_addr + c * BM * 128) + 2 * s,
                           wgmma_descriptor(k_addr + c * BN * 128) + 2 * s, BN, zero=kk == 0)
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc


def issue_pv(r: Rows, o: ir.Value, frags, v_addr) -> ir.Value:
    """O += P V: BN/16 RS wgmmas (16 kv rows, 2048 bytes of V, per step), one group."""
    BN = r.cfg.block_n
    nvvm.WgmmaFenceAlignedOp()
    for kk in range(BN // 16):
        o = mma.wgmma_rs_tn(o, frags[kk], mma.mn_major_descriptor(v_addr + kk * 2048, BN * 128),
                            r.cfg.head_dim)
    nvvm.WgmmaGroupSyncAlignedOp()
    return o


def masked_softmax(r: Rows, s_acc, j, masked: bool, m, l):
    """The online-softmax step of block j (scores masked to -inf past seq
    and, causal, past the row): (P's A fragments, m, l, rescale)."""
    BN = r.cfg.block_n
    s = mma.unpack(s_acc, BN)
    if masked:
        col0 = j * BN
        limit = [r.seq_len - col0] * 2
        if r.cfg.causal:
            limit = [lang.select(row + 1 < r.seq_len, row + 1, r.seq_len) - col0
                     for row in r.rows]
        s = sm.mask_scores(s, limit, r.lane)
    p, m, l, rescale = sm.online_softmax(s, m, l, r.k.param("scale_log2"))
    return mma.a_fragments(p), m, l, rescale


def _stage_addr(slot, stages):
    return smem_address(slot.stage_ptr(stages))


def serial(r: Rows, kc, vc, n_full, n_blocks):
    """The serial schedule; returns (m, l, O)."""
    D = r.cfg.head_dim
    leader = r.wtid == 0

    def block(j, masked, m, l, o):
        ks = kc.wait()                             # K_j landed
        (s_acc,) = in_turn(r, lambda: [issue_qk(r, _stage_addr(ks, r.k_stages))])
        nvvm.WgmmaWaitGroupSyncOp(0)
        ks.release(pred=leader)
        frags, m, l, rescale = masked_softmax(r, s_acc, j, masked, m, l)
        o = mma.pack(sm.rescale_output(mma.unpack(o, D), rescale), o.type)
        vs = vc.wait()                             # V_j landed
        (o,) = in_turn(r, lambda: [issue_pv(r, o, frags, _stage_addr(vs, r.v_stages))])
        nvvm.WgmmaWaitGroupSyncOp(0)
        vs.release(pred=leader)
        return m, l, o

    ninf, zero = sm.fconst(float("-inf")), sm.fconst(0.0)
    state = [ninf, ninf, zero, zero, llvm.mlir_zero(mma.acc_type(D))]
    for lo, hi, masked in ((0, n_full, False), (n_full, n_blocks, True)):
        loop = lang.range(lo, hi, carry=[kc, vc, *state])
        for j in loop:
            _, _, m0, m1, l0, l1, o = loop.carry
            m, l, o = block(j, masked, [m0, m1], [l0, l1], o)
            loop.next(kc, vc, *m, *l, o)
        state = loop.results[2:]
    return state[0:2], state[2:4], state[4]


def overlap(r: Rows, kc, vc, n_full, n_blocks):
    """The intra-warpgroup overlap schedule; returns (m, l, O)."""
    D = r.cfg.head_dim
    leader = r.wtid == 0
    ninf, zero = sm.fconst(float("-inf")), sm.fconst(0.0)

    # Block 0: S, softmax (masked: the general mask keeps a full block whole).
    ks = kc.wait()
    (s_acc,) = in_turn(r, lambda: [issue_qk(r, _stage_addr(ks, r.k_stages))])
    nvvm.WgmmaWaitGroupSyncOp(0)
    ks.release(pred=leader)
    frags, m, l, _ = masked_softmax(r, s_acc, lang.const(0), True, [ninf, ninf], [zero, zero])
    o = llvm.mlir_zero(mma.acc_type(D))
    flat = [x for f in frags for x in f]           # P's b32 registers, carried

    def step(j, masked, m, l, o, flat):
        prev = [flat[4 * i:4 * i + 4] for i in range(len(flat) // 4)]
        ks = kc.wait()                             # K_j landed
        vs = vc.wait()                             # V_{j-1} landed

        def gemms():
            s_acc = issue_qk(r, _stage_addr(ks, r.k_stages))
            return [s_acc, issue_pv(r, o, prev, _stage_addr(vs, r.v_stages))]
        s_acc, o = in_turn(r, gemms)
        nvvm.WgmmaWaitGroupSyncOp(1)               # S_j done; P_{j-1} V_{j-1} may run
        ks.release(pred=leader)
        frags, m, l, rescale = masked_softmax(r, s_acc, j, masked, m, l)
        nvvm.WgmmaWaitGroupSyncOp(0)               # P_{j-1} V_{j-1} done
        vs.release(pred=leader)
        o = mma.pack(sm.rescale_output(mma.unpack(o, D), rescale), o.type)
        return m, l, o, [x for f in frags for x in f]

    one = lang.const(1)
    first_masked = lang.select(n_full > one, n_full, one)
    state = [*m, *l, o, *flat]
    for lo, hi, masked in ((one, n_full, False), (first_masked, n_blocks, True)):
        loop = lang.range(lo, hi, carry=[kc, vc, *state])
        for j in loop:
            c = loop.carry[2:]
            m, l, o, flat = step(j, masked, c[0:2], c[2:4], c[4], c[5:])
            loop.next(kc, vc, *m, *l, o, *flat)
        state = loop.results[2:]
    m, l, o, flat = state[0:2], state[2:4], state[4], state[5:]
    prev = [flat[4 * i:4 * i + 4] for i in range(len(flat) // 4)]
    vs = vc.wait()                                 # V of the last block
    (o,) = in_turn(r, lambda: [issue_pv(r, o, prev, _stage_addr(vs, r.v_stages))])
    nvvm.WgmmaWaitGroupSyncOp(0)
    vs.release(pred=leader)
    return m, l, o


def first_turn(turns, cw) -> None:
    """Warpgroup 0 takes the first turn: it arrives on its own barrier once."""
    with if_then(cw == 0):
        turns[0].arrive()


def last_turn(turns, cw) -> None:
    """The last warpgroup arrives on warpgroup 0's barrier once more:
    warpgroup 0's last phase completes."""
    with if_then(cw == len(turns) - 1):
        turns[0].arrive()


def consumer(r: Rows, q_smem, kc, vc, n_full, n_blocks, first: bool = True,
             turn_ends: bool = True):
    """One consumer warpgroup's tile, its Q landed in `q_smem`: the
    schedule and (`turn_ends`) the first and the balancing turns, so that
    every phase of every turn barrier completes within the tile; returns
    (m, l, O). A persistent kernel passes ``turn_ends=False`` and takes the
    first turn once before its tile loop and balances once after it: the
    one turn then goes round the warpgroups across tiles (FA3's
    ``mma_init`` once per CTA). Per tile, warpgroup 0's next first turn
    could meet the last warpgroup's balancing arrive on the same phase
    (two arrivals where a sync belongs): the hang an exact case found.
    `first=False` leaves out warpgroup 0's first turn: the hang FA3's
    ``mma_init`` prevents (every warpgroup waits for another's arrive),
    which the checker rejects; it is never launched."""
    r.q_addr = smem_address(q_smem) + r.cw * (64 * 128)   # this warpgroup's 64 rows of Q
    if r.turns is not None and first and turn_ends:
        first_turn(r.turns, r.cw)
    m, l, o = (overlap if r.cfg.overlap else serial)(r, kc, vc, n_full, n_blocks)
    if r.turns is not None and turn_ends:
        last_turn(r.turns, r.cw)
    return m, l, o
