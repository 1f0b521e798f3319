"""The GEMM example (examples/gemm.py) builds on a CPU-only machine: its PTX
has the tensor-core and TMA instructions of a Hopper GEMM; its ring is an
mbarrier.pipe, and in the 2x1 cluster form the copies multicast and the
release is the pipe's (restricted release fence + relaxed cluster arrivals
on both CTAs); the synchronization checker is silent on it. (The H200 runs are
bench/gemm/run.py, through tools/device/run.sh gemm.)"""
import json
import os
import re
import subprocess
import sys
import warnings

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
from examples import gemm  # noqa: E402
from bench.gemm.build import run5  # noqa: E402  (the run-5 kernel's defaults)
from examples.gemm_parts.shapes import check_shape  # noqa: E402
from mbarrier_dialect import manifest  # noqa: E402


def compiled(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a checker warning fails the test
        c = gemm.build(cfg=run5(**kw)).compile()
    assert c.warnings == []
    return c


@pytest.mark.parametrize("bn", [128, 256])
def test_one_cta_gemm_ptx(bn):
    c = compiled(bn=bn, cluster=1)
    ptx = c.ptx
    assert ".target sm_90a" in ptx
    # 4 k16 steps per 64-wide K tile, each one m64nBNk16 bf16 wgmma.
    assert len(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.bf16\.bf16", ptx)) == 4
    for needle in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                   "wgmma.wait_group.sync.aligned \t0", "setmaxnreg.dec.sync.aligned.u32 \t40",
                   "setmaxnreg.inc.sync.aligned.u32 \t232", "mbarrier.arrive.expect_tx.shared.b64",
                   "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                   ".extern .shared .align 1024 .b8", "cvt.rn.bf16x2.f32",
                   "mbarrier.arrive.shared.b64"):    # the pipe's local release
        assert needle in ptx, needle
    # One CTA: every barrier is local; no cluster forms.
    assert "mapa" not in ptx and "shared::cluster.b64" not in ptx and "multicast" not in ptx
    assert c.cubin  # ptxas accepted it for sm_90a


def test_cluster_gemm_is_the_pipe_with_multicast_and_the_restricted_release():
    c = compiled(bn=256, cluster=2)
    ptx = c.ptx
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16", ptx)) == 4
    assert "wgmma.wait_group.sync.aligned \t0" in ptx
    # B: half a tile per CTA, multicast along the row (both CTAs); A: local.
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\."
                          r"mbarrier::complete_tx::bytes\.multicast::cluster ", ptx)) == 1
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\."
                          r"mbarrier::complete_tx::bytes \[", ptx)) == 1
    # The pipe's release: one restricted release fence, then a relaxed
    # cluster-scope arrival on the empty barrier of each CTA of the row.
    assert ptx.count("fence.release.sync_restrict::shared::cta.cluster;") == 1
    assert ptx.count("mbarrier.arrive.relaxed.cluster.shared::cluster.b64") == 2
    assert ptx.count("mapa.shared::cluster.u64") == 2
    # Never release.cluster arrivals, never the local arrive form on a mapped
    # address: the only local arrival is the producer's expect_tx.
    assert "mbarrier.arrive.release.cluster" not in ptx
    assert not re.search(r"mbarrier\.arrive(\.release\.cta)?\.shared\.b64", ptx)
    assert "mbarrier.try_wait.parity.acquire.cluster.shared.b64" in ptx
    assert "barrier.cluster.arrive" in ptx and "barrier.cluster.wait" in ptx
    assert c.cubin


def test_pipe_counts_every_multicasting_consumer():
    ptx = compiled(bn=128, stages=4, cluster=2).ptx
    # The pipe derives them: full[s] 1 (the producer's arrive.expect_tx),
    # empty[s] 2 consumer warpgroups x 2 CTAs of the row = 4; 2 x 4 stages.
    inits = re.findall(r"mbarrier\.init\.shared\.b64 \t\[%r[d]?\d+(?:\+\d+)?\], %r\d+;", ptx)
    assert len(inits) == 8
    assert re.search(r"mov\.b32 \t%r\d+, 4;", ptx) and re.search(r"mov\.b32 \t%r\d+, 1;", ptx)


