"""examples/gemm.py's wave-aware schedule and ping-pong consumers (issue 23):
128x192 tiles, the per-shape chooser (gemm_parts/schedule.py) the benchmark's
"auto" schedule uses, and Config(consumers="pingpong"): two consumer
warpgroups on alternate tiles, in turn through an ordered sequence, the
shared ring skipped with pipe.advance. They build on a CPU-only machine, the
checker silent on them; ptxas keeps their wgmmas unserialized and
unspilled. (The H200 runs: BENCHMARKS.md, bench/results/gemm/run12c_interleave.json.)"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from mbarrier_dialect.runtime import debug_wait_sites

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
from examples import gemm
from bench.gemm import build as bench_build
from bench.gemm.build import run5
from examples.gemm_parts import schedule
from test_gemm import compiled  # build + compile, a checker warning fails

PP = dict(cluster=1, persistent=True, consumers="pingpong")


def ptxas_info(ptx: str, tmp_path) -> str:
    """ptxas -v's report on `ptx` (skips where ptxas is not installed)."""
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not installed")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    proc = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_192_wide_tiles_store_three_boxes_per_warpgroup(tmp_path):
    """bn=192: one m64n192k16 wgmma per warpgroup and k16 step (96 f32 of
    accumulator a thread), B's TMA box 192 x 64, 4 stages of 40 KiB plus
    the staging buffers within 227 KiB, the epilogue three 64x64 TMA stores."""
    cfg = run5(bn=192, cluster=1, persistent=True, epilogue="tma")
    assert cfg.b_box_rows == 192 and cfg.b_bytes == 192 * 128
    assert cfg.smem_bytes + cfg.static_smem_bytes <= 227 * 1024
    c = compiled(bn=192, cluster=1, persistent=True, epilogue="tma")
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n192k16\.f32\.bf16\.bf16", c.ptx)) == 4
    assert c.ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 3
    info = ptxas_info(c.ptx, tmp_path)
    assert "0 bytes spill stores" in info and "C7520" not in info


def test_pingpong_takes_turns_and_skips_the_other_warpgroups_k_blocks(tmp_path):
    """consumers="pingpong", 64x256: each warpgroup a whole tile (one
    m64n256 accumulator), its K loop released one block late (wait_group 1,
    the last after wait_group 0); the turns (mainloop, epilogue) from a
    2-stage, 2-group ordered sequence of 128 arrivals; the consumer state
    started one tile in for warpgroup 1 and advanced past the other's tile
    every trip; one pipe release per stage (consumers = 1)."""
    cfg = run5(bm=64, bn=256, epilogue="tma", group_m=32, **PP)
    ir_text = str(gemm.build(cfg=cfg).module)
    assert "!mbarrier.ordered_seq<2, 2, arrivals = 128>" in ir_text
    assert ir_text.count("mbarrier.seq.wait") == 2 and ir_text.count("mbarrier.seq.arrive") == 2
    assert ir_text.count("mbarrier.pipe.advance") == 2
    assert "!mbarrier.pipe<4, tma>" in ir_text and "consumers = 2" not in ir_text  # 1: the default
    c = compiled(bm=64, bn=256, epilogue="tma", group_m=32, **PP)
    ptx = c.ptx
    # the first K block peeled, the rest in the loop: 4 k16 steps each
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16", ptx)) == 8
    assert "wgmma.wait_group.sync.aligned \t1;" in ptx and "wgmma.wait_group.sync.aligned \t0;" in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 4
    assert cfg.name == "gemm_64x256x64_s4_p_pp_ts_bf16" and cfg.a_bytes == 64 * 128
    info = ptxas_info(ptx, tmp_path)
    assert "0 bytes spill stores" in info
    assert "C7520" not in info      # ptxas does not serialize the wgmmas


def test_pingpong_in_a_cluster_multicasts_b_and_releases_to_both_ctas():
    c = compiled(bm=64, bn=256, epilogue="tma", group_m=32,
                 **{**PP, "cluster": 2})
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\."
                          r"mbarrier::complete_tx::bytes\.multicast::cluster ", c.ptx)) == 1
    assert "fence.release.sync_restrict::shared::cta.cluster;" in c.ptx


def test_pingpong_128_rows_holds_two_accumulators(tmp_path):
    """bm=128, bn=128: two m64n128 wgmmas per k16 step, one per 64 rows of
    A (8 KiB apart), one commit group per K block. A tile's first k16 step
    overwrites the accumulators (scale-d 0: the inline wgmma's predicate
    from `setp.ne.b32 p, 0, 0`), so no zeros are written between the
    wgmma.fence and the wgmmas, which made ptxas serialize them (C7520:
    half the speed on the H200, run 12a)."""
    c = compiled(bm=128, bn=128, stages=6, epilogue="tma", **PP)
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16", c.ptx)) == 16
    assert c.ptx.count("wgmma.commit_group.sync.aligned") == 2
    assert c.ptx.count("setp.ne.b32 p, 0, 0;") == 2      # the first step of each accumulator
    info = ptxas_info(c.ptx, tmp_path)
    assert "0 bytes spill stores" in info and "C7520" not in info


@pytest.mark.parametrize("bm,bn,stages", [(64, 256, 4), (128, 128, 6)])
def test_pingpong_compiles_with_debug_waits(bm, bn, stages):
    """Every wait of it bounded (debug waits): the pipe's and the ordered
    sequence's waits trap with their line instead of hanging."""
    k = gemm.build(cfg=run5(bm=bm, bn=bn, stages=stages, epilogue="tma", **PP))
    c = k.compile(debug_waits=1_000_000_000)
    assert c.cubin and "trap;" in c.ptx
    # each wait's site (the module's site table, bytes in the PTX) names its line
    table = debug_wait_sites(c.ptx)
    sites = [os.path.basename(where.rsplit(":", 2)[0]) for where, _, _ in table]
    # the two turns (the sequence's 2 x 2 barriers) and the two K-block waits
    assert sites.count("pingpong.py") == 4, sites
    assert sum(name == "group<4>" and "pingpong.py" in where + defined
               for where, name, defined in table) == 2


