"""The attention example (examples/attention.py) builds on a CPU-only
machine: its PTX has the SS wgmma of S = Q K^T, the RS wgmma with a
transposed (MN-major) V of O += P V, the TMA loads of Q (a transaction
barrier) and of K and V (two mbarrier.pipe rings); in the ping-pong form the
named barriers; the synchronization checker is silent on every form, and
they compile with debug waits. Bad configurations and shapes are refused
with ValueError before any CUDA call. (The H200 runs are bench/attention/.)"""
import os
import re
import warnings

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
from examples import attention  # noqa: E402
from examples.attention_parts.shapes import check_shape, flops, grid  # noqa: E402


def compiled(debug_waits=0, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a checker warning fails the test
        c = attention.build(cfg=attention.Config(**kw)).compile(debug_waits=debug_waits)
    assert c.warnings == []
    return c


def test_serial_schedule_issues_each_gemm_in_both_loops():
    ptx = compiled(head_dim=128, overlap=False).ptx
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+"
                          r"\{[^}]*\},\s*\{", ptx)) == 2 * 8            # RS: P from registers
    assert "wgmma.wait_group.sync.aligned \t1" not in ptx                 # nothing overlaps


def test_overlap_waits_for_s_while_the_pv_gemm_runs():
    assert "wgmma.wait_group.sync.aligned \t1" in compiled(head_dim=128).ptx


@pytest.mark.parametrize("head_dim,causal", [(128, False), (64, True)])
def test_attention_ptx_has_both_wgmma_forms_and_the_pipes(head_dim, causal):
    c = compiled(head_dim=head_dim, causal=causal)
    ptx = c.ptx
    assert ".target sm_90a" in ptx
    # S = Q K^T: head_dim / 16 SS steps of m64n128k16 (both K-major).
    ss = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{[^}]*\},\s*%rd",
                    ptx)
    # Issued at three places by the overlapped schedule: block 0, the
    # unmasked loop and the masked loop (the PV GEMM: both loops and the last).
    assert len(ss) == 3 * (head_dim // 16)
    # O += P V: 128 / 16 RS steps of m64n{head_dim}k16, A from registers, trans-b 1.
    rs = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{head_dim}k16\.f32\.bf16\.bf16"
                    r"\s+\{[^}]*\},\s*\{[^}]*\},\s*%rd\d+,\s*p,\s*1,\s*1,\s*1;", ptx)
    assert len(rs) == 3 * 8
    for needle in ("setmaxnreg.dec.sync.aligned.u32 \t24", "setmaxnreg.inc.sync.aligned.u32 \t240",
                   "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                   "mbarrier.arrive.expect_tx.shared.b64", "ex2.approx.ftz.f32",
                   "shfl.sync.bfly.b32", "cvt.rn.bf16x2.f32", "wgmma.wait_group.sync.aligned \t0"):
        assert needle in ptx, needle
    # Q once + per block K and V; one CTA: no cluster forms.
    assert ptx.count("mbarrier.init.shared") == 1 + 2 * 2 * 2
    assert "mapa" not in ptx and "multicast" not in ptx
    assert c.cubin


def test_pingpong_orders_the_consumers_with_named_barriers():
    c = compiled(head_dim=128, pingpong=True)
    # Two named barriers of 256 threads (both consumer warpgroups), ids 1
    # and 2 assigned by the compiler (0 is the CTA barrier); LLVM merges the
    # two warpgroups' branches, so the PTX may select the id in a register.
    assert re.search(r"bar\.sync\s+\S+,\s*256;", c.ptx)
    assert re.search(r"bar\.arrive\s+\S+,\s*256;", c.ptx)
    assert c.cubin


@pytest.mark.parametrize("block_m,head_dim", [(128, 128), (192, 64)])
def test_pingpong_without_the_first_turn_is_the_checkers_deadlock(block_m, head_dim):
    from mbarrier_dialect import CompileError
    k = attention.build(cfg=attention.Config(head_dim=head_dim, block_m=block_m, pingpong=True),
                        first_turn=False)
    with pytest.raises(CompileError, match="deadlock: a cycle in the wait-for graph"):
        k.compile()


