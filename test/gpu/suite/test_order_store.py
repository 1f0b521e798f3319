"""Issue 22's GPU suite kernels (order_store_kernels.py), on the build side:
they build into the full suite with their data checks, the checker is
silent on them, their PTX has the forms they test, and the hang variant
(a missing hand-on in the ordered sequence) is the checker's error at
compile time. The lead runs the suite on the H200 (run_manifest.py)."""
import os
import re

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
import build_suite  # noqa: E402
import order_store_kernels as K  # noqa: E402

from mbarrier_dialect import CompileError  # noqa: E402


@pytest.fixture(scope="module")
def built():
    return {name: builder() for name, builder in
            (("seq_pingpong", K.seq_pingpong), ("tma_store_roundtrip", K.tma_store_roundtrip))}


@pytest.mark.parametrize("name", ["seq_pingpong", "tma_store_roundtrip"])
def test_the_checker_is_silent(built, name):
    assert built[name].kernel.compile().warnings == []


def test_seq_pingpong_forms_and_expectation(built):
    case = built["seq_pingpong"]
    ptx = case.kernel.compile().ptx
    movs = dict(re.findall(r"mov\.b32\s+(%r\d+), (\d+);", ptx))
    inits = re.findall(r"mbarrier\.init\.shared\.b64\s+\[[^]]+\], (%r\d+|\d+);", ptx)
    assert [int(movs.get(c, c)) for c in inits] == [128] * 4
    assert ptx.count("mbarrier.try_wait.parity") >= 2
    # The expectation depends on the order of the turns: group 1 first at a
    # stage would give another array.
    expect = case.expect["out"]
    assert expect.shape == (2, 128) and len(np.unique(expect)) > 100
    swapped = np.zeros((2, 128), np.int64)
    lane = np.arange(128)
    for t in range(500):
        for stage, (m, a, b) in K.MAPS.items():
            for g in (1, 0):
                swapped[stage] = (swapped[stage] * m + g * a + t * b + lane) % 2**32
    assert (((swapped + 2**31) % 2**32 - 2**31).astype(np.int32) != expect).any()


def test_tma_store_roundtrip_forms_and_expectation(built):
    case = built["tma_store_roundtrip"]
    ptx = case.kernel.compile().ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx          # the load
    store = re.search(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.(tile\.)?bulk_group", ptx)
    assert store
    assert ptx.rindex("fence.proxy.async.shared::cta;", 0, store.start()) > \
        ptx.rindex("bar.sync", 0, store.start())                           # the issuer's fence
    assert ptx.index("cp.async.bulk.commit_group;", store.end()) == \
        ptx.index("cp.async", store.end())                                  # right after
    waits = re.findall(r"cp\.async\.bulk\.wait_group\.read\s+(\d+);", ptx)
    assert waits == ["1", "0"]                                              # acquire, tail
    src = case.inputs["src"]
    assert (case.expect["dst"] == src * 2 + 1).all() and (src != 0).any()


def test_the_hang_variant_is_the_checkers_error():
    """Group 1 hands the mainloop stage on under group 0's predicate: none
    of its threads arrives, and group 0's second mainloop wait would hang.
    The same specialized code with the right predicate is silent, so the
    error is the missing hand-on's."""
    assert K.seq_pingpong(2, specialized=True).kernel.compile().warnings == []
    case = K.seq_pingpong(2, specialized=True, missing_arrive=True)
    with pytest.raises(CompileError, match=r"order_store_kernels\.py:\d+.*waits for a phase that "
                                           r"never completes: the barrier receives 0 arrival"):
        case.kernel.compile()


def test_registered_in_the_full_and_sanitize_suites(tmp_path):
    names = [b().kernel.name for b in K.SUITES["full"]]
    assert names == ["seq_pingpong", "tma_store_roundtrip"]
    written = build_suite.build(str(tmp_path), "sanitize")
    built_names = {k["name"] for k in written["kernels"]}
    assert {"seq_pingpong", "tma_store_roundtrip"} <= built_names


def test_the_hang_variant_is_located_at_run_time_with_debug_waits():
    """Built anyway (checker off) with debug waits: every seq.wait lowers to
    an mbarrier.wait, bounded, whose message names its line in
    order_store_kernels.py, then traps (what the lead's GPU run shows)."""
    case = K.seq_pingpong(2, specialized=True, missing_arrive=True)
    ptx = case.kernel.compile(check_sync=False, debug_waits=200_000_000).ptx
    from mbarrier_dialect.runtime import debug_wait_sites
    formats = [where for where, _, _ in debug_wait_sites(ptx)]
    line = next(i for i, l in enumerate(open(K.__file__), 1) if "turn = me.wait()" in l)
    assert any(f"order_store_kernels.py:{line}:" in f for f in formats), formats[:2]
    assert "trap;" in ptx and "%globaltimer" in ptx
