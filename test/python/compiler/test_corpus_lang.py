"""The correct-kernel corpus of issue 20, built with `mbarrier_dialect.lang`:
barrier protocols of public kernels (CUTLASS, FlashAttention-3's
PipelineTmaAsyncNoCluster, Triton, the CUDA C++ Programming Guide) that the
synchronization checker must keep silent. Each kernel compiles with
``compile()`` (the checker first, then NVVM, PTX and ptxas) with no
``CompileError``, no ``CompiledKernel.warnings`` and no ``SyncCheckWarning``
issued; and with the checker off it compiles too (so a checker failure is
the checker's, not the kernel's).

The IR form of the corpus is test/Analysis/SyncCheck/corpus/*.mlir."""
import warnings

import pytest
from mlir.dialects import gpu, nvvm

from mbarrier_dialect import CompileError, SyncCheckWarning
from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, MBarrier, TMABar, if_then

TILE_WORDS = 1024          # a 4096-byte tile of i32


def _bulk_copy(k, buf, stage, src, src_index, nbytes, bar, bar_stage):
    """``cp.async.bulk`` of `nbytes` from element `src_index` of `src` into
    stage `stage` of `buf`, completing on barrier `bar_stage` of `bar` (the
    upstream op, for a destination at a run-time stage offset)."""
    dst = k.element_ptr(buf, (stage, 0))
    source = k.element_ptr(src, src_index, "i32")
    nvvm.CpAsyncBulkGlobalToSharedClusterOp(dst, source, bar.ptr_to(bar_stage),
                                            lang.as_i32(nbytes))


# -- the kernels ---------------------------------------------------------------

def cutlass_tma_async_1x1(stages=4):
    """NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp,
    PipelineTmaAsync in a 1x1 cluster, as the warp-specialized GEMM of
    include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp uses it
    (a producer warp group, one consumer warp group: num_consumers = 128):
    full count 1, empty count num_consumers; the init published with
    __syncthreads (cluster size 1); the producer's elected lane of warp 0
    (thread 0, is_leader) waits on empty[s] from the inverted phase, posts
    the A + B bytes, copies A and B; producer_tail. The consumers
    (collective mma, K_PIPE_MMAS = 1) try_wait + wait, release one k-tile
    late and the last in mma_tail; consumer_release is
    empty.arrive(dst_blockid_ = 0, is_signaling_thread_ = true): the
    cluster-form arrive on CTA 0, by every consumer thread."""
    with Kernel("cutlass_tma_async_1x1", block=256, cluster=1,
                params=[("a", "ptr"), ("b", "ptr"), ("ktiles", "i32")]) as k:
        pool = k.smem_pool()
        full = TMABar(pool, stages)
        empty = MBarrier(pool, stages, phase_offset=1)
        sa = pool.alloc((stages, TILE_WORDS), "i32", align=128)
        sb = pool.alloc((stages, TILE_WORDS), "i32", align=128)
        pool.commit()
        tid = k.thread_rank()
        full.init(count=1)
        empty.init(count=128)
        k.fence_barrier_init()
        k.sync_threads()
        ktiles = k.param("ktiles")
        with if_then(tid == 0):
            for kt in lang.range(ktiles):
                stage, phase = full.stage_phase(kt)
                empty.wait(stage, phase)
                full.arrive(stage, tx_count=2 * 4 * TILE_WORDS)
                _bulk_copy(k, sa, stage, k.param("a"), kt * TILE_WORDS, 4 * TILE_WORDS, full, stage)
                _bulk_copy(k, sb, stage, k.param("b"), kt * TILE_WORDS, 4 * TILE_WORDS, full, stage)
            for j in lang.range(stages):
                stage, phase = full.stage_phase(ktiles + j)
                empty.wait(stage, phase)
        with if_then(tid >= 128):
            ok = full.try_wait(0, 0)
            with if_then(~ok):
                full.wait(0, 0)
            for kt in lang.range(1, ktiles):
                stage, phase = full.stage_phase(kt)
                ok = full.try_wait(stage, phase)
                with if_then(~ok):
                    full.wait(stage, phase)
                released, _ = full.stage_phase(kt - 1)
                empty.arrive(released, cta_id=0)
            last, _ = full.stage_phase(ktiles - 1)
            empty.arrive(last, cta_id=0)
    return k


