"""Locations, one helper for the package (mbarrier_dialect.locations, issue
19): lang's ops carry the user's line with 1-based columns, as MLIR's parser
records them and compilers print them (Python's col_offset is 0-based, and
so are the MLIR bindings' traceback locations); lang's errors and
compile()'s diagnostics print ``file:line:col`` with the same helper, for
lang kernels and for IR text alike."""
import ast
import inspect
import os
import subprocess
import warnings
from pathlib import Path

import pytest
from mlir import ir

from mbarrier_dialect import SyncCheckWarning, compile, mbarrier_opt_path
from mbarrier_dialect.lang import Kernel, MBarrier, for_range, if_then
from mbarrier_dialect.locations import fix_columns, location_text, one_based

HERE = os.path.abspath(__file__)


def _call_at(line: int, text: str) -> ast.Call:
    """The outermost call expression on `line` of this file whose source
    starts with `text` (Python's own 0-based positions)."""
    with open(HERE) as f:
        source = f.read()
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.lineno == line \
                and lines[line - 1][node.col_offset:].startswith(text):
            return node
    raise AssertionError(f"no call {text!r} on line {line}")


def _all_ops(op):
    found = []
    op.operation.walk(lambda o: found.append(o) or ir.WalkResult.ADVANCE)
    return found


def test_a_verifier_error_points_at_the_first_column_of_the_call():
    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 2)
        pool.commit()
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(ValueError) as error:
            bar.remote_view(1).wait(0, 0)
    col = _call_at(line, "bar.remote_view(1).wait").col_offset + 1
    assert col == 13  # `bar` starts after 12 spaces: column 13, as an editor counts
    assert str(error.value).startswith(f"{HERE}:{line}:{col}: error: 'mbarrier.wait' op ")


def test_every_op_of_a_kernel_carries_a_one_based_file_range():
    with Kernel("k", block=32, cluster=2, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        line = inspect.currentframe().f_lineno + 1
        with if_then(k.cluster_rank() == 0):
            bar.remote_view(1).arrive(0)
        k.epilogue()
    ops = _all_ops(k.module)
    assert len(ops) > 20
    for op in ops:
        loc = op.location
        # The bindings' shape (a NameLoc of the Python function around a
        # 0-based range) is gone everywhere; only the user's file remains.
        assert loc.is_a_file(), (op.name, loc)
        assert loc.filename == HERE, (op.name, loc)
    arrive = next(op for op in ops if op.name == "mbarrier.arrive")
    call = _call_at(line + 1, "bar.remote_view(1).arrive(0)")
    loc = arrive.location
    assert (loc.start_line, loc.start_col) == (line + 1, call.col_offset + 1)
    assert (loc.end_line, loc.end_col) == (call.end_lineno, call.end_col_offset + 1)
    # The scf.if of `with if_then(...)` is the user's `with` line, not contextlib's.
    branch = next(op for op in ops if op.name == "scf.if" and op.location.start_line == line)
    assert branch.location.start_col == 9
    # The printed IR says the same, and compile() reads it back.
    assert f'"{HERE}":{line + 1}:{call.col_offset + 1} to :{call.end_col_offset + 1}' in \
        k.module.operation.get_asm(enable_debug_info=True)


def _run_ahead():
    """Warp 0 arrives once per trip of its loop and never waits; warp 1
    waits on each phase in its own loop. Nothing holds warp 0 back: it can
    run two phases ahead, and the checker warns at the arrive."""
    with Kernel("run_ahead", block=64, params=[("n", "i32")]) as k:
        pool = k.smem_pool()
        full = MBarrier(pool, 1)
        pool.commit()
        k.prologue({full: 32})
        warp = k.thread_rank() // 32
        with if_then(warp == 0):
            with for_range(0, k.param("n")):
                line = inspect.currentframe().f_lineno + 1
                full.arrive(0)
        with if_then(warp == 1):
            with for_range(0, k.param("n"), carry=[0]) as loop:
                (phase,) = loop.carry
                full.wait(0, phase)
                loop.next(phase ^ 1)
    return k, line


def test_compile_warnings_point_at_the_users_column():
    k, line = _run_ahead()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyncCheckWarning)
        found = k.compile(emit="nvvm").warnings
    col = _call_at(line, "full.arrive(0)").col_offset + 1
    assert col == 17
    assert [w for w in found if w.startswith(f"{HERE}:{line}:{col}: warning: arrives on the "
                                             "barrier in every trip of a loop that never waits")]


def test_ir_text_diagnostics_read_as_mbarrier_opt_prints_them(tmp_path):
    """compile() of a file and mbarrier-opt on it name the same
    file:line:col (MLIR's columns are 1-based already: nothing shifts them)."""
    path = tmp_path / "run_ahead.mlir"
    k, _ = _run_ahead()
    path.write_text(str(k.module))  # no debug info: locations are the file's own
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyncCheckWarning)
        ours = [w for w in compile(Path(path), emit="nvvm").warnings if "never waits" in w]
    opt = subprocess.run([mbarrier_opt_path(), str(path), "--mbarrier-check-sync", "-o",
                          os.devnull], capture_output=True, text=True)
    theirs = [line for line in opt.stderr.splitlines() if "never waits" in line]
    assert len(ours) == len(theirs) == 1
    where = ours[0].split(": warning: ")[0]
    assert theirs[0].startswith(f"{where}: warning: ")
    row = int(where.rsplit(":", 2)[1])
    col = int(where.rsplit(":", 2)[2])
    assert path.read_text().splitlines()[row - 1][col - 1:].startswith("mbarrier.arrive")


def test_location_text_and_one_based():
    with ir.Context():
        plain = ir.Location.file("a.mlir", 3, 7)
        assert location_text(plain) == "a.mlir:3:7"
        assert location_text(ir.Location.name("x", plain)) == "a.mlir:3:7"
        assert location_text(ir.Location.callsite(plain, [ir.Location.file("b.py", 1, 1)])) \
            == "a.mlir:3:7"
        assert location_text(ir.Location.fused([ir.Location.unknown(), plain])) == "a.mlir:3:7"
        assert location_text(ir.Location.unknown()) is None
        # What the bindings record for a Python frame: the function's name
        # around a 0-based range. Everything else is left as it is.
        raw = ir.Location.name("<module>", ir.Location.file("u.py", 4, 0, 4, 12))
        fixed = one_based(raw)
        assert (fixed.is_a_file(), fixed.start_col, fixed.end_col) == (True, 1, 13)
        assert location_text(fixed) == "u.py:4:1"
        assert one_based(fixed) == fixed and one_based(plain) == plain
        module = ir.Module.parse("module {}")
        module.operation.location = raw
        fix_columns(module.operation)
        fix_columns(module.operation)  # twice: no second shift
        assert module.operation.location == fixed