def test_three_consumer_warpgroups_at_head_dim_64():
    c = compiled(head_dim=64, block_m=192)
    assert "setmaxnreg.inc.sync.aligned.u32 \t160" in c.ptx
    assert c.cubin


def test_three_consumer_warpgroups_take_turns_round_the_ring():
    k = attention.build(cfg=attention.Config(head_dim=64, block_m=192, pingpong=True))
    text = str(k.module)
    assert text.count("mbarrier.named_barrier @") == 3    # one turn barrier per consumer
    c = compiled(head_dim=64, block_m=192, pingpong=True, causal=True)
    assert re.search(r"bar\.sync\s+\S+,\s*256;", c.ptx) and c.cubin


def test_tma_store_epilogue_reuses_the_q_tile():
    c = compiled(head_dim=128, causal=True, pingpong=True, epilogue="tma")
    ptx = c.ptx
    # two 64-column boxes per warpgroup, one bulk group, drained before exit
    assert ptx.count("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group") == 2
    assert "fence.proxy.async.shared::cta" in ptx and "cp.async.bulk.commit_group" in ptx
    assert "cp.async.bulk.wait_group.read \t0" in ptx
    assert re.search(r"bar\.sync\s+\S+,\s*128;", ptx)         # the warpgroup meets
    with pytest.raises(ValueError, match="epilogue is 'direct' or 'tma'"):
        attention.Config(epilogue="smem")


def test_debug_waits_bound_every_wait():
    from mbarrier_dialect.runtime import debug_wait_sites
    c = compiled(head_dim=128, causal=True, debug_waits=1_000_000_000)
    sites = debug_wait_sites(c.ptx)
    # one site per bounded wait, each a line of the kernel's source; no call
    # in the kernel (ptxas would serialize its wgmma)
    assert "trap;" in c.ptx and len(sites) == c.ptx.count("atom.global.add.u64") >= 4
    assert all(".py:" in where for where, _, _ in sites)
    assert "call" not in c.ptx


@pytest.mark.parametrize("causal,epilogue", [(False, "direct"), (True, "tma")])
def test_head_dim_256_is_fa3s_128x80_tile_checker_silent(causal, epilogue):
    cfg = dict(head_dim=256, block_n=80, pingpong=True, causal=causal, epilogue=epilogue)
    assert attention.Config(**cfg).smem_bytes <= 227 * 1024
    ptx = compiled(**cfg).ptx         # compiled(): a checker warning fails the test
    # S = Q K^T: 256 / 16 SS steps of m64n80k16 at three places (block 0, both loops)
    ss = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n80k16\.f32\.bf16\.bf16\s", ptx)
    assert len(ss) == 3 * 16
    # O += P V: 80 / 16 RS steps of m64n256k16 (the whole head dim in one wgmma), at three places
    rs = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16"
                    r"\s+\{[^}]*\},\s*\{[^}]*\},\s*%rd\d+,\s*p,\s*1,\s*1,\s*1;", ptx)
    assert len(rs) == 3 * 5
    assert "setmaxnreg.inc.sync.aligned.u32 \t240" in ptx
    assert "m64n128k16" not in ptx


@pytest.mark.parametrize("kw,message", [
    (dict(head_dim=96), "head_dim is 64, 128 or 256"),
    (dict(head_dim=512), "head_dim is 64, 128 or 256"),
    # head dim 256: 3 stages of 80-row K and V, or 128-row blocks, exceed 227 KiB;
    # the persistent Q ring of two 64 KiB tiles too
    (dict(head_dim=256, block_n=80, stages=3), "more than 227 KiB"),
    (dict(head_dim=256, block_n=128), "more than 227 KiB"),
    (dict(head_dim=256, block_n=80, persistent=True), "more than 227 KiB"),
    # three consumer warpgroups: 160 registers each, O alone is 128
    (dict(head_dim=256, block_m=192, block_n=32, stages=1), "do not fit"),
    (dict(block_m=64), "block_m is 128 or 192"),
    (dict(block_n=100), "block_n is a multiple of 16"),
    (dict(stages=0), "stages is 1 to 4"),
    (dict(stages=4), "more than 227 KiB"),
    (dict(head_dim=64, block_m=192, block_n=256, stages=1), "do not fit"),
])
def test_bad_configs_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        attention.Config(**kw)