def dsmem_allgather():
    """The distributed-shared-memory exchange of the CUDA C++ Programming
    Guide ("Distributed Shared Memory", cluster.sync() before exit) with
    ThunderKittens' mbarrier hand-off (include/ops/thread/memory/util/tma.cuh,
    tma::cluster::arrive / wait): in a 4-CTA cluster every thread stores its
    element of its CTA's slice into each peer's gather buffer and arrives on
    the peer's barrier (3 peers x 128 threads per phase); every CTA waits on
    its own, reads the gathered vector; a final cluster barrier."""
    with Kernel("dsmem_allgather", block=128, cluster=4,
                params=[("inp", "ptr"), ("out", "ptr")]) as k:
        pool = k.smem_pool()
        got = MBarrier(pool, 1)
        gathered = pool.alloc((4, 128), "i32")
        pool.commit()
        k.prologue({got: 3 * 128})
        rank, t = k.cluster_rank(), k.thread_rank()
        v = k.load(k.param("inp"), rank * 128 + t)
        gathered.store(v, (rank, t))
        for j in (1, 2, 3):
            peer = (rank + j) % 4
            gathered.remote(peer).store(v, (rank, t))
            got.remote_view(peer).arrive(0)
        got.wait(0, 0)
        for c in range(4):
            k.store(gathered.load((c, t)), k.param("out"), (rank * 4 + c) * 128 + t)
        k.epilogue()
    return k


def pipe_ring_initialized_by_consumer_warp(stages=4):
    """A TMA ring (lang.Pipeline, CuTe DSL's PipelineTmaAsync shape) whose
    barriers are initialized by another warp than the producer's: lane 0 of
    warp 4, the first consumer warp (CUTLASS sm90_pipeline.hpp,
    PipelineTmaAsync::init_barriers: `is_initializing_warp = (warp_idx ==
    params.initializing_warp)`). Thread 0 produces; warps 4..7 consume, one
    release per warp after __syncwarp."""
    with Kernel("pipe_ring_init_by_warp4", block=256,
                params=[("tmap", "ptr"), ("out", "ptr"), ("tiles", "i32")]) as k:
        pool = k.smem_pool()
        pipe = lang.Pipeline(pool, stages, kind="tma", consumers=4)
        tiles = pool.alloc((stages, TILE_WORDS), "i32", align=128)
        pool.commit()
        tid = k.thread_rank()
        k.prologue(pipes=[pipe], leader=tid == 128)
        with if_then(tid == 0):
            producer = pipe.producer()
            for t in lang.range(k.param("tiles"), carry=[producer]):
                slot = producer.acquire()
                slot.cp_async_bulk_tensor(tiles, k.param("tmap"), [t * 32, 0],
                                          box_bytes=4 * TILE_WORDS)
                slot.commit(bytes=4 * TILE_WORDS)
            producer.tail()
        with if_then(tid >= 128):
            me = tid - 128
            consumer = pipe.consumer()
            loop = lang.range(k.param("tiles"), carry=[consumer, 0])
            for t in loop:
                _, acc = loop.carry
                slot = consumer.wait()
                acc = acc + tiles.load((slot.index, me))
                k.sync_warp()
                slot.release(pred=(me % 32) == 0)
                loop.next(consumer, acc)
            k.store(loop.results[1], k.param("out"), me)
    return k


