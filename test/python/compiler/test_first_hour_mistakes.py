"""Issue 33, a new user's first hour (the second pass): the mistakes a
newcomer made following README.md and docs/lang.md, each a located message
at the user's own line that says what to do, not a traceback from inside
MLIR or a message about something else."""
import inspect
import os
import re

import pytest

from mbarrier_dialect import CompileError, compile, lang
from mbarrier_dialect.cli import main as cli_main
from mbarrier_dialect.lang import Kernel, MBarrier, if_then

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HERE = re.escape(__file__)
PINGPONG = os.path.join(ROOT, "examples", "remote_pingpong.mlir")


def _here() -> int:
    """The line of the caller."""
    return inspect.currentframe().f_back.f_lineno


# -- k.prologue() after the barriers are used ------------------------------------

def _pipe_kernel(prologue_first: bool):
    with Kernel("late_prologue", block=64, params=[("src", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = lang.Pipeline(pool, 2, kind="tma")
        tiles = pool.alloc((2, 256), "i32", align=128)
        pool.commit()
        if prologue_first:
            k.prologue(pipes=[pipe])
        with if_then(k.is_thread(0)):
            producer = pipe.producer()
            for t in lang.range(4, carry=[producer]):
                slot = producer.acquire(); used = _here()  # noqa: E702
                slot.cp_async_bulk(tiles, k.param("src"), src_index=t * 256)
                slot.commit(bytes=1024)
            producer.tail()
        if not prologue_first:
            k.prologue(pipes=[pipe]); late = _here()  # noqa: E702
        with if_then(k.thread_rank() >= 32):
            consumer = pipe.consumer()
            for _ in lang.range(4, carry=[consumer]):
                slot = consumer.wait()
                tiles.load((slot.index, k.thread_rank() - 32))
                k.sync_warp()
                slot.release(pred=k.thread_rank() == 32)
    return k, (None if prologue_first else (late, used))


def test_a_prologue_after_the_pipe_is_used_is_located_at_both_lines():
    """Before: the checker's "deadlock: a cycle in the wait-for graph"
    at the acquire, which says nothing of the order."""
    with pytest.raises(ValueError) as err:
        _pipe_kernel(prologue_first=False)
    text = str(err.value)
    src = inspect.getsource(_pipe_kernel).splitlines()
    first = inspect.getsourcelines(_pipe_kernel)[1]
    late = first + next(i for i, s in enumerate(src) if "late = _here()" in s)
    used = first + next(i for i, s in enumerate(src) if "used = _here()" in s)
    assert re.fullmatch(
        rf"{HERE}:{late}:13: error: k\.prologue\(\) initializes this Pipeline after it is used: "
        r"the ops built before the prologue run before its inits, on barriers not yet "
        r"initialized; call k\.prologue\(\) right after pool\.commit\(\), before any barrier "
        rf"or pipe operation\n{HERE}:{used}:\d+: note: first used here", text), text


def test_the_same_kernel_with_its_prologue_first_compiles():
    k, _ = _pipe_kernel(prologue_first=True)
    assert "cp.async.bulk" in k.compile().ptx


def test_a_group_used_through_a_remote_view_before_the_prologue():
    with pytest.raises(ValueError, match=r"initializes this MBarrier after it is used") as err:
        with Kernel("late_group", block=32, cluster=2) as k:
            pool = k.smem_pool()
            got = MBarrier(pool, 1)
            pool.commit()
            with if_then(k.cluster_rank() == 0):
                got.remote_view(1).arrive(0); line = _here()  # noqa: E702
            k.prologue({got: 1})
    assert re.search(rf"\n{HERE}:{line}:\d+: note: first used here$", str(err.value))
    # A manual init before the prologue of another group is no use of it.
    with Kernel("two_groups", block=32) as k:
        pool = k.smem_pool()
        a, b = MBarrier(pool, 1), MBarrier(pool, 1)
        pool.commit()
        with if_then(k.is_thread(0)):
            a.init(32)
        k.prologue({b: 32})
        a.arrive(0)
        b.arrive(0)


# -- a misspelt parameter, tx_count on a plain MBarrier ------------------------------

def test_a_misspelt_parameter_lists_the_kernels_parameters():
    with pytest.raises(KeyError) as err:
        with Kernel("typo", block=32, params=[("out", "ptr"), ("n", "i32")]) as k:
            line = _here() + 1
            k.store(1, k.param("ouy"), 0)
    assert str(err.value) == (
        f"{__file__}:{line}:24: error: kernel 'typo' has no parameter 'ouy' (its parameters: "
        "'out', 'n'; Kernel(..., params=[(name, kind), ...]) declares them)")


def test_tx_count_on_an_mbarrier_says_to_make_a_tmabar():
    """Before: ``MBarrier.arrive() got an unexpected keyword argument``."""
    with pytest.raises(TypeError) as err:
        with Kernel("tx", block=32) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1)
            pool.commit()
            k.prologue({bar: 1})
            line = _here() + 1
            bar.arrive(0, tx_count=16)
    assert str(err.value) == (
        f"{__file__}:{line}:13: error: tx_count (expect_tx: the bytes a copy brings) is an "
        "arrival on a TMABar; this group is an MBarrier: make it with TMABar(pool, depth) for "
        "barriers that bulk and TMA copies complete on")


# -- mbarrier-compile and compile() on the wrong file ---------------------------------

def test_mbarrier_compile_on_a_python_file_says_to_run_it(capsys):
    """Before: ``first_kernel.py:1:1: error: empty operation name is invalid``."""
    src = os.path.join(ROOT, "examples", "first_kernel.py")
    assert cli_main([src, "--emit", "ptx"]) == 1
    assert capsys.readouterr().err == (
        f"mbarrier-compile: error: {src} is a Python program, not IR text: run it with python "
        "(a lang kernel compiles itself with k.compile()); compile() and mbarrier-compile "
        "read MLIR text (.mlir)\n")
    with pytest.raises(CompileError, match=r"is a Python program, not IR text"):
        compile(src)


def test_a_misspelt_path_names_the_file_that_is_there(capsys):
    typo = PINGPONG.replace("pingpong", "pingpog")
    assert cli_main([typo, "--emit", "ptx"]) == 1
    assert capsys.readouterr().err == (
        f"mbarrier-compile: error: cannot read {typo}: No such file or directory; "
        f"did you mean {PINGPONG}?\n")
    with pytest.raises(CompileError) as err:
        compile(typo)
    assert str(err.value).endswith(f"; did you mean {PINGPONG}?")
    # Nothing close: no guess.
    far = os.path.join(ROOT, "examples", "zzzz.mlir")
    assert cli_main([far, "--emit", "ptx"]) == 1
    assert capsys.readouterr().err.endswith(": No such file or directory\n")