def test_pingpong_refusals():
    with pytest.raises(ValueError, match="takes persistent=True"):
        run5(bm=64, consumers="pingpong", cluster=1)
    with pytest.raises(ValueError, match="takes persistent=True"):
        run5(bm=64, consumers="pingpong", persistent=True, lag=True)
    with pytest.raises(ValueError, match="64 or 128 rows"):
        run5(bm=96, **PP)
    with pytest.raises(ValueError, match="at most 64 x 256 or 128 x 128"):
        run5(bm=128, bn=256, **PP)
    with pytest.raises(ValueError, match="cooperative consumers split a 128-row tile"):
        run5(bm=64)
    with pytest.raises(ValueError, match="'cooperative' or 'pingpong'"):
        run5(consumers="both")
    with pytest.raises(ValueError, match="more than 227 KiB"):
        run5(bm=64, bn=256, stages=5, epilogue="tma", **PP)


def test_wave_efficiency_picks_the_tile_per_shape():
    """The chooser's rule on the issue's shapes: 3072^3 is 288 tiles of
    128x256 (2.18 waves of 132: 73% busy), 384 of 128x192 (2.91 waves: 97%);
    4096 x 11008 is 10.4 waves of 128x256 but 20.8 of 128x128."""
    assert schedule.tiles(3072, 3072, 128, 256) == 288
    assert schedule.wave_efficiency(288, 132) == pytest.approx(288 / 396)
    assert schedule.wave_efficiency(384, 132) == pytest.approx(384 / 396)
    expect = {(3072, 3072, 3072): "p1_192_ts", (8192, 8192, 8192): "p1_256_ts",
              (4096, 4096, 4096): "p1_256_ts", (2048, 2048, 2048): "pp_128x128_ts",
              (4096, 11008, 4096): "pp_128x128_ts", (4096, 14336, 4096): "p1_256_ts",
              (4096, 4096, 11008): "p1_256_ts",
              # K <= 2048: the ping-pong consumers hide the epilogue
              (8192, 8192, 1024): "pp_128x128_ts", (16384, 16384, 1024): "pp_128x128_ts",
              (8192, 8192, 1536): "pp_128x128_ts", (8192, 8192, 2048): "pp_128x128_ts",
              # 64-row tiles where M or N is small: twice the CTAs
              # (a small N: the same tiles with the operands swapped, "_t")
              (64, 8192, 8192): "pp_64x64_ts", (8192, 64, 8192): "pp_64x64_ts_t",
              (128, 8192, 8192): "pp_64x128_ts", (8192, 128, 8192): "pp_64x128_ts_t",
              (1024, 1024, 1024): "pp_64x128_ts",
              # M <= 256 at long K: the cooperative 128 x 128 tiles (run 4)
              (256, 8192, 8192): "p1_128_ts", (8192, 256, 8192): "p1_128_ts_t"}
    for shape, name in expect.items():
        assert schedule.config_for(*shape) == name, shape
    # only the built ones: without p1_192_ts, 3072^3 takes 128x128 (4.36 waves)
    assert schedule.config_for(3072, 3072, 3072, available={"p1_256_ts", "p1_128_ts"}) == "p1_128_ts"
    # the small-K entry only up to K = 2048
    assert schedule.config_for(8192, 8192, 4096, available={"p1_256_ts", "pp_128x128_ts"}) \
        == "p1_256_ts"
    with pytest.raises(ValueError, match="no schedule candidate is available"):
        schedule.config_for(64, 64, 64, available={"c1_256"})


def test_every_schedule_candidate_is_a_built_config_with_its_tile():
    for c in schedule.CANDIDATES:
        cfg = bench_build.CONFIGS[c.name]
        assert (cfg.bm, cfg.bn) == (c.bm, c.bn), c.name
        assert cfg.persistent, c.name
        # split-K stores f32 partials directly (its reduction writes C)
        assert cfg.split_k == c.split and cfg.epilogue == ("direct" if c.split > 1 else "tma"), \
            c.name


def test_exact_manifest_has_the_new_configs():
    names = {name for name, *_ in bench_build.EXACT}
    assert {"p1_192_ts", "pp_64x256_ts", "pp_128x128_ts", "pp_64x256", "pp2_64x256_ts"} <= names
    for name, M, N, K in bench_build.EXACT:
        cfg = bench_build.CONFIGS[name]
        if cfg.consumers == "pingpong":   # more tiles than the exact run's 4 CTAs
            assert cfg.tiles(M, N) > 4


def test_run_py_loads_the_schedule_without_mlir():
    """run.py's "auto" loads gemm_parts/schedule.py by path (MLIR-free: the
    GPU machine has no MLIR)."""
    src = open(os.path.join(ROOT, "examples", "gemm_parts", "schedule.py")).read()
    assert "mlir" not in src and "mbarrier_dialect" not in src
    code = ("import importlib.util, sys; sys.argv=['run.py']; "
            "spec = importlib.util.spec_from_file_location('run', %r); "
            "run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run); "
            "s = run.load_schedule(); print(s.config_for(3072, 3072, 3072))"
            % os.path.join(ROOT, "bench", "gemm", "run.py"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "p1_192_ts"
