"""lang.bulk_store: the TMA store next to the load, bulk async-groups, and
StorePipeline (a ring of staging buffers whose reuse waits on
wait_group.read); the PTX forms and their order, and the argument checks."""
import re

import pytest

from mbarrier_dialect import lang
from mbarrier_dialect.lang import (Kernel, StorePipeline, bulk_commit_group, bulk_wait_group_read,
                                   cp_async_bulk_tensor_store, if_then)


def _ring(depth=2):
    """Thread 0 stores `tiles` (a parameter) 32x32 i32 tiles through `depth`
    staging buffers; every thread writes its elements of the next one."""
    with Kernel("store_ring", block=128, params=[("map", "ptr"), ("tiles", "i32")]) as k:
        pool = k.smem_pool()
        stores = StorePipeline(pool, depth, (32, 32), "i32")
        pool.commit()
        tid = k.thread_rank()
        for t in lang.range(k.param("tiles")):
            buf = stores.buffer(t)
            with if_then(tid == 0):
                stores.acquire()
            k.sync_threads()
            for j in range(8):
                k.store(t * 1000 + j, buf, j * 128 + tid)
            k.fence_proxy_async()
            k.sync_threads()
            with if_then(tid == 0):
                stores.store(t, k.param("map"), [t * 32, 0])
        with if_then(tid == 0):
            stores.tail()
    return k


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_store_pipeline_ptx(depth):
    compiled = _ring(depth).compile()
    assert compiled.warnings == []
    ptx = compiled.ptx
    lines = [l.strip() for l in ptx.splitlines()]
    waits = [l for l in lines if l.startswith("cp.async.bulk.wait_group")]
    # acquire() waits until depth - 1 groups may still read; tail() for none.
    assert waits == [f"cp.async.bulk.wait_group.read \t{depth - 1};",
                     "cp.async.bulk.wait_group.read \t0;"], waits
    store = next(i for i, l in enumerate(lines) if l.startswith("cp.async.bulk.tensor.2d.global"))
    assert ".shared::cta" in lines[store] and "bulk_group" in lines[store]
    # The proxy fence is the issuing thread's last memory op before the
    # store; the commit closes the group right after it.
    before = [l for l in lines[:store] if l and not l.startswith(("mov", "add", "shl", "mul", "cvt"))]
    assert before[-1] == "fence.proxy.async.shared::cta;", before[-3:]
    assert lines[store + 1] == "cp.async.bulk.commit_group;"
    # Every writer fences before the barrier after which the store issues.
    assert ptx.count("fence.proxy.async.shared::cta;") == 2


def test_the_raw_forms_and_their_checks():
    with Kernel("raw", block=32, params=[("map", "ptr")]) as k:
        pool = k.smem_pool()
        tile = pool.alloc((16, 16), "f32", align=128)
        pool.commit()
        cp_async_bulk_tensor_store(tile, k.param("map"), [0, 16])
        bulk_commit_group()
        bulk_wait_group_read(0)
        with pytest.raises(TypeError, match="shared-memory buffer or an !llvm.ptr<3>"):
            cp_async_bulk_tensor_store(k.param("map"), k.param("map"), [0])
        with pytest.raises(ValueError, match="1 to 5 coordinates, got 6"):
            cp_async_bulk_tensor_store(tile, k.param("map"), [0] * 6)
        with pytest.raises(TypeError, match="a coordinate"):
            cp_async_bulk_tensor_store(tile, k.param("map"), [True, 0])
        with pytest.raises(ValueError, match="constant number of groups >= 0, got True"):
            bulk_wait_group_read(True)
        with pytest.raises(ValueError, match="at least one staging buffer, got 0"):
            StorePipeline(pool, 0, (4,), "i32")
    ptx = k.compile().ptx
    # The box in PTX order (innermost first): coordinates [0, 16] -> {16, 0}.
    assert re.search(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.(tile\.)?bulk_group", ptx)
    assert ptx.index("fence.proxy.async.shared::cta") < ptx.index("cp.async.bulk.tensor")
    assert "cp.async.bulk.wait_group.read \t0;" in ptx


def _unrolled(depth, *, early):
    """Three tiles unrolled (their buffers constant); with `early`, tile 2
    is staged before acquire() frees its buffer."""
    with Kernel("store_unrolled", block=128, params=[("map", "ptr")]) as k:
        pool = k.smem_pool()
        stores = StorePipeline(pool, depth, (32, 32), "i32")
        pool.commit()
        tid = k.thread_rank()
        for t in range(3):
            if early and t == 2:
                k.store(-1, stores.buffer(t), tid)
            with if_then(tid == 0):
                stores.acquire()
            k.sync_threads()
            k.store(t, stores.buffer(t), tid)
            k.fence_proxy_async()
            k.sync_threads()
            with if_then(tid == 0):
                stores.store(t, k.param("map"), [t * 32, 0])
        with if_then(tid == 0):
            stores.tail()
    return k


@pytest.mark.parametrize("depth", [1, 2])
def test_the_checker_is_silent_on_the_store_pipeline(depth):
    assert _unrolled(depth, early=False).compile().warnings == []


@pytest.mark.parametrize("depth", [1, 2])
def test_the_checker_reports_a_buffer_staged_before_acquire(depth):
    """Tile 2 reuses the buffer of tile 2 - depth, whose store is the newest
    group but depth - 1 ones: only acquire() (wait_group.read depth - 1)
    frees it."""
    from mbarrier_dialect import CompileError
    with pytest.raises(CompileError, match=r"test_lang_bulk_store\.py:\d+.*writes shared memory "
                                           r"that a bulk store may still be reading"):
        _unrolled(depth, early=True).compile()