def test_unrolled_consumer_keeps_a_group_in_flight_within_a_trip():
    ptx = compiled(bn=256, cluster=2, unroll=2).ptx
    # 2 tiles per trip + the remainder loop's 1 tile.
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16", ptx)) == 12
    assert "wgmma.wait_group.sync.aligned \t1" in ptx and "wgmma.wait_group.sync.aligned \t0" in ptx
    assert ptx.count("fence.release.sync_restrict::shared::cta.cluster;") == 3


def test_default_config_is_the_kernel_the_schedule_picks_on_large_shapes():
    """Issue 32: Config()'s defaults gave 0.59-0.98 of the schedule's pick;
    now they are its pick on the large shapes (p1_256_ts)."""
    from examples.gemm_parts import schedule
    cfg = gemm.Config()
    assert cfg == gemm.Config(**schedule.CONFIG_KWARGS["p1_256_ts"])
    assert (cfg.bn, cfg.stages, cfg.cluster, cfg.persistent, cfg.epilogue, cfg.split_k) == \
        (256, 4, 1, True, "tma", 1)
    for shape in [(4096, 4096, 4096), (8192, 8192, 8192), (6144, 6144, 6144)]:
        assert schedule.config_for(*shape) == "p1_256_ts", shape


def test_config_rules():
    with pytest.raises(ValueError, match="227 KiB"):
        run5(bn=256, stages=5)
    with pytest.raises(ValueError, match="cluster"):
        run5(cluster=4)
    with pytest.raises(TypeError, match="release_sem"):
        run5(release_sem="relaxed")            # a pipe derives its release
    assert run5(bn=256, cluster=2).b_box_rows == 128
    assert run5(bn=128).grid(1000, 1000) == 8 * 8
    assert run5(bn=128, cluster=2).grid(1000, 1000) == 8 * 8
    assert run5(bn=128, cluster=2).grid(130, 130) == 2 * 2   # M tiles padded to the cluster


