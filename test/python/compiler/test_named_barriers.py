"""lang's named barriers (issue 22): the ops they build, the C++ verifier's
rules raised as ValueError at the user's line, a bool as a predicate a
TypeError, the PTX they become (bar.sync / bar.arrive / bar.red with the
ids the compiler assigns), and the GPU suite's ping-pong: its correct form
compiles silently, its hang variant is a checker error."""
import re
import warnings

import pytest

from mbarrier_dialect import CompileError
from mbarrier_dialect.lang import Kernel, const, if_then

import named_pingpong  # noqa: E402


def test_ops_and_ptx():
    with Kernel("nb", block=256, params=[("out", "ptr")]) as k:
        a = k.named_barrier(threads=256)
        epi = k.named_barrier(threads=128, id=1)
        a.arrive()
        a.sync()
        tid = k.thread_rank()
        with if_then(tid < 128):
            n = epi.red_popc(tid % 2 == 0)
            every = epi.red_and(tid >= 0)
            some = epi.red_or(tid == 3)
            k.store(n + every.to("i32") + some.to("i32"), k.param("out"), tid)
    text = str(k.module)
    assert "mbarrier.named_barrier @" in text and " id 1" in text
    assert "mbarrier.bar_sync @" in text and "threads 256" in text
    assert "mbarrier.bar_red popc" in text and "mbarrier.bar_red and" in text
    ptx = k.compile().ptx
    # The allocated id: 0 is reserved and 1 is the explicit one, so 2.
    assert re.search(r"bar\.arrive\s+2, 256;", ptx)
    assert re.search(r"bar\.sync\s+2, 256;", ptx)
    assert re.search(r"bar\.red\.popc\.u32\s+%r\d+, 1, 128, %p\d+;", ptx)
    assert re.search(r"bar\.red\.and\.pred\s+%p\d+, 1, 128, %p\d+;", ptx)
    assert re.search(r"bar\.red\.or\.pred\s+%p\d+, 1, 128, %p\d+;", ptx)


def test_bool_predicate_is_a_type_error():
    with pytest.raises(TypeError, match="predicate"):
        with Kernel("nb_bool", block=64) as k:
            k.named_barrier(threads=64).red_popc(True)


def test_bool_thread_count_is_a_type_error():
    with pytest.raises(TypeError, match="threads must be an int"):
        with Kernel("nb_bool_count", block=64) as k:
            k.named_barrier(threads=True)


def test_verifier_rules_at_the_users_line():
    with pytest.raises(ValueError, match=r"test_named_barriers.py:\d+.*thread count must be a "
                                         r"non-zero multiple of the warp size \(32\), got 100"):
        with Kernel("nb_count", block=128) as k:
            k.named_barrier(threads=100).sync()
    with pytest.raises(ValueError, match="thread count 256 is more than the 128 threads"):
        with Kernel("nb_block", block=128) as k:
            k.named_barrier(threads=256).arrive()
    with pytest.raises(ValueError, match="id' failed to satisfy constraint"):
        with Kernel("nb_id", block=128) as k:
            k.named_barrier(threads=128, id=16)


def test_predicate_constant_is_spelled_const():
    with Kernel("nb_const", block=64, params=[("out", "ptr")]) as k:
        n = k.named_barrier(threads=64).red_popc(const(True))
        k.store(n, k.param("out"), 0)
    assert "bar.red.popc.u32" in k.compile().ptx


def test_pingpong_compiles_silently():
    # A checker warning would be a SyncCheckWarning: made an error here.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptx = named_pingpong.build(8).compile().ptx
    assert "bar.sync" in ptx and "bar.arrive" in ptx


def test_pingpong_hang_variant_is_a_checker_error():
    with pytest.raises(CompileError, match="deadlock: a cycle in the wait-for graph"):
        named_pingpong.build(8, first_turn=False).compile()

