"""mbarrier_dialect.lang: the seed's scenarios give only cluster forms for
remote views and only local forms otherwise; misuse is decided by the C++
verifier, whose message lang raises as ValueError at the user's line."""
import pytest
from mlir import ir

from mbarrier_dialect import SyncCheckWarning
from mbarrier_dialect.dialects.mbarrier import Semantics
from mbarrier_dialect.lang import Kernel, MBarrier, TCGen05Bar, TMABar


def _ptx(build, cluster=2):
    with Kernel("k", block=128, cluster=cluster) as k:
        pool = k.smem_pool()
        bars = build(pool, k)
    # Instruction-form tests: the snippets are not barrier protocols (every
    # thread arrives on a count-1 barrier), which the synchronization
    # checker rejects; it is not what these tests check.
    return k, k.compile(check_sync=False).ptx


def test_seed_remote_view_arrivals_are_cluster_forms():
    def build(pool, k):
        bar = MBarrier(pool, 1)
        pool.commit()
        bar.init(count=1)
        remote = bar.remote_view(0)
        remote.arrive(0)
        remote.arrive(0, count=2)

    k, ptx = _ptx(build)
    assert "mapa.shared::cluster.u64" in ptx
    # Both arrivals are cluster forms; as two consecutive release arrivals of
    # one thread they are merged (mbarrier-merge-release-fences): one
    # fence.release.cluster, then both arrivals .relaxed.cluster.
    arrives = [line.strip() for line in ptx.splitlines() if "mbarrier.arrive" in line]
    assert len(arrives) == 2, arrives
    assert all(".relaxed.cluster.shared::cluster.b64 _," in a for a in arrives), arrives
    fence = ptx.index("fence.release.cluster;")
    assert fence < ptx.index(arrives[0])
    assert "mbarrier.arrive.shared.b64" not in ptx
    assert "mbarrier.init.shared.b64" in ptx
    # Without the merge (O=0), each is its own .release.cluster arrival.
    unmerged = k.compile(opt_level=0, check_sync=False).ptx
    assert unmerged.count("mbarrier.arrive.release.cluster.shared::cluster.b64 _,") == 2


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
        bar.init(count=1)
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


# Each rule the C++ verifier holds, broken through lang: the ValueError is
# the verifier's message, located at the line of the call that built the op.
MISUSE = [
    (lambda b: b.remote_view(1).init(count=1),
     "'mbarrier.init' op a barrier cannot be initialized through a remote view; "
     "only the CTA that owns it can"),
    (lambda b: b.remote_view(1).wait(0, 0),
     "'mbarrier.wait' op a barrier cannot be waited on through a remote view; "
     "only the CTA that owns it can"),
    (lambda b: b.remote_view(1).try_wait(0, 0),
     "'mbarrier.try_wait' op a barrier cannot be waited on through a remote view; "
     "only the CTA that owns it can"),
    (lambda b: b.remote_view(0).test_wait(1, 1),
     "'mbarrier.test_wait' op a barrier cannot be waited on through a remote view; "
     "only the CTA that owns it can"),
    (lambda b: b.remote_view(1).inval(0),
     "'mbarrier.inval' op a barrier cannot be invalidated through a remote view; "
     "only the CTA that owns it can"),
    (lambda b: b.remote_view(1).remote_view(0),
     "'mbarrier.remote_view' op remote_view cannot be applied to a remote view; "
     "make the view from the owner's !mbarrier.group"),
    (lambda b: b.remote_view(1).arrive(0, cta_id=1),
     "'mbarrier.arrive' op through a remote view cannot also specify cta_id ('on'): "
     "the view already fixes the target CTA rank"),
    (lambda b: b.arrive(2),
     "'mbarrier.arrive' op barrier index 2 is out of range for '!mbarrier.group<2>' "
     "(valid: 0 to 1)"),
    (lambda b: b.arrive(0, count=0),
     "'mbarrier.arrive' op arrival count 0 is out of range [1, 1048575]"),
    (lambda b: b.init(count=2**20),
     "'mbarrier.init' op arrival count 1048576 is out of range [1, 1048575]"),
    (lambda b: b.wait(0, 2), "'mbarrier.wait' op phase must be 0 or 1, got 2"),
    (lambda b: b.try_wait(0, 2), "'mbarrier.try_wait' op phase must be 0 or 1, got 2"),
    (lambda b: b.test_wait(0, 5), "'mbarrier.test_wait' op phase must be 0 or 1, got 5"),
    (lambda b: b.remote_view(2),
     "'mbarrier.remote_view' op CTA rank 2 is out of range for a cluster of 2 CTAs"),
    (lambda b: b.arrive(0, cta_id=5),
     "'mbarrier.arrive' op CTA rank 5 is out of range for a cluster of 2 CTAs"),
    (lambda b: b.arrive(0, cta_id=-1),
     "'mbarrier.arrive' op CTA rank -1 is out of range: ranks are non-negative"),
    (lambda b: b.remote_view(-3),
     "'mbarrier.remote_view' op attribute 'cta_rank' failed to satisfy constraint: "
     "32-bit signless integer attribute whose value is non-negative"),
    (lambda b: b.arrive(0, sem=Semantics.acquire),
     "'mbarrier.arrive' op sem acquire cannot be expressed by an mbarrier arrive, "
     "which is release or relaxed"),
    (lambda b: b.wait(0, 0, sem="release"),
     "'mbarrier.wait' op sem release cannot be expressed by an mbarrier wait, "
     "which is acquire or relaxed"),
]


