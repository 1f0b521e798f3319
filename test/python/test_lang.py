"""mbarrier_dialect.lang: the seed's scenarios give only cluster forms for
remote views and only local forms otherwise; misuse raises ValueError with
the verifier's wording before any IR is built."""
import pytest
from mlir import ir

from mbarrier_dialect.dialects.mbarrier import Semantics
from mbarrier_dialect.lang import Kernel, MBarrier, TCGen05Bar, TMABar


def _ptx(build, cluster=2):
    with Kernel("k", block=128, cluster=cluster) as k:
        pool = k.smem_pool()
        bars = build(pool, k)
    return k, k.compile().ptx


def test_seed_remote_view_arrivals_are_cluster_forms():
    def build(pool, k):
        bar = MBarrier(pool, 1)
        pool.commit()
        bar.init(1)
        remote = bar.remote_view(0)
        remote.arrive(0)
        remote.arrive(0, count=2)

    k, ptx = _ptx(build)
    assert "mapa.shared::cluster.u64" in ptx
    assert ptx.count("mbarrier.arrive.release.cluster.shared::cluster.b64 _,") == 2
    assert "mbarrier.arrive.shared.b64" not in ptx
    assert "mbarrier.init.shared.b64" in ptx


def test_seed_tma_remote_view_is_cluster_expect_tx():
    def build(pool, k):
        bar = TMABar(pool, 1)
        pool.commit()
        bar.remote_view(0).arrive(0, tx_count=128)

    _, ptx = _ptx(build)
    assert "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _," in ptx
    assert "mbarrier.arrive.expect_tx.shared.b64" not in ptx


def test_local_barrier_stays_local():
    def build(pool, k):
        bar = TMABar(pool, 2)
        pool.commit()
        bar.init(1)
        bar.arrive(1)
        bar.arrive(0, tx_count=64)
        bar.wait(1, 0)

    _, ptx = _ptx(build, cluster=None)
    assert "mbarrier.arrive.shared.b64" in ptx
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "mapa" not in ptx and "shared::cluster" not in ptx


