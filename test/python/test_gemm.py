"""The GEMM example (examples/gemm.py) builds on a CPU-only machine: its PTX
has the tensor-core and TMA instructions of a Hopper GEMM and, in the 2x1
cluster form, multicast copies and cluster-form releases on the peers'
barriers; the synchronization checker is silent on it. (The H200 runs are
bench/gemm/: run.py, device_run.sh.)"""
import json
import os
import re
import subprocess
import sys
import warnings

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "examples"))
import gemm  # noqa: E402


def compiled(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a checker warning fails the test
        c = gemm.build(cfg=gemm.Config(**kw)).compile()
    assert c.warnings == []
    return c


@pytest.mark.parametrize("bn", [128, 256])
def test_one_cta_gemm_ptx(bn):
    c = compiled(bn=bn, cluster=1, release_sem=None)
    ptx = c.ptx
    assert ".target sm_90a" in ptx
    # 4 k16 steps per 64-wide K tile, each one m64nBNk16 bf16 wgmma.
    assert len(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.bf16\.bf16", ptx)) == 4
    for needle in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                   "wgmma.wait_group.sync.aligned \t1", "setmaxnreg.dec.sync.aligned.u32 \t40",
                   "setmaxnreg.inc.sync.aligned.u32 \t232", "mbarrier.arrive.expect_tx.shared.b64",
                   "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                   ".extern .shared .align 1024 .b8", "cvt.rn.bf16x2.f32"):
        assert needle in ptx, needle
    # One CTA: every barrier is local; no cluster forms.
    assert "mapa" not in ptx and "shared::cluster.b64" not in ptx and "multicast" not in ptx
    assert c.cubin  # ptxas accepted it for sm_90a


@pytest.mark.parametrize("sem", [None, "relaxed"])
def test_cluster_gemm_multicasts_and_releases_every_peer(sem):
    c = compiled(bn=256, cluster=2, release_sem=sem)
    ptx = c.ptx
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16", ptx)) == 4
    # B: half a tile per CTA, multicast into both CTAs (mask 0b11); A: local.
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\."
                          r"mbarrier::complete_tx::bytes\.multicast::cluster ", ptx)) == 1
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\."
                          r"mbarrier::complete_tx::bytes \[", ptx)) == 1
    # The consumer release: mapa + the predicated cluster-form arrive (thread
    # r of each consumer warpgroup on CTA r's empty barrier), in the loop and
    # after it.
    form = "release" if sem is None else "relaxed"
    arrives = re.findall(rf"@%p\d+ mbarrier\.arrive\.{form}\.cluster\.shared::cluster\.b64 _, \[%rd\d+\];", ptx)
    assert len(arrives) == 2, arrives
    assert "mapa.shared::cluster.u64" in ptx
    # Never the local arrive form on a mapped address: the only local
    # arrival is the producer's expect_tx on its own full barrier.
    assert not re.search(r"mbarrier\.arrive(\.release\.cta)?\.shared\.b64", ptx)
    assert "mbarrier.try_wait.parity.acquire.cluster.shared.b64" in ptx
    assert "barrier.cluster.arrive" in ptx and "barrier.cluster.wait" in ptx
    assert c.cubin


def test_empty_barrier_counts_every_multicasting_consumer():
    ptx = compiled(bn=128, cluster=2, release_sem=None).ptx
    # empty[s] is initialized with 2 consumer warpgroups x 2 CTAs = 4 arrivals
    # and full[s] with 1 (the producer's arrive.expect_tx): 2 x 4 stages.
    inits = re.findall(r"mbarrier\.init\.shared\.b64 \t\[%r[d]?\d+(?:\+\d+)?\], %r\d+;", ptx)
    assert len(inits) == 8
    assert re.search(r"mov\.b32 \t%r\d+, 4;", ptx) and re.search(r"mov\.b32 \t%r\d+, 1;", ptx)


def test_default_config_is_the_cluster_multicast_form():
    cfg = gemm.Config()
    assert (cfg.bn, cfg.stages, cfg.cluster, cfg.release_sem) == (256, 4, 2, "relaxed")


def test_config_rules():
    with pytest.raises(ValueError, match="227 KiB"):
        gemm.Config(bn=256, stages=5)
    with pytest.raises(ValueError, match="cluster"):
        gemm.Config(cluster=4)
    assert gemm.Config(bn=256, cluster=2).b_box_rows == 128
    assert gemm.Config(bn=128).grid(1000, 1000) == 8 * 8
    assert gemm.Config(bn=128, cluster=2).grid(1000, 1000) == 8 * 8
    assert gemm.Config(bn=128, cluster=2).grid(130, 130) == 2 * 2   # M tiles padded to the cluster


def test_case_is_exact_and_the_bench_builds(tmp_path):
    c = gemm.case(200, 328, 200, seed=1)
    a = gemm.from_bf16_bits(c.inputs["a"]).astype("float64")
    b = gemm.from_bf16_bits(c.inputs["b"]).astype("float64")
    assert (a @ b.T == c.expect["c"]).all()   # integer-valued: f32 is exact
    out = tmp_path / "gemm"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gemm", "build.py"), str(out),
                           "--configs", "c1_128,c2_256"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    configs = json.loads((out / "gemm.json").read_text())["configs"]
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


def test_elected_full_wait():
    """full_wait="elect": one acquire.cluster waiter per consumer warpgroup,
    then bar.sync of the warpgroup (named barrier 1 or 2, 128 threads)."""
    ptx = compiled(bn=256, cluster=2, release_sem="relaxed", full_wait="elect").ptx
    assert re.search(r"bar\.sync %r\d+, 128;", ptx)
    assert "mbarrier.try_wait.parity.acquire.cluster.shared.b64" in ptx