@pytest.mark.parametrize("misuse, message", MISUSE)
def test_misuse_raises_the_verifiers_message_at_the_users_line(misuse, message):
    with pytest.raises(ValueError) as err:
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 2)
            pool.commit()
            misuse(bar)
    where = f"{__file__}:{misuse.__code__.co_firstlineno}:"
    assert str(err.value).startswith(where), str(err.value)
    assert str(err.value)[len(where):].split(": error: ", 1)[1] == message


TMA_MISUSE = [
    (lambda t, k: t.remote_view(1).arrive(0, tx_count=128, cta_id=1),
     "'mbarrier.arrive_expect_tx' op through a remote view cannot also specify cta_id ('on'): "
     "the view already fixes the target CTA rank"),
    (lambda t, k: t.arrive(0, tx_count=2**20),
     "'mbarrier.arrive_expect_tx' op tx byte count 1048576 is out of range [0, 1048575]"),
    (lambda t, k: t.expect_tx(0, tx_count=-1),
     "'mbarrier.expect_tx' op tx byte count -1 is out of range [0, 1048575]"),
    (lambda t, k: t.expect_tx(0, tx_count=16, sem="release"),
     "'mbarrier.expect_tx' op sem release cannot be expressed by mbarrier.expect_tx, "
     "which is relaxed"),
    (lambda t, k: t.arrive(0, tx_count=64, count=0),
     "'mbarrier.arrive_expect_tx' op arrival count 0 is out of range [1, 1048575]"),
]


@pytest.mark.parametrize("misuse, message", TMA_MISUSE)
def test_tma_misuse_raises_the_verifiers_message(misuse, message):
    with pytest.raises(ValueError) as err:
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = TMABar(pool, 1)
            pool.commit()
            misuse(bar, k)
    where = f"{__file__}:{misuse.__code__.co_firstlineno}:"
    assert str(err.value).startswith(where), str(err.value)
    assert str(err.value)[len(where):].split(": error: ", 1)[1] == message


def test_group_and_phase_offset_rules_come_from_cpp():
    with pytest.raises(ValueError, match=r"^\S+test_lang\.py:\d+:\d+: error: an mbarrier group "
                       r"needs at least one barrier$"):
        with Kernel("k", block=32) as k:
            MBarrier(k.smem_pool(), 0)
    with pytest.raises(ValueError, match=r":\d+:\d+: error: 'mbarrier.wait' op attribute 'phase_offset' "
                       r"failed to satisfy constraint: 32-bit signless integer attribute whose "
                       r"minimum value is 0 whose maximum value is 1$"):
        with Kernel("k", block=32) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1, phase_offset=2)
            pool.commit()
            bar.wait(0, 0)


def test_tcgen05_rules_come_from_cpp():
    with pytest.raises(ValueError, match=r"'mbarrier.tcgen05_commit' op attribute 'cta_group' "
                       r"failed to satisfy constraint: 32-bit signless integer attribute whose "
                       r"minimum value is 1 whose maximum value is 2$"):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = TCGen05Bar(pool, 1)
            pool.commit()
            bar.arrive(0, cta_group=3)
    with pytest.raises(ValueError, match=r"'mbarrier.tcgen05_commit' op with cta_group = 1 cannot "
                       r"target a remote view; signal other CTAs with the multicast mask"):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = TCGen05Bar(pool, 1)
            pool.commit()
            bar.remote_view(1).arrive(0)
    # The 2-CTA form through a view is legal: the verifier, not a Python
    # copy of the rule, decides (the old frontend refused every view).
    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = TCGen05Bar(pool, 1)
        pool.commit()
        bar.remote_view(0).commit(0, cta_group=2)
    # (An instruction-form snippet, no protocol: the synchronization checker
    # would reject its exit right after a commit to another CTA.)
    assert "tcgen05.commit.cta_group::2" in k.compile(chip="sm_100a", check_sync=False).ptx