def _round_robin_ring(name, strided):
    """An 8-stage TMA ring drained by four consumer warps in turn (warp w
    takes items w, w + 4, ...: stages w and w + 4), full count 1 (thread 0's
    arrive.expect_tx), empty count 1 (lane 0 of the warp that read the
    stage, after __syncwarp): the ping-pong interleaving of CUTLASS's
    sm90_gemm_tma_warpspecialized_pingpong.hpp (each math warp group
    consumes every other tile and advances past the other's stages) at warp
    granularity. `strided`: the consumer loop written `for i in range(w,
    items, 4)` (a thread-dependent lower bound); else `for j in
    range(rounds)` with i = 4 j + w."""
    stages = 8
    with Kernel(name, block=160, params=[("src", "ptr"), ("out", "ptr"), ("rounds", "i32")]) as k:
        pool = k.smem_pool()
        full = TMABar(pool, stages)
        empty = MBarrier(pool, stages, phase_offset=1)
        ring = pool.alloc((stages, TILE_WORDS), "i32", align=128)
        pool.commit()
        k.prologue({full: 1, empty: 1})
        tid = k.thread_rank()
        warp, lane = tid // 32, tid % 32
        items = k.param("rounds") * 4
        with if_then(tid == 0):
            for i in lang.range(items):
                stage, phase = full.stage_phase(i)
                empty.wait(stage, phase)
                full.arrive(stage, tx_count=4 * TILE_WORDS)
                _bulk_copy(k, ring, stage, k.param("src"), i * TILE_WORDS, 4 * TILE_WORDS, full, stage)

        def consume(i):
            stage, phase = full.stage_phase(i)
            full.wait(stage, phase)
            k.store(ring.load((stage, lane)), k.param("out"), i * 32 + lane)
            k.sync_warp()
            empty.arrive(stage, pred=lane == 0)

        with if_then(warp >= 1):
            w = warp - 1
            if strided:
                for i in lang.range(w, items, 4):
                    consume(i)
            else:
                for j in lang.range(k.param("rounds")):
                    consume(j * 4 + w)
    return k


def round_robin_warps():
    return _round_robin_ring("round_robin_warps", strided=False)


def round_robin_warps_strided():
    return _round_robin_ring("round_robin_warps_strided", strided=True)