def test_ssa_values_work_where_ints_do():
    with Kernel("k", block=32, cluster=2, params=[("stage", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 2)
        pool.commit()
        stage = k.param("stage")
        bar.remote_view(k.cluster_rank()).arrive(stage, count=stage)
        bar.wait(stage, stage)
    text = str(k.module)
    assert "mbarrier.remote_view %" in text and "count %" in text


@pytest.mark.parametrize(
    "misuse, message",
    [
        (lambda b: b.remote_view(1).init(1), "cannot be initialized through a remote view"),
        (lambda b: b.remote_view(1).wait(0, 0), "cannot be waited on through a remote view"),
        (lambda b: b.remote_view(1).remote_view(0), "cannot be applied to a remote view"),
        (lambda b: b.remote_view(1).arrive(0, cta_id=1), "cannot also specify cta_id"),
        (lambda b: b.arrive(2), "out of range"),
        (lambda b: b.arrive(0, count=0), "out of range"),
        (lambda b: b.wait(0, 2), "phase must be 0 or 1"),
        (lambda b: b.remote_view(2), "out of range"),
        (lambda b: b.arrive(0, cta_id=5), "out of range"),
        (lambda b: b.remote_view(2**32), "out of range"),
        (lambda b: b.arrive(0, cta_id=-1), "out of range"),
        (lambda b: b.try_wait(0, 2), "phase must be 0 or 1"),
        (lambda b: b.test_wait(0, 5), "phase must be 0 or 1"),
        (lambda b: b.arrive(0, sem=Semantics.acquire),
         "sem acquire cannot be expressed by an mbarrier arrive, which is release or relaxed"),
        (lambda b: b.wait(0, 0, sem=Semantics.release),
         "sem release cannot be expressed by an mbarrier wait, which is acquire or relaxed"),
    ],
)
def test_misuse_raises_value_error(misuse, message):
    with pytest.raises(ValueError, match=message):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 2)
            pool.commit()
            misuse(bar)


def test_tma_remote_view_with_cta_id_is_rejected():
    with pytest.raises(ValueError, match=r"TMABar.remote_view\(\).arrive\(\) cannot also specify cta_id"):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = TMABar(pool, 1)
            pool.commit()
            bar.remote_view(1).arrive(0, tx_count=128, cta_id=1)


def test_tcgen05_commit_needs_sm_100a():
    with Kernel("k", block=32, cluster=2, chip="sm_90") as k:
        pool = k.smem_pool()
        bar = TCGen05Bar(pool, 1)
        pool.commit()
        bar.arrive(0, cta_mask=3)
    from mbarrier_dialect import CompileError
    with pytest.raises(CompileError, match="needs sm_100a or sm_101a"):
        k.compile()
    assert "tcgen05.commit" in k.compile(chip="sm_100a").ptx


def test_launch_shape_errors():
    with pytest.raises(ValueError, match="exceeds the portable limit of 8"):
        Kernel("k", block=32, cluster=16)
    with pytest.raises(ValueError, match="not a multiple of cluster"):
        Kernel("k", block=32, grid=3, cluster=2)


def test_unrolled_range_copies_the_body_and_keeps_a_remainder():
    from mbarrier_dialect.lang import unrolled_range
    from mbarrier_dialect.lang.values import as_i32

    with Kernel("k", block=32, cluster=2, params=[("n", "i32")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        remote = bar.remote_view(1)
        seen = []

        def body(iv, phase):
            seen.append(iv)
            remote.arrive(0)
            bar.wait(0, phase)
            return [phase]

        (final,) = unrolled_range(0, k.param("n"), body, unroll=3, carry=[as_i32(0)])
    # three copies in the main loop, one in the remainder loop
    assert len(seen) == 4
    text = str(k.module)
    assert text.count("scf.for") == 2 and text.count("mbarrier.arrive") == 4
    ptx = k.compile().ptx
    assert ptx.count("mbarrier.arrive.release.cluster.shared::cluster.b64") == 4
    with pytest.raises(ValueError, match="unroll must be a positive int"):
        with Kernel("k2", block=32) as k2:
            unrolled_range(0, 4, lambda iv: [], unroll=0)


def test_tma_arrive_with_count_and_rank_without_cluster():
    with Kernel("k", block=32) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 1)
        pool.commit()
        bar.arrive(0, tx_count=64, count=2)
        with pytest.raises(ValueError, match="ranks are non-negative i32"):
            bar.remote_view(2**32)
    assert "mbarrier.arrive_expect_tx %" in str(k.module) and ", count %" in str(k.module)


def test_compile_rejects_bad_options():
    from mbarrier_dialect import CompileError, compile

    with Kernel("k", block=32) as k:
        pool = k.smem_pool()
        MBarrier(pool, 1)
        pool.commit()
    with pytest.raises(ValueError, match="opt_level must be 0, 1, 2 or 3"):
        compile(k.module, opt_level=9)
    with pytest.raises(CompileError, match="unknown chip 'sm_91'"):
        compile(k.module, chip="sm_91")


def test_errors_point_at_the_users_line():
    """Ops built through lang carry the location of the caller's line."""
    import inspect

    from mbarrier_dialect.dialects import mbarrier as mb
    from mbarrier_dialect.lang.values import as_index

    with pytest.raises(ir.MLIRError) as err:
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1)
            pool.commit()
            remote = bar.remote_view(1)
            line = inspect.currentframe().f_lineno + 1
            mb.InitOp(remote.value, as_index(0), k.cluster_rank())
    message = str(err.value)
    assert "cannot be initialized through a remote view" in message
    assert f"test_lang.py\":{line}:" in message, message


@pytest.mark.parametrize("bad", ["x", 1.5, None])
def test_as_value_rejects_non_int_with_its_type_error(ctx, bad):
    """The parameter naming the target type must not shadow builtin `type`:
    the error names what was passed, not "'IntegerType' object is not callable"."""
    from mbarrier_dialect.lang.values import as_value, i32, index

    for ty in (i32(), index()):
        with pytest.raises(TypeError, match=r"^expected an int or an ir\.Value, got "
                           + type(bad).__name__ + "$"):
            as_value(bad, ty)
