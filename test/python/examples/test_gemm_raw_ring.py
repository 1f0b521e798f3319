"""bench/gemm/raw_ring.py: the first version's hand-written ring of the
GEMM, kept for the measured comparison with the pipe; gemm.build builds it
from a RawConfig, whose rules refuse the pipe's own knobs."""
import re
import warnings

import pytest

from examples import gemm
from bench.gemm.raw_ring import RawConfig


def compiled(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a checker warning fails the test
        c = gemm.build(cfg=RawConfig(**kw)).compile()
    assert c.warnings == []
    return c


@pytest.mark.parametrize("sem", [None, "relaxed"])
def test_raw_ring_is_kept_for_the_comparison(sem):
    """The first version's hand-written ring (thread r of each
    consumer warpgroup arrives on CTA r's empty barrier, `sem` the order)."""
    ptx = compiled(bn=256, cluster=2, release_sem=sem).ptx
    form = "release" if sem is None else "relaxed"
    arrives = re.findall(rf"@%p\d+ mbarrier\.arrive\.{form}\.cluster\.shared::cluster\.b64 _, "
                         r"\[%rd\d+\];", ptx)
    assert len(arrives) == 2, arrives
    assert "fence.release.sync_restrict" not in ptx
    assert "wgmma.wait_group.sync.aligned \t1" in ptx


def test_elected_full_wait():
    """full_wait="elect": one acquire.cluster waiter per consumer warpgroup,
    then the warpgroup's named barrier (128 threads), the dialect's
    `mbarrier.named_barrier` (LLVM merges the two warpgroups' ids into a
    register), not a `bar.sync` written as inline PTX."""
    ptx = compiled(bn=256, cluster=2, release_sem="relaxed", full_wait="elect").ptx
    assert re.search(r"bar\.sync\s+%r\d+, 128;", ptx)
    assert "mbarrier.try_wait.parity.acquire.cluster.shared.b64" in ptx
    inline = re.findall(r"begin inline asm(.*?)// end inline asm", ptx, re.S)
    assert not any("bar.sync" in block or "barrier.sync" in block for block in inline)


def test_the_raw_config_refuses_the_pipe_knobs():
    assert RawConfig(bn=256, cluster=1).name == "gemm_128x256x64_s4_bf16_raw"
    assert RawConfig().barriers == "raw" and gemm.Config().barriers == "pipe"
    with pytest.raises(ValueError, match="unroll and lag are knobs of the pipe ring"):
        RawConfig(unroll=2)
    with pytest.raises(ValueError, match="persistent is a knob of the pipe ring"):
        RawConfig(persistent=True)
    with pytest.raises(ValueError, match="pingpong"):
        RawConfig(consumers="pingpong", bm=64, persistent=False)
    with pytest.raises(ValueError, match="full_wait is 'all' or 'elect'"):
        RawConfig(full_wait="some")
    with pytest.raises(ValueError, match="a_major and b_major are knobs of the pipe ring"):
        RawConfig(b_major="MN")