def test_a_bool_where_a_number_belongs_and_a_number_where_a_bool_does():
    with pytest.raises(ValueError):
        attention.Config(stages=True)
    with pytest.raises(TypeError):
        attention.Config(causal=1)


@pytest.mark.parametrize("args,message", [
    ((1, 16, 0, 128, 128), "seq must be a positive int"),
    ((1, 16, 1024, 64, 128), "built for head dim 128"),
    ((True, 16, 1024, 128, 128), "batch must be a positive int"),
    ((1, 2 ** 31, 1, 128, 128), "below 2\\^31"),
])
def test_bad_shapes_are_refused_before_any_cuda_call(args, message):
    with pytest.raises(ValueError, match=message):
        check_shape(*args)


def test_launch_geometry():
    assert grid(4, 16, 1000, 128) == 8 * 64
    assert grid(1, 1, 1, 192) == 1
    assert flops(1, 1, 1024, 128, True) == flops(1, 1, 1024, 128, False) / 2


def test_exact_data_is_one_hot_attention():
    import numpy as np
    q, k, v, o, lse = attention.exact_data(1, 2, 130, 64, True, seed=3)
    s = np.einsum("bhid,bhjd->bhij", q, k)
    assert (s.max(-1) == 128).all()
    causal = np.tril(np.ones((130, 130), bool))
    t = np.where(causal, s, -np.inf).argmax(-1)
    assert (np.take_along_axis(v, t[..., None], 2) == o).all()
    assert (np.where(causal, s, 0) <= 128).all() and ((s == 128).sum(-1) == 1).all()


@pytest.mark.parametrize("kw", [dict(head_dim=64, causal=True, pingpong=True, epilogue="tma"),
                                dict(head_dim=128, pingpong=True)])
def test_persistent_walks_the_tiles_with_q_through_a_ring_of_two(kw):
    """Persistent: the tile loop strides by %nctaid.x; Q comes through a
    third pipe of two stages (its full barriers' expect_tx and its empty
    barriers' waits in the producer), so the smem holds two Q tiles; the
    checker is silent and debug waits compile."""
    c = compiled(persistent=True, **kw)
    plain = compiled(**kw)
    assert "%nctaid.x" in c.ptx and "%nctaid.x" not in plain.ptx
    # mbarrier.init: Q's 2 x (full, empty) more than the TMABar's one
    assert c.ptx.count("mbarrier.init.shared.b64") == plain.ptx.count("mbarrier.init.shared.b64") + 3
    cfg = attention.Config(persistent=True, **kw)
    assert cfg.smem_bytes == attention.Config(**kw).smem_bytes + cfg.q_bytes
    assert cfg.name.endswith("_persist")
    assert "trap;" in compiled(persistent=True, debug_waits=1_000_000, **kw).ptx


def test_persistent_takes_batch_heads_and_a_grid_of_at_most_the_sms():
    k = attention.build(4, 16, 1000, attention.Config(head_dim=64, persistent=True), sms=132)
    assert k.grid[0] == 132
    names = [n for n, _ in k.params]
    assert names[names.index("seq") + 1] == "batch_heads"
    plain = attention.build(4, 16, 1000, attention.Config(head_dim=64))
    assert "batch_heads" not in [n for n, _ in plain.params] and plain.grid[0] == 8 * 64
    assert grid(4, 16, 1000, 128, sms=132) == 132 and grid(1, 1, 300, 128, sms=132) == 3
    k = attention.build(1, 1, 300, attention.Config(head_dim=64, persistent=True), sms=132)
    assert k.grid[0] == 3