def triton_tma_per_trip():
    """triton-lang/triton lib/Dialect/TritonNvidiaGPU/Transforms/TMALowering.cpp
    (TMALoadLowering) in a loop: every trip initializes the barrier (count
    1), posts the tile's bytes and copies it (thread 0 / warp 0's elected
    lane), every thread waits on phase 0, then the barrier is invalidated;
    the bar.sync between the init and its uses and between the waits and
    the inval are those of Triton's membar analysis."""
    with Kernel("triton_tma_per_trip", block=128,
                params=[("src", "ptr"), ("out", "ptr"), ("n", "i32")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        tile = pool.alloc(2048, "i32", align=128)
        pool.commit()
        tid = k.thread_rank()
        acc = lang.range(k.param("n"), carry=[0])
        for i in acc:
            (total,) = acc.carry
            k.sync_threads()
            bar.init(count=1)
            k.sync_threads()
            with if_then(tid == 0):
                bar.arrive(0, tx_count=tile.nbytes)
                lang.cp_async_bulk(tile, k.param("src"), bar=bar, src_index=i * 2048)
            bar.wait(0, 0)
            total = total + tile.load(tid)
            k.sync_threads()
            with if_then(tid == 0):
                bar.inval(0)
            acc.next(total)
        k.store(acc.results[0], k.param("out"), tid)
    return k


def ordered_sequence_two_warpgroups():
    """NVIDIA/cutlass sm90_pipeline.hpp OrderedSequenceBarrier<2, 2> as the
    ping-pong kernel (sm90_gemm_tma_warpspecialized_pingpong.hpp,
    MathWarpGroupOrderBarrier) uses it: barrier_[d][l] at d * 2 + l, each
    initialized with group_size 128; group g waits on its own barrier of the
    stage (group 0 starting from the opposite phase), does its part, arrives
    on group (g + 1) % 2's and goes to the next stage; stage 0 orders the
    mainloops, stage 1 the epilogues, so the phase flips every tile."""
    with Kernel("ordered_sequence_2wg", block=256,
                params=[("out", "ptr"), ("tiles", "i32")]) as k:
        pool = k.smem_pool()
        order = MBarrier(pool, 4)
        pool.commit()
        k.prologue({order: 128})
        tid = k.thread_rank()
        g = tid // 128
        start = (g == 0).to("i32")
        for t in lang.range(k.param("tiles")):
            phase = (t & 1) ^ start
            order.wait(g, phase)                      # the mainloop's turn
            k.store(t, k.param("out"), tid)
            order.arrive(1 - g)
            order.wait(2 + g, phase)                  # the epilogue's turn
            k.store(t + 1, k.param("out"), tid)
            order.arrive(3 - g)
    return k


def cutlass_pingpong_pipe(stages=4):
    """NVIDIA/cutlass sm90_gemm_tma_warpspecialized_pingpong.hpp in a 1x1
    cluster, with the mainloop pipeline as lang.Pipeline: one TMA ring
    (num_consumers = NumThreadsPerWarpGroup = 128: every thread of the
    consuming warp group releases) that the two math warp groups consume on
    alternate tiles, Consumer1's state advanced by k_tile_count at the start
    and both advanced by k_tile_count * NumMmaWarpGroups per tile (here: by
    the other group's k_tile_count after its own); MathWarpGroupOrderBarrier
    = OrderedSequenceBarrier<2, 2> around each group's mainloop and
    epilogue. One release op is executed by both warp groups, each on its
    own tiles' stages: 128 arrivals per phase."""
    with Kernel("cutlass_pingpong_pipe", block=384,
                params=[("tmap", "ptr"), ("out", "ptr"), ("tiles", "i32"), ("ktiles", "i32")]) as k:
        pool = k.smem_pool()
        pipe = lang.Pipeline(pool, stages, kind="tma", consumers=128)
        order = MBarrier(pool, 4)
        buf = pool.alloc((stages, TILE_WORDS), "i32", align=128)
        pool.commit()
        k.prologue({order: 128}, pipes=[pipe])
        tid = k.thread_rank()
        wg = tid // 128
        tiles, ktiles = k.param("tiles"), k.param("ktiles")
        with if_then(tid == 0):                      # the mainloop producer warp's leader
            producer = pipe.producer()
            for i in lang.range(tiles * 2 * ktiles, carry=[producer]):
                slot = producer.acquire()
                slot.cp_async_bulk_tensor(buf, k.param("tmap"), [i * 32, 0],
                                          box_bytes=4 * TILE_WORDS)
                slot.commit(bytes=4 * TILE_WORDS)
            producer.tail()
        with if_then(wg >= 1):                       # Consumer0 and Consumer1
            g = wg - 1
            start = (g == 0).to("i32")
            consumer = pipe.consumer()
            consumer.advance(g * ktiles)
            loop = lang.range(tiles, carry=[consumer, 0])
            for t in loop:
                _, acc = loop.carry
                phase = (t & 1) ^ start
                order.wait(g, phase)
                inner = lang.range(ktiles, carry=[consumer, acc])
                for kt in inner:
                    _, a = inner.carry
                    slot = consumer.wait()
                    a = a + buf.load((slot.index, tid % 128))
                    slot.release()
                    inner.next(consumer, a)
                _, acc = inner.results
                order.arrive(1 - g)
                consumer.advance(ktiles)
                order.wait(2 + g, phase)
                k.store(acc, k.param("out"), tid)
                order.arrive(3 - g)
                loop.next(consumer, acc)
    return k


def cuda_barrier_block_size():
    """The CUDA C++ Programming Guide's split arrive/wait ("Asynchronous
    Barrier": `if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync(); for (...) { token = bar.arrive(); compute(); bar.wait(token); }`)
    on NVIDIA/cccl's barrier<thread_scope_block> (mbarrier init / arrive /
    test_wait.parity): the count is the block's size read from blockDim in
    a 2-D block; the wait tests once and blocks if the phase is not done
    (PipelineAsync::consumer_wait's form; lang has no while loop)."""
    with Kernel("cuda_barrier_block_size", block=(32, 4),
                params=[("data", "ptr"), ("iterations", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        dims = [lang.wrap(gpu.BlockDimOp(getattr(gpu.Dimension, d)).result).to("i32")
                for d in "xyz"]
        size = dims[0] * dims[1] * dims[2]
        rank = k.thread_rank()
        bar.init(count=size)
        k.sync_threads()
        for i in lang.range(k.param("iterations")):
            bar.arrive(0)
            v = k.load(k.param("data"), rank, "f32")
            k.store(v + v, k.param("data"), rank, "f32")
            parity = i & 1
            done = bar.test_wait(0, parity)
            with if_then(~done):
                bar.wait(0, parity)
    return k


def cutlass_pipeline_async_cluster():
    """NVIDIA/cutlass sm90_pipeline.hpp PipelineAsync in a 2-CTA cluster,
    with the counts the ping-pong kernel gives its epilogue-load pipeline
    (producer_arv_count 32, consumer_arv_count 128): the barriers are
    initialized by Params::initializing_warp = 4 (leader=), published with
    cluster_arrive_relaxed + cluster_wait; the producer warp's 32 lanes
    write a stage and producer_commit (full.arrive()); the consumer warp
    group's consumer_wait tests and falls back to wait; consumer_release is
    empty.arrive(dst_blockid) with dst_blockid = block_rank_in_cluster(),
    the cluster form on the CTA's own rank."""
    stages = 2
    with Kernel("cutlass_pipeline_async_cluster", block=256, cluster=2,
                params=[("src", "ptr"), ("out", "ptr"), ("n", "i32")]) as k:
        pool = k.smem_pool()
        tid = k.thread_rank()
        initializing = ((tid // 32) == 4) & ((tid % 32) == 0)   # warp 4's elected lane
        full = MBarrier(pool, stages, leader=initializing)
        empty = MBarrier(pool, stages, phase_offset=1, leader=initializing)
        ring = pool.alloc((stages, 32), "i32")
        pool.commit()
        full.init(count=32)
        empty.init(count=128)
        k.fence_barrier_init()
        nvvm.ClusterArriveRelaxedOp()
        nvvm.ClusterWaitOp()
        dst_blockid = k.cluster_rank()
        lane = tid % 32
        with if_then(tid < 32):
            for i in lang.range(k.param("n")):
                stage, phase = full.stage_phase(i)
                empty.wait(stage, phase)
                ring.store(k.load(k.param("src"), i * 32 + lane), (stage, lane))
                full.arrive(stage)
        with if_then(tid >= 128):
            ct = tid - 128
            for i in lang.range(k.param("n")):
                stage, phase = full.stage_phase(i)
                done = full.test_wait(stage, phase)
                with if_then(~done):
                    full.wait(stage, phase)
                k.store(ring.load((stage, ct % 32)), k.param("out"), i * 128 + ct)
                empty.arrive(stage, cta_id=dst_blockid)
    return k


# -- the tests -------------------------------------------------------------------

KERNELS = [
    pytest.param(cutlass_tma_async_1x1, id="cutlass_tma_async_1x1"),
    pytest.param(dsmem_allgather, id="dsmem_allgather"),
    pytest.param(pipe_ring_initialized_by_consumer_warp, id="pipe_ring_init_by_warp4"),
    pytest.param(round_robin_warps, id="round_robin_warps"),
    pytest.param(round_robin_warps_strided, id="round_robin_warps_strided"),
    pytest.param(triton_tma_per_trip, id="triton_tma_per_trip"),
    pytest.param(ordered_sequence_two_warpgroups, id="ordered_sequence_2wg"),
    pytest.param(cutlass_pingpong_pipe, id="cutlass_pingpong_pipe"),
    pytest.param(cuda_barrier_block_size, id="cuda_barrier_block_size"),
    pytest.param(cutlass_pipeline_async_cluster, id="cutlass_pipeline_async_cluster"),
]


@pytest.mark.parametrize("build", KERNELS)
def test_the_checker_keeps_the_corpus_kernel_silent(build):
    kernel = build()
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        compiled = kernel.compile()
    assert compiled.warnings == []
    assert [str(w.message) for w in issued if issubclass(w.category, SyncCheckWarning)] == []
    assert compiled.cubin


@pytest.mark.parametrize("build", [p.values[0] for p in KERNELS],
                         ids=[p.id for p in KERNELS])
def test_the_corpus_kernel_compiles_with_the_checker_off(build):
    compiled = build().compile(check_sync=False)
    assert compiled.cubin and ".entry" in compiled.ptx
