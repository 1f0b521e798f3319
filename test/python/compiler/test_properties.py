"""Property tests of mbarrier_dialect.lang (hypothesis).

Random sequences of legal barrier operations always give IR that verifies,
lowers and assembles with ptxas; random illegal ones always raise ValueError
(the C++ verifier's message, which lang re-raises at the user's line, or
lang's own for an int that does not fit its operand) or ir.MLIRError (the
C++ verifier on IR built without lang), never crash and never produce PTX.
"""
import re

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlir import ir

from mbarrier_dialect import CompileError, SyncCheckWarning
from mbarrier_dialect.dialects import mbarrier
from mbarrier_dialect.dialects.mbarrier import Scope, Semantics
from mbarrier_dialect.lang import Kernel, MBarrier, TMABar, if_then

CLUSTER = 4
DEPTH = 3

stage = st.integers(0, DEPTH - 1)
rank = st.integers(0, CLUSTER - 1)
arrive_sem = st.sampled_from([None, Semantics.release, Semantics.relaxed])
wait_sem = st.sampled_from([None, Semantics.acquire, Semantics.relaxed])
scope = st.sampled_from([None, Scope.cta, Scope.cluster])

legal_op = st.one_of(
    st.tuples(st.just("arrive"), stage, st.one_of(st.none(), st.integers(1, 2**20 - 1)),
              arrive_sem, scope),
    st.tuples(st.just("arrive_on"), stage, rank, st.booleans()),
    st.tuples(st.just("remote_arrive"), stage, rank, st.booleans(), arrive_sem, scope),
    st.tuples(st.just("remote_tx"), stage, rank, st.integers(0, 2**20 - 1)),
    st.tuples(st.just("local_tx"), stage, st.integers(0, 2**20 - 1)),
    st.tuples(st.just("wait"), stage, st.integers(0, 1), wait_sem, scope),
    st.tuples(st.just("try_wait"), stage, st.integers(0, 1)),
    st.tuples(st.just("test_wait"), stage, st.integers(0, 1)),
    st.tuples(st.just("ptr"), stage, st.one_of(st.none(), rank)),
)


# The legal ops that arrive on another CTA's barrier (a remote view or
# `on %cta`), and those that arrive on the CTA's own barrier.
REMOTE_ARRIVALS = ("arrive_on", "remote_arrive", "remote_tx")
LOCAL_ARRIVALS = ("arrive", "local_tx")


def _arrive_instructions(ptx):
    """The mbarrier.arrive* instructions of the PTX, one per line (a guard
    predicate, if any, stripped; whitespace normalized)."""
    found = []
    for line in ptx.splitlines():
        text = re.sub(r"^@!?%p\d+\s+", "", line.strip())
        if text.startswith("mbarrier.arrive"):
            found.append(" ".join(text.split()))
    return found


def emit(op, bar, tma, k):
    kind, *a = op
    if kind == "arrive":
        bar.arrive(a[0], count=a[1], sem=a[2], scope=a[3])
    elif kind == "arrive_on":
        bar.arrive(a[0], cta_id=a[1], pred=k.is_thread(0) if a[2] else None)
    elif kind == "remote_arrive":
        bar.remote_view(a[1]).arrive(a[0], pred=k.is_thread(0) if a[2] else None,
                                     sem=a[3], scope=a[4])
    elif kind == "remote_tx":
        tma.remote_view(a[1]).arrive(a[0], tx_count=a[2])
    elif kind == "local_tx":
        tma.arrive(a[0], tx_count=a[1])
    elif kind == "wait":
        bar.wait(a[0], a[1], sem=a[2], scope=a[3])
    elif kind == "try_wait":
        bar.try_wait(a[0], a[1])
    elif kind == "test_wait":
        bar.test_wait(a[0], a[1])
    elif kind == "ptr":
        (bar if a[1] is None else bar.remote_view(a[1])).ptr_to(a[0])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(legal_op, min_size=1, max_size=12), phase_offset=st.integers(0, 1))
