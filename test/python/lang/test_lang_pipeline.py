"""lang.Pipeline: the handles build the mbarrier.pipe ops, sides are carried
through loops, and the verifier's rules reach the user as located errors."""
import importlib.util
import inspect
import os
import re

import pytest

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, Pipeline, if_then

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _example():
    spec = importlib.util.spec_from_file_location(
        "tma_pipeline", os.path.join(ROOT, "examples", "tma_pipeline.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ring(depth=2, body=None, **pipe_args):
    """A 1-CTA ring kernel; `body(k, pipe, tiles)` builds the sides."""
    with Kernel("ring", block=64, params=[("tmap", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, depth, **pipe_args)
        tiles = pool.alloc((depth, 256), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])
        body(k, pipe, tiles)
    return k


@pytest.mark.parametrize("cluster", [1, 2, 4])
def test_example_compiles_with_the_forms_of_its_cluster(cluster):
    compiled = _example().build(cluster, depth=4, warps=2, tiles=8).compile()
    ptx = compiled.ptx
    assert compiled.warnings == []                       # the checker is silent
    assert ptx.count("mbarrier.init.shared.b64") == 8
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    if cluster == 1:
        assert "multicast::cluster" not in ptx and "mapa" not in ptx
        assert "mbarrier.arrive.shared.b64" in ptx       # the local release
    else:
        assert ".multicast::cluster" in ptx
        assert "fence.release.sync_restrict::shared::cta.cluster;" in ptx
        assert ptx.count("mbarrier.arrive.relaxed.cluster.shared::cluster.b64") == cluster
        assert ptx.count("mapa.shared::cluster") == cluster
        # never the local arrive form on a mapped address, never release.cluster
        assert "mbarrier.arrive.shared.b64" not in ptx
        assert "mbarrier.arrive.release.cluster" not in ptx


def test_a_side_is_carried_and_advances_by_itself():
    def body(k, pipe, tiles):
        producer = pipe.producer()
        first = producer.state
        for _ in lang.range(8, carry=[producer]):
            slot = producer.acquire()
            slot.commit(bytes=0)
        assert producer.state is not first                   # the loop's result
        producer.tail()
    k = _ring(body=body)
    text = str(k.module)
    # The loop carries the state; the tail takes the loop's result.
    loop = re.search(r"(%\w+) = scf\.for .*-> \(!mbarrier\.pipe_state<producer>\)", text)
    assert loop, text
    assert re.search(r"mbarrier\.pipe\.tail %\w+, " + re.escape(loop.group(1)) + " ", text), text


def test_a_slot_never_committed_is_located_at_the_acquire():
    def body(k, pipe, tiles):
        producer = pipe.producer()
        body.line = inspect.currentframe().f_lineno + 1
        producer.acquire()
    with pytest.raises(ValueError) as err:
        _ring(body=body)
    message = str(err.value)
    assert f":{body.line}:" in message
    assert "makes a slot that is never committed" in message


def test_bytes_that_do_not_match_the_copies_are_rejected_at_the_commit():
    def body(k, pipe, tiles):
        producer = pipe.producer()
        slot = producer.acquire()
        slot.cp_async_bulk_tensor(tiles, k.param("tmap"), [0, 0], box_bytes=1024)
        body.line = inspect.currentframe().f_lineno + 1
        slot.commit(bytes=2048)
    with pytest.raises(ValueError) as err:
        _ring(body=body)
    assert f":{body.line}:" in str(err.value)
    assert "expects 2048 bytes on the full barrier, but the copies into this slot land " \
           "1024 bytes" in str(err.value)


def test_a_bool_is_not_a_ready_flag_nor_a_predicate():
    def body(k, pipe, tiles):
        consumer = pipe.consumer()
        with pytest.raises(TypeError):
            consumer.wait(ready=True)
        slot = consumer.wait()
        with pytest.raises(TypeError):
            slot.release(pred=False)
        slot.release()
    _ring(body=body)


def test_the_type_rules_are_the_cpp_verifiers():
    with Kernel("bad", block=32, cluster=(1, 2)) as k:
        pool = k.smem_pool()
        with pytest.raises(ValueError, match="multicast = row needs more than one CTA per row"):
            Pipeline(pool, 2, multicast="row")
        with pytest.raises(ValueError, match="a pipe needs at least one stage"):
            Pipeline(pool, 0)
        with pytest.raises(ValueError, match="kind is one of"):
            Pipeline(pool, 2, kind="bulk")
        with pytest.raises(TypeError):
            Pipeline(pool, True)


def test_a_copy_multicast_the_pipe_does_not_release_is_rejected():
    with Kernel("mc", block=64, cluster=(2, 2), params=[("tmap", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, 2, multicast="row")
        tiles = pool.alloc((2, 256), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])
        producer = pipe.producer()
        slot = producer.acquire()
        with pytest.raises(ValueError, match="multicasts along the column, which the pipe does not"):
            slot.cp_async_bulk_tensor(tiles, k.param("tmap"), [0, 0], box_bytes=512,
                                      multicast="col")
        slot.commit(bytes=1024)
        producer.tail()
        k.epilogue()
    assert "cluster = [2, 2], multicast = row" in str(k.module)


def test_prologue_needs_something_to_initialize():
    with Kernel("empty", block=32) as k:
        with pytest.raises(TypeError, match="prologue"):
            k.prologue()


def test_stage_buffers_have_the_stage_first():
    def body(k, pipe, tiles):
        consumer = pipe.consumer()
        slot = consumer.wait()
        wrong = k.smem_pool()
        buf = wrong.alloc((3, 16), "i32")
        wrong.commit()
        with pytest.raises(ValueError, match="first dimension is the stage"):
            slot.stage_ptr(buf)
        slot.release()
    _ring(body=body)


def _lagging_consumer(pipe, release_last: bool) -> int:
    """A consumer that releases each stage one trip later, carrying the slot;
    the last one after the loop when `release_last`. Returns the line of the
    first wait."""
    consumer = pipe.consumer()
    line = inspect.currentframe().f_lineno + 1
    first = consumer.wait()
    loop = lang.range(1, 8, carry=[consumer, first])
    for _ in loop:
        _, prev = loop.carry
        slot = consumer.wait()
        prev.release()
        loop.next(consumer, slot)
    if release_last:
        first.release()                        # the handle now holds the last slot
    return line


def test_a_slot_is_carried_once_through_a_loop():
    """CUTLASS's lagging release: each stage released one trip later (after
    the next wait), the last one after the loop."""
    text = str(_ring(body=lambda k, pipe, tiles: _lagging_consumer(pipe, True)).module)
    loop = re.search(r"(%\w+):2 = scf\.for .*iter_args\(%\w+ = %next\w*, (%\w+) = %slot\w*\) -> "
                     r"\(!mbarrier.pipe_state<consumer>, !mbarrier.slot<consumer>\)", text)
    assert loop, text
    assert f"mbarrier.pipe.release %3[{loop.group(2)}]" in text          # in the body
    assert f"mbarrier.pipe.release %3[{loop.group(1)}#1]" in text        # after the loop


def test_a_carried_slot_must_be_released_after_the_loop():
    lines = []
    with pytest.raises(ValueError) as err:
        _ring(body=lambda k, pipe, tiles: lines.append(_lagging_consumer(pipe, False)))
    assert f":{lines[0]}:" in str(err.value)
    assert "(carried out of the scf.for as result #1) is never released" in str(err.value)


@pytest.mark.parametrize("read_before", [False, True])
def test_a_stage_index_read_after_release_is_rejected(read_before):
    """``slot.index`` after ``release()`` is the verifier's use after release,
    whether or not the index was read before the release."""
    def body(k, pipe, tiles):
        consumer = pipe.consumer()
        slot = consumer.wait()
        if read_before:
            tiles.load((slot.index, 0))
        slot.release()
        body.line = inspect.currentframe().f_lineno + 1
        tiles.load((slot.index, 1))
    with pytest.raises(ValueError) as err:
        _ring(body=body)
    assert f":{body.line}:" in str(err.value)
    assert "uses a slot after it was released" in str(err.value)


@pytest.mark.parametrize("read_before", [False, True])
def test_a_stage_index_read_after_commit_is_rejected(read_before):
    def body(k, pipe, tiles):
        producer = pipe.producer()
        slot = producer.acquire()
        if read_before:
            tiles.store(1, (slot.index, 0))
        slot.commit()
        body.line = inspect.currentframe().f_lineno + 1
        tiles.store(2, (slot.index, 1))
    with pytest.raises(ValueError) as err:
        _ring(body=body, kind="arrive")
    assert f":{body.line}:" in str(err.value)
    assert "uses a slot after it was committed" in str(err.value)


def test_a_side_not_carried_through_a_loop_is_rejected():
    """The reproducer of pipe-linearity-invalid.mlir's first case, in lang: a loop that does not carry the
    producer takes the same stage and phase in every trip."""
    def body(k, pipe, tiles):
        producer = pipe.producer()
        for _ in lang.range(8):
            body.line = inspect.currentframe().f_lineno + 1
            slot = producer.acquire()
            slot.commit(bytes=0)
    with pytest.raises(ValueError) as err:
        _ring(body=body)
    assert f":{body.line}:" in str(err.value)
    assert "takes a state defined outside the enclosing 'scf.for' in every trip" in str(err.value)
