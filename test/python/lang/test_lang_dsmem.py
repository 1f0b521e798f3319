"""Data between CTAs: buffer.remote(rank) reaches another CTA's shared buffer
through distributed shared memory; prologue() starts a kernel with several
barrier groups; epilogue() ends a cluster kernel with a cluster barrier."""
import re
import types

import pytest
from lang_jit import jit

from mbarrier_dialect import SyncCheckWarning
from mbarrier_dialect.lang import Kernel, MBarrier, RemoteBuffer, TMABar, if_then


def _entry(ptx):
    return ptx[ptx.index(".entry"):]


def test_remote_buffer_stores_and_loads_through_distributed_shared_memory():
    with Kernel("k", block=32, cluster=4, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        box = pool.alloc((2, 8), "i32")
        pool.commit()
        rank = k.cluster_rank()
        peer = box.remote((rank + 1) % 4)
        assert isinstance(peer, RemoteBuffer) and str(peer.ptr.type) == "!llvm.ptr<7>"
        peer.store(rank * 10, (1, k.thread_rank() % 8))
        k.store(rank, box.remote(0), 3)          # Kernel.store accepts it too
        k.cluster_sync()
        k.store(k.load(box.remote(2), (1, 1)) + peer.load(0), k.param("out"), rank)
        k.epilogue()
    text = str(k.module)
    assert text.count("nvvm.mapa") == 3
    ptx = _entry(k.compile().ptx)
    assert ptx.count("mapa.shared::cluster.u64") >= 2
    assert re.search(r"st\.shared::cluster\.b32\s+\[%rd\d+(\+\d+)?\], %r\d+;", ptx)
    assert re.search(r"ld\.shared::cluster\.b32\s+%r\d+, \[%rd\d+(\+\d+)?\];", ptx)
    # the buffer's own (local) accesses are not turned into cluster ones and back
    assert "st.shared.b32" not in ptx


def test_remote_buffer_rank_rules():
    with pytest.raises(ValueError, match="CTA rank 4 is out of range for a cluster of 4 CTAs"):
        with Kernel("k", block=32, cluster=4) as k:
            pool = k.smem_pool()
            box = pool.alloc(4, "i32")
            pool.commit()
            box.remote(4)
    with pytest.raises(TypeError, match="the CTA rank is the Python bool True"):
        with Kernel("k", block=32, cluster=4) as k:
            pool = k.smem_pool()
            box = pool.alloc(4, "i32")
            pool.commit()
            box.remote(True)
    with pytest.raises(ValueError, match="not committed yet"):
        with Kernel("k", block=32, cluster=4) as k:
            pool = k.smem_pool()
            pool.alloc(4, "i32").remote(1)


def test_prologue_initializes_every_group_then_publishes_once():
    with Kernel("k", block=64, cluster=2) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 3)
        empty = MBarrier(pool, 3, phase_offset=1)
        tma = TMABar(pool, 1)
        pool.commit()
        k.prologue({full: 32, empty: 32, tma: 1})
        full.remote_view(1).arrive(0)
    text = str(k.module)
    assert text.count("scf.if") == 1 and text.count("mbarrier.init") == 7
    # (The prologue is what is checked; the kernel after it is no protocol:
    # the whole block arrives and exits with no final cluster barrier, which
    # the synchronization checker rejects.)
    ptx = _entry(k.compile(check_sync=False).ptx)
    assert ptx.count("mbarrier.init.shared.b64") == 7
    assert ptx.count("fence.mbarrier_init.release.cluster") == 1
    assert ptx.count("barrier.cluster.arrive") == 1 and ptx.count("barrier.cluster.wait") == 1
    last_init = ptx.rindex("mbarrier.init.shared.b64")
    assert last_init < ptx.index("fence.mbarrier_init") < ptx.index("barrier.cluster.wait") \
        < ptx.index("mbarrier.arrive")


def test_prologue_in_a_cta_kernel_uses_bar_sync_and_the_leader():
    with Kernel("k", block=64) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 2)
        pool.commit()
        k.prologue({bar: k.thread_rank() + 1}, leader=k.is_thread(32))
    ptx = _entry(k.compile().ptx)
    assert "barrier.cluster" not in ptx and re.search(r"bar(rier)?\.sync(\.aligned)?\s+0;", ptx)
    assert re.search(r"setp\.ne\.b32\s+%p\d+, %r\d+, 32;", ptx)
    with pytest.raises(TypeError, match=r"prologue\(\) takes a dict"):
        with Kernel("k", block=64) as k:
            k.prologue([bar])


def test_epilogue_ends_a_cluster_kernel_with_a_cluster_barrier():
    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.cluster_rank() == 0):
            bar.remote_view(1).arrive(0)
        k.epilogue()
    # Every thread of CTA 0 arrives on a count-1 barrier: the checker says so.
    with pytest.warns(SyncCheckWarning, match="initialized with arrival count 1"):
        ptx = _entry(k.compile().ptx)
    tail = ptx[ptx.rindex("mbarrier.arrive"):]
    assert re.search(r"barrier\.cluster\.arrive;\s+barrier\.cluster\.wait;\s+ret;", tail), tail
    with Kernel("k", block=32) as k:
        k.epilogue()
    assert "nvvm.cluster" not in str(k.module)


def test_stage_phase_of_a_ring():
    ring = types.SimpleNamespace(depth=3)
    call, _ = jit(["i32"], lambda i: (lambda s, p: s * 10 + p)(*MBarrier.stage_phase(ring, i)))
    assert [call(i) for i in range(8)] == [(i % 3) * 10 + ((i // 3) & 1) for i in range(8)]