def test_config_for_is_the_schedule_table_and_matches_a_built_row():
    import dataclasses
    from examples.attention_parts import schedule
    for d in (64, 128, 256):
        for causal in (False, True):
            for seq in (1024, 16384):
                cfg = attention.config_for(d, seq, causal)
                assert (cfg.head_dim, cfg.causal) == (d, causal)
                assert schedule.matches(schedule.choose(d, seq, causal), dataclasses.asdict(cfg))
    # matches() fills the fields a choice leaves out with Config's defaults
    defaults = dataclasses.asdict(attention.Config())
    for key in ("block_m", "block_n", "stages", "pingpong", "epilogue", "persistent", "overlap"):
        assert schedule.matches({key: defaults[key]}, {})
    assert not schedule.matches({"pingpong": True}, {})
    with pytest.raises(ValueError, match="head_dim is 64, 128 or 256"):
        attention.config_for(96, 1024, False)
    with pytest.raises(TypeError):
        attention.config_for(64, 1024, 1)


def _arrive_loop_depths(k) -> list:
    """The scf.for nesting depth of every mbarrier.bar_arrive (the turn
    hand-overs and the first/balancing turns) in the kernel's IR."""
    depths = []

    def walk(op, depth):
        name = op.operation.name
        if name == "mbarrier.bar_arrive":
            depths.append(depth)
        for region in op.operation.regions:
            for block in region.blocks:
                for inner in block.operations:
                    walk(inner, depth + (name == "scf.for"))
    walk(k.module.operation, 0)
    return depths


@pytest.mark.parametrize("block_m,head_dim", [(128, 64), (192, 64)])
def test_persistent_takes_the_first_turn_once_per_cta_not_per_tile(block_m, head_dim):
    """The first turn and the balancing arrive are outside the tile loop
    (depth 0), every hand-over inside it: one turn goes round across tiles.
    Per tile, warpgroup 0's next first turn could land in the phase of the
    last warpgroup's balancing arrive (two arrivals, no sync): the exact
    case exact_d64_m192_causal_pp_p_2x1x450 hung on the H200 that way."""
    cfg = attention.Config(head_dim=head_dim, block_m=block_m, causal=True, pingpong=True)
    persistent = _arrive_loop_depths(attention.build(cfg=cfg, persistent=True))
    assert persistent.count(0) == 2 and min(d for d in persistent if d) >= 1
    # the plain kernel: block 0's and the last PV GEMM's hand-overs are outside any loop too
    assert _arrive_loop_depths(attention.build(cfg=cfg)).count(0) > 2


def test_every_choice_of_config_for_is_a_configuration_the_benchmark_builds():
    """run.py names the built configuration config_for picks on each row
    (``default``): each choice, at every benchmarked seq, is in build.py."""
    import dataclasses
    from bench.attention import build as bench_build
    from examples.attention_parts import schedule
    built = {n: dataclasses.asdict(c) for n, c in bench_build.CONFIGS.items()}
    for d in (64, 128):
        for causal in (False, True):
            for seq in (1000, 1024, 2048, 4096, 8192, 16384):
                pick = schedule.choose(d, seq, causal)
                assert [n for n, c in built.items() if schedule.matches(pick, c)], (d, seq, causal)
    assert attention.config_for(64, 1024, True).persistent
    assert attention.config_for(64, 16384, True).block_m == 192


def test_the_benchmarks_table_names_a_timed_config_on_every_row_of_the_final_run():
    """bench/attention/table.py (BENCHMARKS.md's table) finds, on every row
    of the committed final run, the configuration config_for picks among
    those the run timed (a choice the run did not time would print nan)."""
    from bench.attention import table
    data, cfgs = table.load(os.path.join(ROOT, "bench", "results", "attention", "6_final",
                                         "attn.json"))
    assert len(data["bench"]) == 20
    for row in data["bench"]:
        assert table.chosen(row, cfgs) in row["tflops"], row["seq"]
    assert "| 64 | yes | 1024 |" in table.table(data, cfgs)
