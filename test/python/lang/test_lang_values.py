"""lang values: every Python operator builds the arith op of the integer rules
(checked by running it, JIT-compiled on the host, against Python's own
result, and by the PTX instruction it becomes), and a Python bool never
decides what code is emitted."""
import math
import operator as O
import re

import numpy as np
import pytest
from lang_jit import jit
from mlir import ir

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, MBarrier, for_range, if_else, if_then
from mbarrier_dialect.lang import values as V

def wrap_int(x, bits):
    return (x + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))


BINARY = {"+": O.add, "-": O.sub, "*": O.mul, "//": O.floordiv, "%": O.mod, "&": O.and_,
          "|": O.or_, "^": O.xor, "<<": O.lshift, ">>": O.rshift, "==": O.eq, "!=": O.ne,
          "<": O.lt, "<=": O.le, ">": O.gt, ">=": O.ge}
SAMPLES = [-2**31, -2**31 + 1, -13, -7, -2, -1, 0, 1, 2, 3, 7, 13, 100, 2**31 - 1]


def _valid(name, a, b, bits):
    if name in ("//", "%"):
        return b != 0 and not (a == -(1 << (bits - 1)) and b == -1)
    if name in ("<<", ">>"):
        return 0 <= b < bits
    return True


@pytest.mark.parametrize("ty", ["i32", "i64", "index"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_operator_computes_what_python_computes(name, ty):
    """Each integer operator on two values, run on the host: Python's result
    wrapped to the width (floor //, %, arithmetic >>, signed comparisons)."""
    bits = 64 if ty in ("i64", "index") else 32
    call, result = jit([ty, ty], lambda a, b: BINARY[name](a, b))
    assert result == ("i1" if name in ("==", "!=", "<", "<=", ">", ">=") else ty)
    samples = SAMPLES + ([-2**63, 2**63 - 1, 2**40 + 3, -2**40 - 5] if bits == 64 else [])
    for a in samples:
        for b in samples + [5, 31, bits - 1]:
            if not _valid(name, a, b, bits):
                continue
            expect = BINARY[name](a, b)
            expect = int(expect) if isinstance(expect, bool) else wrap_int(expect, bits)
            assert call(a, b) == expect, (a, name, b)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_python_int_operands_on_either_side(name):
    """`v op 7` and `7 op v` (reflected) both convert the int to the value's type."""
    if name in ("<<", ">>"):
        right, left = 3, 7
    else:
        right = left = 7
    call_r, _ = jit(["i32"], lambda a: BINARY[name](a, right))
    call_l, _ = jit(["i32"], lambda a: BINARY[name](left, a))
    for a in (-13, -7, -1, 1, 2, 7, 13, 2**31 - 1):
        assert call_r(a) == wrap_int(int(BINARY[name](a, right)), 32), (a, name)
        if name in ("<<", ">>") and not 0 <= a < 32:
            continue
        if name in ("//", "%") and a == 0:
            continue
        assert call_l(a) == wrap_int(int(BINARY[name](left, a)), 32), (name, a)


def test_unary_operators():
    neg, _ = jit(["i32"], lambda a: -a)
    inv, _ = jit(["i32"], lambda a: ~a)
    pos, _ = jit(["i64"], lambda a: +a)
    for a in SAMPLES:
        assert neg(a) == wrap_int(-a, 32)
        assert inv(a) == ~a
        assert pos(a) == a
    not_, ty = jit(["i32"], lambda a: ~(a < 0))
    assert ty == "i1" and not_(-1) == 0 and not_(1) == 1


def test_floor_division_and_modulo_are_pythons():
    """The ring neighbour (rank - 1) % n is n - 1 for rank 0, not -1."""
    prev, _ = jit(["i32"], lambda rank: (rank - 1) % 4)
    assert [prev(r) for r in range(4)] == [3, 0, 1, 2]
    div, _ = jit(["i32", "i32"], lambda a, b: a // b)
    assert div(-7, 2) == -4 and div(7, -2) == -4 and div(-7, -2) == 3


def test_predicates_and_i1_operators():
    ops = {"&": O.and_, "|": O.or_, "^": O.xor, "==": O.eq, "!=": O.ne}
    for name, op in ops.items():
        call, ty = jit(["i32", "i32"], lambda a, b, op=op: op(a < 0, b < 0))
        assert ty == "i1"
        for a in (-1, 1):
            for b in (-1, 1):
                assert call(a, b) == int(op(a < 0, b < 0)), (name, a, b)


def test_promotion_sign_extends_to_the_wider_type():
    add, ty = jit(["i32", "i64"], lambda a, b: a + b)
    assert ty == "i64" and add(-1, 0) == -1 and add(2**31 - 1, 1) == 2**31
    add, ty = jit(["index", "i32"], lambda a, b: a + b)
    assert ty == "index" and add(0, -5) == -5
    add, ty = jit(["i16", "i32"], lambda a, b: b - a)
    assert ty == "i32" and add(-3, 0) == 3
    cmp_, ty = jit(["i32", "i64"], lambda a, b: a < b)
    assert ty == "i1" and cmp_(-1, 0) == 1  # signed: -1 < 0 (not 0xFFFFFFFF)


def test_conversions():
    cases = [
        (["i32"], lambda a: (a < 0).to("i32"), [(-4, 1), (4, 0)]),   # i1 -> 0 or 1
        (["i32"], lambda a: a.to("i64"), [(-4, -4), (2**31 - 1, 2**31 - 1)]),
        (["i64"], lambda a: a.to("i32"), [(2**32 + 5, 5), (-1, -1)]),
        (["i32"], lambda a: a.to("index"), [(-4, -4)]),
        (["i32"], lambda a: a.to("f32").to("i32"), [(-4, -4), (1000, 1000)]),
        (["f32"], lambda a: a.to("i32"), [(-2.75, -2), (2.75, 2)]),
        (["i32"], lambda a: lang.select(a < 0, -a, a), [(-4, 4), (5, 5)]),
    ]
    for types, fn, pairs in cases:
        call, _ = jit(types, fn)
        for arg, expect in pairs:
            assert call(arg) == expect, (arg, expect)


FLOAT = {"+": O.add, "-": O.sub, "*": O.mul, "/": O.truediv, "==": O.eq, "!=": O.ne,
         "<": O.lt, "<=": O.le, ">": O.gt, ">=": O.ge}


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_float_operators(name):
    call, _ = jit(["f32", "f32"], lambda a, b: FLOAT[name](a, b))
    samples = [-2.5, -1.0, 0.0, 0.5, 3.0, float("nan"), float("inf")]
    for a in samples:
        for b in samples:
            if name == "/" and b == 0:
                continue
            with np.errstate(all="ignore"):
                expect = FLOAT[name](np.float32(a), np.float32(b))
            got = call(a, b)
            if isinstance(expect, (bool, np.bool_)):
                assert got == int(expect), (a, name, b)
            else:
                assert (math.isnan(got) and math.isnan(expect)) or got == expect, (a, name, b)
    neg, _ = jit(["f32"], lambda a: -a)
    assert neg(2.5) == -2.5
    scaled, ty = jit(["f32"], lambda a: 2 * a + 0.5)  # Python numbers become f32 constants
    assert ty == "f32" and scaled(1.25) == 3.0


# -- the PTX each operator becomes ---------------------------------------------

def _ptx_of(ty, fn, store_as=None):
    with Kernel("op", block=1, params=[("out", "ptr"), ("a", ty), ("b", ty)]) as k:
        r = fn(k.param("a"), k.param("b"))
        if str(r.type) == "i1":
            r = r.to("i32")
        if store_as:
            r = r.to(store_as)
        k.store(r, k.param("out"), 0)
    ptx = k.compile().ptx
    regs = dict(re.findall(r"ld\.param\.b(?:32|64)\s+(%r[d]?\d+), \[op_param_(\d)\];", ptx))
    regs = {v: r for r, v in regs.items()}
    return ptx, regs.get("1"), regs.get("2")


# operator -> (PTX mnemonic for i32, whether the operands may come in either order)
PTX_FORMS = {
    "+": ("add.s32", True), "-": ("sub.s32", False), "*": ("mul.lo.s32", True),
    "//": ("div.s32", False), "%": ("rem.s32", False), "&": ("and.b32", True),
    "|": ("or.b32", True), "^": ("xor.b32", True), "<<": ("shl.b32", False),
    ">>": ("shr.s32", False), "==": ("setp.eq.b32", True), "!=": ("setp.ne.b32", True),
    "<": ("setp.lt.s32", False), "<=": ("setp.le.s32", False), ">": ("setp.gt.s32", False),
    ">=": ("setp.ge.s32", False),
}


def _has(ptx, mnemonic, dst_kind, a, b, commutative):
    orders = [(a, b), (b, a)] if commutative else [(a, b)]
    return any(re.search(rf"{re.escape(mnemonic)}\s+%{dst_kind}\d+, {re.escape(x)}, {re.escape(y)};", ptx)
               for x, y in orders)


@pytest.mark.parametrize("name", sorted(PTX_FORMS))
def test_each_operator_becomes_its_signed_ptx_instruction(name):
    mnemonic, commutative = PTX_FORMS[name]
    for ty, suffix, reg in (("i32", "32", "r"), ("i64", "64", "rd")):
        ptx, a, b = _ptx_of(ty, lambda x, y: BINARY[name](x, y), "i32" if name in ("<<", ">>") else None)
        assert a and b, ptx
        if name in ("<<", ">>") and ty == "i64":
            # the count is a 32-bit register in PTX: b converted with cvt
            assert re.search(rf"{re.escape(mnemonic.replace('32', '64'))}\s+%rd\d+, {a}, %r\d+;", ptx), ptx
            continue
        dst = "p" if mnemonic.startswith("setp") else reg
        assert _has(ptx, mnemonic.replace("32", suffix), dst, a, b, commutative), (ty, ptx)
        # no unsigned form of the operation anywhere (i64 division has a
        # 32-bit fast path for operands that are non-negative 32-bit values)
        unsigned = {"//": "div.u", "%": "rem.u", ">>": "shr.u", "<": "setp.lt.u", "<=": "setp.le.u",
                    ">": "setp.gt.u", ">=": "setp.ge.u"}.get(name)
        if unsigned and ty == "i32":
            assert unsigned not in ptx, ptx


def test_unary_and_float_and_predicate_ptx():
    ptx, a, _ = _ptx_of("i32", lambda x, y: -x)
    assert re.search(rf"neg\.s32\s+%r\d+, {a};", ptx)
    ptx, a, _ = _ptx_of("i32", lambda x, y: ~x)
    assert re.search(rf"not\.b32\s+%r\d+, {a};", ptx)
    for name, mnemonic, comm in (("+", "add.rn.f32", True), ("-", "sub.rn.f32", False),
                                 ("*", "mul.rn.f32", True), ("<", "setp.lt.f32", False),
                                 ("!=", "setp.neu.f32", True)):
        ptx, a, b = _ptx_of("f32", lambda x, y: FLOAT[name](x, y))
        assert _has(ptx, mnemonic, "p" if "setp" in mnemonic else "r", a, b, comm), (name, ptx)
    ptx, a, b = _ptx_of("f32", lambda x, y: x / y)
    assert re.search(rf"div\.rn\.f32\s+%r\d+, {a}, {b};", ptx), ptx
    for op, mnemonic in ((O.and_, "and.pred"), (O.or_, "or.pred"), (O.xor, "xor.pred")):
        ptx, _, _ = _ptx_of("i32", lambda x, y: op(x < 5, y < 7))
        assert re.search(rf"{mnemonic}\s+%p\d+, %p\d+, %p\d+;", ptx), ptx


def test_index_values_store_through_a_conversion():
    ptx, a, b = _ptx_of("i32", lambda x, y: (x.to("index") + y), store_as="i64")
    assert "add.s64" in ptx
    with pytest.raises(TypeError, match="an index value has no size in memory"):
        with Kernel("k", block=1, params=[("out", "ptr"), ("a", "i32")]) as k:
            k.store(k.param("a").to("index"), k.param("out"), 0)


# -- Python bools and values never decide at build time -----------------------

def _kernel():
    k = Kernel("k", block=32, cluster=2, params=[("out", "ptr"), ("n", "i32")])
    return k


def test_comparisons_are_values_not_python_bools():
    """The bug of the issue: `rank == 0` was a plain False, so the guarded
    remote arrive disappeared; `rank != 1` was True, so it ran everywhere."""
    with Kernel("k", block=32, cluster=4) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        rank = k.cluster_rank()
        assert isinstance(rank == 0, ir.Value) and str((rank == 0).type) == "i1"
        with if_then(rank == 0):
            bar.remote_view(1).arrive(0)
        with if_then(rank != 1):
            bar.arrive(0)
    # (A branch-form test, no protocol: no init, no final cluster barrier.)
    ptx = k.compile(check_sync=False).ptx
    # Each arrive sits behind its own branch on the rank: skipped where
    # rank != 0 (remote) and where rank == 1 (local).
    remote = ptx.index("mbarrier.arrive.release.cluster.shared::cluster.b64")
    local = ptx.index("mbarrier.arrive.shared.b64")
    guard0 = re.search(r"setp\.ne\.b32\s+(%p\d+), %r\d+, 0;\s+@\1 bra", ptx)
    guard1 = re.search(r"setp\.eq\.b32\s+(%p\d+), %r\d+, 1;\s+@\1 bra", ptx)
    assert guard0 and guard1, ptx
    assert guard0.start() < remote and guard1.start() < local, ptx


@pytest.mark.parametrize("misuse", [
    lambda k: if_then(True).__enter__(),
    lambda k: if_then(False).__enter__(),
    lambda k: if_else(True),
    lambda k: for_range(0, True).__enter__(),
    lambda k: for_range(False, 4).__enter__(),
    lambda k: iter(lang.range(True)).__next__(),
    lambda k: V.as_i1(True),
    lambda k: V.as_i1(False),
    lambda k: lang.select(True, 1, k.param("n")),
    lambda k: k.param("n") + True,
    lambda k: True & (k.param("n") == 0),
    lambda k: k.store(True, k.param("out"), 0),
    lambda k: k.load(k.param("out"), False),
])
def test_a_python_bool_is_refused_with_the_reason(misuse):
    with pytest.raises(TypeError, match="Python bool"):
        with _kernel() as k:
            misuse(k)


def test_barrier_predicates_refuse_python_bools():
    with pytest.raises(TypeError, match="the predicate is the Python bool True"):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1)
            pool.commit()
            bar.arrive(0, pred=True)
    with pytest.raises(TypeError, match="Python bool"):
        with Kernel("k", block=32, cluster=2) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1, leader=True)
            pool.commit()
            bar.init(count=1)


@pytest.mark.parametrize("use", [
    lambda v: bool(v),
    lambda v: v == 0 and True,
    lambda v: not (v < 3),
    lambda v: (v == 0) or True,
    lambda v: 1 if v > 2 else 0,
    lambda v: int(v),
    lambda v: range(v),
    lambda v: [0, 1][v],
])
def test_a_value_has_no_build_time_truth_or_int(use):
    with pytest.raises(TypeError, match="only known when the kernel runs|no Python truth value"):
        with _kernel() as k:
            use(k.param("n"))


def test_an_explicit_constant_predicate():
    """const(True) is the spelling of a constant predicate: the code is
    emitted under an scf.if on it (and folded by the compiler)."""
    with Kernel("k", block=32, params=[("out", "ptr")]) as k:
        t = lang.const(True)
        assert str(t.type) == "i1"
        with if_then(t):
            k.store(1, k.param("out"), 0)
    assert "scf.if %true" in str(k.module)
    assert "st.global.b32" in k.compile().ptx


@pytest.mark.parametrize("expr, error, message", [
    (lambda n: n + 2**31, ValueError, r"the int 2147483648 does not fit in i32"),
    (lambda n: n - (-2**31 - 1), ValueError, r"does not fit in i32"),
    (lambda n: n << 32, ValueError, r"shift count 32 is out of range for i32 \(0 to 31\)"),
    (lambda n: n >> -1, ValueError, r"shift count -1 is out of range"),
    (lambda n: (n == 0) + 1, TypeError, r"an i1 mixes only with i1"),
    (lambda n: (n == 0) + n, TypeError, r"an i1 mixes only with i1"),
    (lambda n: (n == 0) < (n == 1), TypeError, r"not defined for i1 values \(only == and !=\)"),
    (lambda n: -(n == 0), TypeError, r"unary - is not defined for i1"),
    (lambda n: n / 2, TypeError, r"integer division is //"),
    (lambda n: n.to("f32") // 2, TypeError, r"floating-point division is /"),
    (lambda n: n + 1.5, TypeError, r"convert the value with .to\('f32'\)"),
    (lambda n: n + n.to("f32"), TypeError, r"convert one with .to\(\) first"),
    (lambda n: n + "1", TypeError, r"unsupported operand for `\+`: str"),
    (lambda n: n == None, TypeError, r"unsupported operand for `==`: NoneType"),  # noqa: E711
    (lambda n: n.to("i1"), TypeError, r"does not become an i1 by conversion"),
    (lambda n: lang.const(1, "i1"), TypeError, r"const\(True\)"),
])
def test_operator_type_rules(expr, error, message):
    with pytest.raises(error, match=message):
        with _kernel() as k:
            expr(k.param("n"))


def test_dtype_names():
    with ir.Context():
        for name, text in (("i32", "i32"), ("int32", "i32"), ("uint64", "i64"), ("f32", "f32"),
                           ("float32", "f32"), ("bf16", "bf16"), ("bfloat16", "bf16"),
                           ("f16", "f16"), ("index", "index"), (np.int16, "i16"),
                           (np.dtype("float64"), "f64")):
            assert str(V.dtype(name)) == text, name
        with pytest.raises(ValueError, match="unknown element type 'int33'; one of: bf16,"):
            V.dtype("int33")
        with pytest.raises(TypeError, match="an element type is a name"):
            V.dtype(3)


def test_values_from_lang_take_operators():
    """Ranks, thread ids, induction variables, carried values, loads, params
    and operator results are all lang Values."""
    with Kernel("k", block=(32, 2), cluster=2, params=[("out", "ptr"), ("n", "i32")]) as k:
        pool = k.smem_pool()
        buf = pool.alloc(4, "i32")
        pool.commit()
        got = [k.cluster_rank(), k.thread_rank(), k.block_rank(), k.param("n"), buf.load(0),
               k.load(k.param("out"), 1)]
        with for_range(0, k.param("n"), carry=[0]) as loop:
            got += [loop.iv, loop.carry[0]]
            loop.next(loop.carry[0] + 1)
        inside = got[-2:]
        got = got[:-2] + loop.results
        assert all(isinstance(v, V.Value) for v in got + inside)
        k.store(sum(got[1:], got[0]), k.param("out"), 0)
    assert k.compile().ptx
