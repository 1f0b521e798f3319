"""lang control flow: for_range with carried values, the Python-range form,
if_else yielding values, and Python ints where a value is expected. What the
built code computes is checked by running it (host JIT); what a kernel
builds is checked in its IR and PTX."""
import pytest
from lang_jit import jit
from mlir import ir

from mbarrier_dialect import SyncCheckWarning, lang
from mbarrier_dialect.lang import Kernel, MBarrier, for_range, if_else, if_then


def test_for_range_carries_values():
    def triangle(n):
        with for_range(0, n, carry=[0, 1]) as loop:
            total, parity = loop.carry
            loop.next(total + loop.iv, parity ^ 1)
        total, parity = loop.results
        return total * 10 + parity

    call, ty = jit(["i32"], triangle)
    assert ty == "i32"
    for n in (0, 1, 5, 10):
        assert call(n) == sum(range(n)) * 10 + (1 ^ (n & 1)), n


def test_for_range_bounds_and_step():
    def stepped(lo, hi):
        with for_range(lo, hi, 3, carry=[0]) as loop:
            loop.next(loop.carry[0] + 1)
        return loop.results[0]

    call, _ = jit(["i32", "i32"], stepped)
    for lo, hi in ((0, 10), (-5, 5), (7, 3)):
        assert call(lo, hi) == len(range(lo, hi, 3)), (lo, hi)
    # An index bound makes an index loop; an i64 one an i64 loop.
    call, ty = jit(["index"], lambda n: _count(n))
    assert ty == "index" and call(6) == 6
    call, ty = jit(["i64"], lambda n: _count(n))
    assert ty == "i64" and call(2**33 // 2**30) == 8


def _count(n):
    with for_range(0, n, carry=[n - n]) as loop:
        loop.next(loop.carry[0] + 1)
    return loop.results[0]


def test_range_is_pythons_range_for_kernels():
    def sums(n):
        acc = lang.range(n, carry=[0])
        for i in acc:
            (total,) = acc.carry
            acc.next(total + i)
        evens = lang.range(0, n, 2, carry=[0])
        for i in evens:
            evens.next(evens.carry[0] + i)
        return acc.results[0] * 1000 + evens.results[0]

    call, _ = jit(["i32"], sums)
    for n in (0, 1, 7, 10):
        assert call(n) == sum(range(n)) * 1000 + sum(range(0, n, 2)), n


def test_range_without_carry_in_a_kernel():
    with Kernel("k", block=32, params=[("out", "ptr"), ("n", "i32")]) as k:
        for i in lang.range(k.param("n")):
            k.store(i * 2, k.param("out"), i)
    text = str(k.module)
    assert text.count("scf.for") == 1 and "arith.muli" in text
    assert "st.global.b32" in k.compile().ptx


def test_if_else_yields_values():
    def pick(a):
        branch = if_else(a < 0)
        with branch.then():
            branch.yield_(-a, 1)
        with branch.otherwise():
            branch.yield_(a * 2, 0)
        value, negative = branch.results
        return value * 10 + negative

    call, _ = jit(["i32"], pick)
    assert [call(x) for x in (-3, 0, 4)] == [31, 0, 80]


def test_if_else_unifies_the_branches_types():
    def widen(a, b):
        branch = if_else(a < 0)
        with branch.then():
            branch.yield_(a)        # i32
        with branch.otherwise():
            branch.yield_(b)        # i64: the result is i64, a sign-extended
        (r,) = branch.results
        return r

    call, ty = jit(["i32", "i64"], widen)
    assert ty == "i64" and call(-5, 2**40) == -5 and call(5, 2**40) == 2**40

    def ints(a):
        branch = if_else(a < 0)
        with branch.then():
            branch.yield_(7)        # a Python int takes the other branch's type
        with branch.otherwise():
            branch.yield_(a.to("i64"))
        return branch.results[0]

    call, ty = jit(["i32"], ints)
    assert ty == "i64" and call(-1) == 7 and call(9) == 9


def test_nested_control_flow_with_yields():
    def nested(a):
        outer = if_else(a > 10)
        with outer.then():
            inner = if_else(a > 100)
            with inner.then():
                inner.yield_(3)
            with inner.otherwise():
                inner.yield_(2)
            outer.yield_(inner.results[0])
        with outer.otherwise():
            with for_range(0, a, carry=[0]) as loop:
                with if_then(loop.iv % 2 == 0):
                    pass
                loop.next(loop.carry[0] + 1)
            outer.yield_(loop.results[0] - a)  # 0 for a >= 0
        return outer.results[0]

    call, _ = jit(["i32"], nested)
    assert [call(x) for x in (5, 50, 500)] == [0, 2, 3]


def test_if_else_without_values_and_if_then():
    with Kernel("k", block=32, cluster=2, params=[("out", "ptr")]) as k:
        rank = k.cluster_rank()
        branch = if_else(rank == 0)
        with branch.then():
            k.store(1, k.param("out"), 0)
        with branch.otherwise():
            k.store(2, k.param("out"), 1)
        assert branch.results == []
    text = str(k.module)
    assert "scf.if" in text and "} else {" in text


@pytest.mark.parametrize("misuse, error, message", [
    (lambda k: _yield_counts(k, (1,), (1, 2)), ValueError, "branches yield 1 and 2 values"),
    (lambda k: _yield_counts(k, (1,), None), ValueError, "branches yield 1 and 0 values"),
    (lambda k: if_else(k.param("n") == 0).yield_(1), RuntimeError, "yield_\\(\\) belongs inside"),
    (lambda k: if_else(k.param("n") == 0).results, RuntimeError, "once both branches are built"),
    (lambda k: _loop_without_next(k), ValueError, "must call loop.next"),
    (lambda k: _loop_next_count(k), ValueError, "the loop carries 1 values, next\\(\\) got 2"),
    (lambda k: for_range(0, 4, 0).__enter__(), ValueError, "a loop step must be positive, got 0"),
    (lambda k: for_range(0, 4.0).__enter__(), TypeError, "a loop bound is an int or an integer value"),
    (lambda k: for_range(0, k.param("n") == 1).__enter__(), TypeError,
     "a loop bound is an integer value, got a i1 value"),
    (lambda k: _range_twice(k), RuntimeError, "a lang.range is iterated once"),
    (lambda k: lang.range(3).carry, RuntimeError, "iterate the range first"),
    (lambda k: lang.unrolled_range(0, 4, lambda iv: [], unroll=True), ValueError,
     "unroll must be a positive int"),
])
def test_control_flow_misuse(misuse, error, message):
    with pytest.raises(error, match=message):
        with Kernel("k", block=32, params=[("out", "ptr"), ("n", "i32")]) as k:
            misuse(k)


def _yield_counts(k, then, other):
    branch = if_else(k.param("n") == 0)
    with branch.then():
        branch.yield_(*then)
    with branch.otherwise():
        if other is not None:
            branch.yield_(*other)
    return branch.results


def _loop_without_next(k):
    with for_range(0, 4, carry=[0]):
        pass


def _loop_next_count(k):
    with for_range(0, 4, carry=[0]) as loop:
        loop.next(1, 2)


def _range_twice(k):
    r = lang.range(3)
    for _ in r:
        pass
    for _ in r:
        pass


@pytest.mark.parametrize("leave", ["break", "return"])
def test_break_or_return_in_a_range_body_fails_the_kernel(leave):
    """The body is built once: Python's break cannot stop the loop when the
    kernel runs, so leaving early is an error, not silently different code."""
    def body(k):
        for i in lang.range(k.param("n")):
            k.store(i, k.param("out"), i)
            if leave == "break":
                break
            return

    with pytest.raises(RuntimeError, match=r"test_lang_control\.py:\d+:\d+: a lang.range loop "
                       r"body was left early \(break or return\)"):
        with Kernel("k", block=32, params=[("out", "ptr"), ("n", "i32")]) as k:
            body(k)


def test_an_exception_in_a_range_body_propagates():
    with pytest.raises(ZeroDivisionError):
        with Kernel("k", block=32, params=[("out", "ptr"), ("n", "i32")]) as k:
            for _ in lang.range(k.param("n")):
                1 / 0


def test_python_ints_where_values_are_expected():
    """Python ints convert wherever an IR value goes (they used to fail inside
    upstream builders): stored values, carried values, yields, stages,
    phases, counts and ranks."""
    with Kernel("k", block=32, cluster=2, params=[("out", "ptr"), ("f", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 2)
        buf = pool.alloc((2, 4), "f32")
        pool.commit()
        k.prologue({bar: 1})
        k.store(7, k.param("out"), 0)                      # i32 constant
        k.store(1.5, k.param("f"), 0, dtype="f32")
        buf.store(2, (1, 3))                               # the buffer's f32
        with for_range(0, 4, carry=[0]) as loop:
            loop.next(1)
        branch = if_else(k.cluster_rank() == 0)
        with branch.then():
            branch.yield_(5)
        with branch.otherwise():
            branch.yield_(6)
        k.store(branch.results[0] + loop.results[0], k.param("out"), 1)
        bar.arrive(1, cta_id=1, count=1)
        bar.wait(1, 0)
        k.epilogue()
    text = str(k.module)
    assert "arith.constant 7 : i32" in text and "arith.constant 1.500000e+00 : f32" in text
    assert "arith.constant 2.000000e+00 : f32" in text
    # Not a barrier protocol (both CTAs arrive on CTA 1 only, then wait):
    # this test is about values, so the synchronization checker is off.
    ptx = k.compile(check_sync=False).ptx
    assert "st.global.b32" in ptx and "st.shared.b32" in ptx


def test_storing_a_value_of_another_type_is_refused():
    with pytest.raises(TypeError, match=r"storing a i64 value into i32 elements: convert it with "
                       r"\.to\('i32'\)"):
        with Kernel("k", block=32, params=[("out", "ptr")]) as k:
            pool = k.smem_pool()
            buf = pool.alloc(4, "i32")
            pool.commit()
            buf.store(k.thread_rank().to("i64"), 0)


def test_multi_dimensional_buffer_index():
    call_ir = []
    with Kernel("k", block=32, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        ring = pool.alloc((3, 32), "i32")
        pool.commit()
        ring.store(k.thread_rank(), (2, k.thread_rank()))
        call_ir.append(k.load(ring, (1, 5)))
    text = str(k.module)
    # (2, t) -> 2 * 32 + t; (1, 5) -> 37 folded by the Python ints
    assert "arith.constant 64 : i32" in text and "arith.constant 37 : i32" in text
    with pytest.raises(TypeError, match="a 1-dimensional index for a buffer of shape \\(3, 32\\)"):
        with Kernel("k", block=32) as k:
            pool = k.smem_pool()
            ring = pool.alloc((3, 32), "i32")
            pool.commit()
            ring.load((1,))
    assert isinstance(call_ir[0], ir.Value)


def test_an_error_handled_inside_the_kernel_leaves_it_well_formed():
    """A ValueError raised in the body of if_then / if_else / for_range and
    handled by the caller leaves every region terminated: the kernel still
    verifies and compiles."""
    with Kernel("k", block=32, cluster=2, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        for build in (lambda: if_then(k.is_thread(0)), lambda: for_range(0, 4, carry=[0])):
            with pytest.raises(ValueError, match="barrier index 3"):
                with build():
                    bar.arrive(3)
        branch = if_else(k.is_thread(1))
        with pytest.raises(ValueError, match="phase must be 0 or 1"):
            with branch.then():
                bar.wait(0, 2)
        with branch.otherwise():
            bar.arrive(0)
        k.store(1, k.param("out"), 0)
    # 31 threads arrive on a count-1 barrier: the checker says so.
    with pytest.warns(SyncCheckWarning, match="initialized with arrival count 1"):
        assert k.compile().ptx