def test_a_failed_op_is_not_left_in_the_kernel():
    """The op that broke a rule is erased, so the error is raised once, at
    its line, and not again by the module verifier."""
    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 2)
        pool.commit()
        with pytest.raises(ValueError, match=r"'mbarrier.arrive' op barrier index 7 is out of range "
                           r"for '!mbarrier.group<2>' \(valid: 0 to 1\)$"):
            bar.arrive(7)
        bar.arrive(1)
    assert str(k.module).count("mbarrier.arrive") == 1


def test_python_rules_that_are_not_ir_rules_remain():
    """Only what is not an IR rule stays in Python: an int that does not fit
    the operand's type, an unknown sem name, a non-int where an int goes."""
    cases = [
        (lambda b: b.remote_view(2**32), ValueError, r"the int 4294967296 does not fit in i32"),
        (lambda b: b.arrive(0, count=2**40), ValueError, r"does not fit in i32"),
        (lambda b: b.arrive(0, sem="bogus"), ValueError,
         r"sem 'bogus' is not one of 'release', 'acquire', 'relaxed'"),
        (lambda b: b.wait(0, 0, scope=1), TypeError, r"scope is a Scope or its name"),
        (lambda b: b.arrive(0, 1), TypeError, r"takes 2 positional arguments but 3"),
        (lambda b: b.arrive("0"), TypeError, r"expected an int or an ir.Value, got str"),
    ]
    for misuse, error, message in cases:
        with pytest.raises(error, match=message):
            with Kernel("k", block=32, cluster=2) as k:
                pool = k.smem_pool()
                bar = MBarrier(pool, 2)
                pool.commit()
                misuse(bar)


def test_tcgen05_commit_needs_sm_100a():
    with Kernel("k", block=32, cluster=2, chip="sm_90") as k:
        pool = k.smem_pool()
        bar = TCGen05Bar(pool, 1)
        pool.commit()
        bar.arrive(0, cta_mask=3)
    from mbarrier_dialect import CompileError
    # (A target-check snippet, no protocol: the synchronization checker is
    # off, it would reject the exit right after a multicast commit.)
    with pytest.raises(CompileError, match="needs sm_100a or sm_101a"):
        k.compile(check_sync=False)
    assert "tcgen05.commit" in k.compile(chip="sm_100a", check_sync=False).ptx


def test_launch_shape_errors():
    with pytest.raises(ValueError, match=r"exceeds the limit of 16 \(more than 8 is non-portable\)"):
        Kernel("k", block=32, cluster=17)
    with Kernel("k16", block=32, cluster=16) as k:  # non-portable, valid
        pass
    assert k.cluster == (16, 1, 1)
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
    # Not a whole protocol (no init): the checker says so. (No class 2
    # report: CTA 1, which both CTAs arrive on, waits on that barrier in the
    # loop around the arrivals, so its wait may drain them; docs/checker.md,
    # class 2.)
    with pytest.warns(SyncCheckWarning) as record:
        ptx = k.compile().ptx
    messages = [str(w.message) for w in record]
    assert not any("followed by the kernel's exit" in m for m in messages)
    assert any("a group that is never initialized" in m for m in messages)
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
        with pytest.raises(ValueError, match="does not fit in i32"):
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
    """An op built outside lang (raw op classes) is verified when the kernel
    ends: the same ValueError, at the line that built it."""
    import inspect

    from mbarrier_dialect.dialects import mbarrier as mb
    from mbarrier_dialect.lang.values import as_index

    with pytest.raises(ValueError) as err:
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1)
            pool.commit()
            remote = bar.remote_view(1)
            line = inspect.currentframe().f_lineno + 1
            mb.InitOp(remote.value, as_index(0), k.cluster_rank())
    message = str(err.value)
    assert message.startswith(f"{__file__}:{line}:"), message
    assert message.endswith("'mbarrier.init' op a barrier cannot be initialized through a "
                            "remote view; only the CTA that owns it can"), message


@pytest.mark.parametrize("bad", ["x", 1.5, None])
def test_as_value_rejects_non_int_with_its_type_error(ctx, bad):
    """The parameter naming the target type must not shadow builtin `type`:
    the error names what was passed, not "'IntegerType' object is not callable"."""
    from mbarrier_dialect.lang.values import as_value, i32, index

    for ty in (i32(), index()):
        with pytest.raises(TypeError, match=r"^expected an int or an ir\.Value, got "
                           + type(bad).__name__ + "$"):
            as_value(bad, ty)
