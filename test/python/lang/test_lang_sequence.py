"""lang.OrderedSequence: the handles build the mbarrier.seq ops, a group's
state is carried through loops, the counts and phases are the lowering's,
and the verifier's rules reach the user as located errors."""
import re

import pytest

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, OrderedSequence, if_else


def _init_counts(ptx):
    """The arrival count of every mbarrier.init of `ptx` (an immediate or the
    value a mov.b32 put in the register)."""
    movs = dict(re.findall(r"mov\.b32\s+(%r\d+), (\d+);", ptx))
    counts = re.findall(r"mbarrier\.init\.shared\.b64\s+\[[^]]+\], (%r\d+|\d+);", ptx)
    return [int(movs.get(c, c)) for c in counts]


def _pingpong(body, *, groups=2, depth=2, arrivals=128):
    """Two (or more) 128-thread warp groups ordered by one sequence."""
    with Kernel("order", block=128 * groups, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        order = OrderedSequence(pool, depth, groups, arrivals=arrivals)
        pool.commit()
        k.prologue(sequences=[order])
        body(k, order, k.thread_rank() // 128)
    return k


def test_a_carried_state_compiles_to_the_derived_counts_and_phases():
    def body(k, order, wg):
        me = order.start(wg)
        for _ in lang.range(8, carry=[me]):
            for _stage in range(2):               # the mainloop, then the epilogue
                turn = me.wait()
                turn.arrive()

    compiled = _pingpong(body).compile()
    ptx = compiled.ptx
    assert compiled.warnings == []
    # D x L = 4 barriers, each with the 128 arrivals of a warp group.
    assert _init_counts(ptx) == [128] * 4
    # Every turn waited (a try_wait.parity loop) is handed on (ptxas may
    # unroll the constant trip count).
    waits = ptx.count("mbarrier.try_wait.parity.shared.b64")
    assert waits >= 2 and ptx.count("mbarrier.arrive.shared.b64") == waits


def test_state_is_carried_and_advanced_by_wait():
    def body(k, order, wg):
        me = order.start(wg)
        first = me.state
        loop = lang.range(4, carry=[me])
        for _ in loop:
            assert me.state != first             # the loop's iter_arg
            turn = me.wait()
            assert str(me.state.type) == "!mbarrier.seq_state"
            assert str(turn.value.type) == "!mbarrier.seq_turn"
            turn.arrive()
        assert "scf.for" in str(me.state.owner)  # the loop's result

    _pingpong(body)


def test_one_elected_lane_per_warp_arrives():
    def body(k, order, wg):
        turn = order.start(wg).wait()
        turn.arrive(pred=k.thread_rank() % 32 == 0)

    ptx = _pingpong(body, arrivals=4).compile().ptx
    assert _init_counts(ptx) == [4] * 4
    assert "mbarrier.arrive.shared.b64" in ptx


def test_a_turn_never_arrived_is_the_verifiers_error_at_the_wait():
    def body(k, order, wg):
        order.start(wg).wait()                   # no arrive: the next group hangs

    with pytest.raises(ValueError, match=r"test_lang_sequence\.py:\d+.*makes a turn that is never "
                                         r"arrived: seq\.arrive it exactly once on every path"):
        _pingpong(body)


def test_the_numbers_of_the_type_are_the_cpp_verifiers():
    with Kernel("k", block=128) as k:
        pool = k.smem_pool()
        with pytest.raises(ValueError, match="an ordered sequence orders at least two groups"):
            OrderedSequence(pool, 2, 1)
        with pytest.raises(ValueError, match=r"arrivals must be 1 to 1048575.*got 0"):
            OrderedSequence(pool, 2, 2, arrivals=0)
        with pytest.raises(TypeError, match="groups is an int, got bool"):
            OrderedSequence(pool, 2, True)


def test_a_constant_group_out_of_range_and_a_bool_group():
    def body(k, order, wg):
        with pytest.raises(ValueError, match="starts group 2, outside the sequence's groups 0 to 1"):
            order.start(2)
        with pytest.raises(TypeError, match="the group"):
            order.start(True)

    _pingpong(body)


def _specialized(k, order, wg, bad_pred=None):
    """Each warp group's code specialized (its constant group, 2 tiles x 2
    stages unrolled): the indices fold, and the checker counts each
    barrier's arrivals. `bad_pred`: group 1's mainloop hand-on, every tile."""
    branch = if_else(wg == 0)
    for group, side in ((0, branch.then), (1, branch.otherwise)):
        with side():
            me = order.start(group)
            for turn_number in range(4):
                turn = me.wait()
                mainloop = turn_number % 2 == 0
                turn.arrive(pred=bad_pred(k) if bad_pred and group == 1 and mainloop else None)


def test_the_checker_is_silent_on_a_specialized_pingpong():
    compiled = _pingpong(lambda k, order, wg: _specialized(k, order, wg)).compile()
    assert compiled.warnings == []


def test_the_checker_sees_a_group_that_never_hands_its_turn_on():
    """Group 1 hands the mainloop stage on under group 0's predicate
    (`tid < 128`, a copy-paste bug): none of its threads arrives, and group
    0's second mainloop wait never completes."""
    def body(k, order, wg):
        _specialized(k, order, wg, bad_pred=lambda k: k.thread_rank() < 128)

    from mbarrier_dialect import CompileError
    with pytest.raises(CompileError, match=r"waits for a phase that never completes: the barrier "
                                           r"receives 0 arrival\(s\)"):
        _pingpong(body).compile()