def test_legal_sequences_verify_lower_and_assemble(ops, phase_offset):
    with Kernel("prop", block=64, cluster=CLUSTER) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, DEPTH, phase_offset=phase_offset)
        tma = TMABar(pool, DEPTH)
        pool.commit()
        bar.init(count=1)
        tma.init(count=1)
        k.fence_barrier_init()
        for op in ops:
            emit(op, bar, tma, k)
    # Random op sequences are not barrier protocols: the synchronization
    # checker may reject them (it must not crash on them, checked below).
    compiled = k.compile(check_sync=False)
    assert compiled.cubin[:4] == b"\x7fELF"
    try:
        with warnings.catch_warnings():  # its warnings on a random sequence are expected
            warnings.simplefilter("ignore", SyncCheckWarning)
            k.compile(emit="nvvm")
    except CompileError as e:  # the checker's located diagnostics, nothing else
        # The error (its diagnostics), then the warnings the error keeps.
        assert e.diagnostics and e.message == "\n".join(e.diagnostics)
        assert str(e) == "\n".join([e.message, *e.warnings])
        assert all(re.match(r"\S+:\d+:\d+: (error|note|warning): ", line)
                   for line in str(e).splitlines())
    ptx = compiled.ptx
    if any(op[0] in REMOTE_ARRIVALS for op in ops):
        assert "mapa.shared::cluster" in ptx and "shared::cluster.b64 _," in ptx
    else:  # (an unused mbarrier.ptr of a view is dead code: no mapa either)
        assert "mapa" not in ptx and "shared::cluster.b64" not in ptx
    # Every arrival is exactly one PTX arrive instruction: each remote one
    # (through a remote view or `on %cta`) a shared::cluster form, each local
    # one a local form; none is lost, duplicated or turned into the other.
    n_remote = sum(op[0] in REMOTE_ARRIVALS for op in ops)
    n_local = sum(op[0] in LOCAL_ARRIVALS for op in ops)
    arrives = _arrive_instructions(ptx)
    cluster_forms = [a for a in arrives if ".shared::cluster.b64 _," in a]
    local_forms = [a for a in arrives if ".shared.b64 " in a or ".shared::cta.b64 " in a]
    assert len(cluster_forms) == n_remote, (ops, arrives)
    assert len(local_forms) == n_local, (ops, arrives)
    assert len(arrives) == n_remote + n_local, (ops, arrives)
    # shared::cluster appears only in the arrivals (a count-less one may carry
    # its predicate as a guard, @p) and the mapa that feeds them.
    for line in ptx.splitlines():
        if "shared::cluster" in line:
            text = re.sub(r"^@!?%p\d+\s+", "", line.strip())
            assert text.startswith(("mbarrier.arrive", "mapa.shared::cluster")), line


illegal_op = st.one_of(
    st.tuples(st.just("remote_init"), rank),
    st.tuples(st.just("remote_wait"), rank, st.integers(0, 1)),
    st.tuples(st.just("nested_view"), rank, rank),
    st.tuples(st.just("view_with_cta_id"), rank, rank),
    st.tuples(st.just("stage_out_of_range"), st.integers(DEPTH, 2**31 - 1)),
    st.tuples(st.just("negative_stage"), st.integers(-2**31, -1)),
    st.tuples(st.just("count_out_of_range"), st.one_of(st.integers(-2**31, 0),
                                                       st.integers(2**20, 2**31 - 1))),
    st.tuples(st.just("tx_out_of_range"), st.one_of(st.integers(-2**31, -1),
                                                     st.integers(2**20, 2**31 - 1))),
    st.tuples(st.just("phase_out_of_range"), st.integers(2, 2**31 - 1)),
    st.tuples(st.just("rank_out_of_range"), st.integers(CLUSTER, 2**31 - 1)),
)