def test_case_is_exact_and_the_bench_builds(tmp_path):
    c = gemm.case(200, 328, 200, seed=1)
    a = manifest.from_bf16_bits(c.inputs["a"]).astype("float64")
    b = manifest.from_bf16_bits(c.inputs["b"]).astype("float64")
    assert (a @ b.T == c.expect["c"]).all()   # integer-valued: f32 is exact
    out = tmp_path / "gemm"
    proc = subprocess.run([sys.executable, "-m", "bench.gemm.build", str(out),
                           "--configs", "c1_128,c2_256"], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    configs = json.loads((out / "manifest.json").read_text())["kernels"]
    assert [c["name"] for c in configs] == ["c1_128", "c2_256"]
    assert all(c["checker_warnings"] == 0 for c in configs)
    exact = json.loads((out / "exact" / "manifest.json").read_text())["kernels"]
    assert all(k["shared_mem"] > 48 * 1024 for k in exact)


def test_device_runner_needs_no_mlir():
    """run.py imports nothing of MLIR or this package (it loads runtime.py by path)."""
    src = open(os.path.join(ROOT, "bench", "gemm", "run.py")).read()
    assert "import mlir" not in src and "from mlir" not in src and "mbarrier_dialect import" not in src
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gemm", "run.py"), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "TFLOP/s" in proc.stdout


def test_lagging_release_carries_the_slot_one_trip():
    """Config(lag=True): each stage is released one trip late, after
    `wgmma.wait_group 1` (the slot carried through the loop, which the
    verifier accepts only when it is released exactly once); the last one
    after the loop and `wait_group 0`."""
    compiled_lag = compiled(bn=256, cluster=2, lag=True)
    ptx = compiled_lag.ptx
    assert compiled_lag.warnings == []
    assert "wgmma.wait_group.sync.aligned \t1;" in ptx
    assert "wgmma.wait_group.sync.aligned \t0;" in ptx
    # one release in the loop, one after it: each the restricted fence and
    # a relaxed arrival on both CTAs of the row
    assert ptx.count("fence.release.sync_restrict::shared::cta.cluster;") == 2
    assert ptx.count("mbarrier.arrive.relaxed.cluster.shared::cluster.b64") == 4
    with pytest.raises(ValueError, match="takes unroll=1"):
        run5(lag=True, unroll=2)


@pytest.mark.parametrize("cluster", [1, 2])
def test_persistent_kernel_walks_tiles_with_the_ring_carried(cluster):
    """Config(persistent=True): one scf.for over the tiles (%ctaid.x to the
    tile count by %nctaid.x) around each role's K loop, the pipe's states
    carried through it, the producer's tail once after it; the checker is
    silent and ptxas accepts it with no spill."""
    cfg = run5(bn=256, cluster=cluster, persistent=True)
    k = gemm.build(cfg=cfg)
    text = str(k.module)
    assert text.count("gpu.grid_dim  x") + text.count("gpu.grid_dim x") >= 2  # the tile stride
    assert text.count("mbarrier.pipe.tail") == 1
    c = compiled(bn=256, cluster=cluster, persistent=True)
    assert "%nctaid.x" in c.ptx
    assert c.cubin
    assert cfg.name.endswith("_p_bf16")


def test_persistent_grid_is_one_cta_per_sm_in_whole_clusters():
    p1 = run5(bn=256, cluster=1, persistent=True)
    p2 = run5(bn=256, cluster=2, persistent=True)
    assert p1.grid(8192, 8192) == 132 and p2.grid(8192, 8192) == 132
    assert p2.grid(8192, 8192, sms=133) == 132          # whole clusters
    assert p1.grid(300, 300) == p1.tiles(300, 300) == 3 * 2   # never more CTAs than tiles
    assert run5(bn=256).grid(8192, 8192) == 64 * 32   # a CTA per tile
    with pytest.raises(TypeError, match="persistent is a bool"):
        run5(persistent=1)


def test_odd_n_stores_each_value_on_its_own():
    """An odd N makes a row start at an odd element: the paired 4-byte store
    would be misaligned (it faulted with `misaligned address` before), so the
    epilogue branches on N's parity and stores single values there."""
    ptx = compiled(bn=128, cluster=1).ptx
    assert re.search(r"st\.global\.b32", ptx)            # the pair, N even
    assert re.search(r"st\.global\.b16", ptx)            # one bf16, N odd
    ptx32 = compiled(bn=128, cluster=1, out="f32").ptx
    assert re.search(r"st\.global\.v2\.f32|st\.global\.v2\.b32|st\.global\.b64", ptx32)
    assert re.search(r"st\.global\.f32|st\.global\.b32", ptx32)


def test_shapes_the_tma_maps_cannot_take_are_refused_naming_the_rule():
    check_shape(1, 1, 8)
    check_shape(777, 1233, 520)
    with pytest.raises(ValueError, match=r"K \* 2 = 14 bytes, must be a multiple of 16 "
                                         r"\(the TMA globalStrides rule\)"):
        check_shape(64, 64, 7)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="must be a positive int"):
            check_shape(bad, 64, 64)


def test_tma_store_epilogue_stages_through_swizzled_shared_memory():
    """Config(epilogue="tma"): per 64-column chunk a warpgroup writes its
    values into a 128-byte swizzled staging buffer, fences them for the
    async proxy, meets, and thread 0 TMA-stores the 64x64 box and commits
    it; a buffer is written again only after wait_group.read 1 (two per
    warpgroup), and wait_group.read 0 precedes the exit. An N that is not
    a multiple of 8 (C's rows not 16-byte aligned) takes the direct path at
    run time. The checker is silent on it."""
    c = compiled(bn=256, cluster=1, persistent=True, epilogue="tma")
    ptx = c.ptx
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 256 // 64
    assert ptx.count("cp.async.bulk.commit_group") == 256 // 64
    assert "cp.async.bulk.wait_group.read \t1" in ptx or "cp.async.bulk.wait_group.read 1" in ptx
    assert "cp.async.bulk.wait_group.read \t0" in ptx or "cp.async.bulk.wait_group.read 0" in ptx
    assert "fence.proxy.async.shared::cta" in ptx
    assert "st.global.b32" in ptx                         # the N % 8 != 0 fallback
    assert c.cubin
    cfg = run5(bn=256, persistent=True, epilogue="tma")
    assert cfg.name == "gemm_128x256x64_s4_c2_p_ts_bf16"
    assert cfg.smem_bytes + cfg.static_smem_bytes <= 227 * 1024
    with pytest.raises(ValueError, match="epilogue='tma' takes out='bf16'"):
        run5(epilogue="tma", out="f32")
    with pytest.raises(ValueError, match="more than 227 KiB"):
        run5(bn=256, stages=5, cluster=1, epilogue="tma")