def emit_illegal(op, bar, tma):
    kind, *a = op
    if kind == "remote_init":
        bar.remote_view(a[0]).init(count=1)
    elif kind == "remote_wait":
        bar.remote_view(a[0]).wait(0, a[1])
    elif kind == "nested_view":
        bar.remote_view(a[0]).remote_view(a[1])
    elif kind == "view_with_cta_id":
        tma.remote_view(a[0]).arrive(0, tx_count=16, cta_id=a[1])
    elif kind in ("stage_out_of_range", "negative_stage"):
        bar.arrive(a[0])
    elif kind == "count_out_of_range":
        bar.arrive(0, count=a[0])
    elif kind == "tx_out_of_range":
        tma.arrive(0, tx_count=a[0])
    elif kind == "phase_out_of_range":
        bar.wait(0, a[0])
    elif kind == "rank_out_of_range":
        bar.remote_view(a[0])


@settings(max_examples=60, deadline=None)
@given(op=illegal_op)
def test_illegal_operations_raise_value_error_in_lang(op):
    with pytest.raises(ValueError, match=r"test_properties\.py:\d+:\d+: error: 'mbarrier\.\w+' op "):
        with Kernel("prop", block=32, cluster=CLUSTER) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, DEPTH)
            tma = TMABar(pool, DEPTH)
            pool.commit()
            emit_illegal(op, bar, tma)


# The same rules on IR that bypasses lang (the generated op classes with
# constants): the C++ verifier rejects it with a located ir.MLIRError.
@settings(max_examples=60, deadline=None)
@given(index=st.integers(-2**31, 2**31 - 1), count=st.integers(-2**31, 2**31 - 1),
       phase=st.integers(-2**31, 2**31 - 1), remote=st.booleans())
def test_verifier_rejects_what_lang_would(index, count, phase, remote):
    from mlir.dialects import arith, func

    legal = (0 <= index < DEPTH and 1 <= count < 2**20 and phase in (0, 1) and not remote)
    with ir.Context() as ctx, ir.Location.unknown():
        import mbarrier_dialect

        mbarrier_dialect.register_dialect(ctx)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", ir.FunctionType.get([], []))
            with ir.InsertionPoint(f.add_entry_block()):
                g = mbarrier.AllocOp(mbarrier.GroupType.get(DEPTH)).result
                bars = mbarrier.RemoteViewOp(g, cta_rank=1).result if remote else g
                i32 = ir.IntegerType.get_signless(32)
                idx = arith.ConstantOp(ir.IndexType.get(), index).result
                mbarrier.InitOp(bars, idx, arith.ConstantOp(i32, count).result)
                mbarrier.WaitOp(bars, idx, arith.ConstantOp(i32, phase).result)
                func.ReturnOp([])
        if legal:
            assert module.operation.verify()
            return
        # What each broken rule says (the first failing op is reported).
        expected = []
        if remote:
            expected.append("cannot be initialized through a remote view")
        if not 0 <= index < DEPTH:
            expected.append(f"barrier index {index} is out of range")
        if not 1 <= count < 2**20:
            expected.append(f"arrival count {count} is out of range")
        if phase not in (0, 1):
            expected.append(f"phase must be 0 or 1, got {phase}")
        with pytest.raises(ir.MLIRError) as err:
            module.operation.verify()
        assert any(text in str(err.value) for text in expected), (expected, str(err.value))


def test_illegal_ir_never_reaches_ptx():
    """A verifier failure stops compile() before any PTX is produced."""
    text = """
    module attributes {gpu.container_module} {
      gpu.module @m {
        gpu.func @k(%r: i32) kernel {
          %c0 = arith.constant 0 : index
          %g = mbarrier.alloc : !mbarrier.group<1>
          %v = mbarrier.remote_view %g, %r : !mbarrier.group<1>
          %c1 = arith.constant 1 : i32
          mbarrier.init %v[%c0], %c1 : !mbarrier.remote<1>
          gpu.return
        }
      }
    }"""
    with pytest.raises(CompileError, match="cannot be initialized through a remote view"):
        from mbarrier_dialect import compile
        compile(text)
