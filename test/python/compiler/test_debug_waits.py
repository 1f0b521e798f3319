"""debug_waits through compile(), lang and the command line (issue 21): the
bound reaches the lowering, the located line names the user's Python line
and barrier, and with the option off every GPU-suite kernel's PTX is the
PTX compiled without the argument (test/PTX/debug-waits-ptx.mlir checks
the loop, the format and the trap instruction by instruction)."""
from __future__ import annotations

import os
import inspect
import re
import subprocess
import sys
import warnings

import pytest

from mbarrier_dialect import CompileError, compile
from mbarrier_dialect.lang import Kernel, MBarrier

import kernels  # noqa: E402

from mbarrier_dialect import runtime, runtime_debug_waits  # noqa: E402
from mbarrier_dialect.runtime import debug_wait_sites as formats  # noqa: E402


def _one_wait_kernel(**kwargs) -> tuple[Kernel, int, int]:
    """A kernel with one barrier and one wait; the lines of both."""
    with Kernel("one_wait", block=64, **kwargs) as k:
        pool = k.smem_pool()
        bar_line = inspect.currentframe().f_lineno + 1
        bar = MBarrier(pool, 2)
        pool.commit()
        k.prologue({bar: 64})
        bar.arrive(1)
        wait_line = inspect.currentframe().f_lineno + 1
        bar.wait(1, 0)
    return k, bar_line, wait_line


def test_lang_line_names_the_users_wait_and_barrier():
    k, bar_line, wait_line = _one_wait_kernel(debug_waits=250_000_000)
    (site,) = formats(k.compile().ptx)
    # The file as the PTX names it: relative to the working folder under it.
    shown = os.path.relpath(__file__) if __file__.startswith(os.getcwd() + os.sep) else __file__
    assert site == [f"{shown}:{wait_line}:9", "group<2>", f"{shown}:{bar_line}:15"]
    ptx = k.compile().ptx
    assert "setp.lt.u64" in ptx and ", 250000001;" in ptx and "trap;" in ptx


def test_the_module_defines_what_the_runtime_asks_for_and_calls_nothing():
    """The names and the record layout are debug_waits:: of MBarrierToNVVM.h
    and runtime_debug_waits.DEBUG_WAITS_* (one definition each side): the state global
    (16 bytes: the buffer's address, the records taken), the site table, the
    stores at the record's offsets; no call (ptxas would serialize wgmma)."""
    k, _, _ = _one_wait_kernel(debug_waits=1000)
    ptx = k.compile().ptx
    assert f".visible .global .align 8 .b8 {runtime.DEBUG_WAITS_STATE}[16]" in ptx
    assert re.search(rf".visible .global .align 1 .b8 {runtime.DEBUG_WAITS_SITES}\[\d+\]", ptx)
    assert "call" not in ptx and "vprintf" not in ptx
    assert re.search(rf"atom.global.add.u64 \t%rd\d+, \[{runtime.DEBUG_WAITS_STATE}\+8\], 1;", ptx)
    offsets = {int(m.group(1) or 0) for m in
               re.finditer(r"st\.volatile\.global\.b(?:32|64) \t\[%rd\d+(?:\+(\d+))?\]", ptx)}
    import struct
    layout = [0, 4, 8, 16, 24, 28, 32, 36, 40, 44, 48]
    record = runtime_debug_waits._RECORD
    assert struct.calcsize(record) == 56 and len(record) - 1 == len(layout)
    # every field a store past the header, and the header's overflow mark
    assert offsets == {0} | {runtime.DEBUG_WAITS_HEADER_BYTES + o for o in layout}, sorted(offsets)
    assert "mbarrier.arrive.shared::cta.b64" in ptx and "fence.sc.sys;" in ptx
    plain = k.compile(debug_waits=0).ptx
    assert runtime.DEBUG_WAITS_STATE not in plain and runtime.DEBUG_WAITS_SITES not in plain


def test_kernel_default_and_compile_override():
    k, _, _ = _one_wait_kernel(debug_waits=1000)
    assert formats(k.compile().ptx)
    assert not formats(k.compile(debug_waits=0).ptx)
    plain, _, _ = _one_wait_kernel()
    assert not formats(plain.compile().ptx)
    assert len(formats(plain.compile(debug_waits=5).ptx)) == 1


@pytest.mark.parametrize("value, error, message", [
    (True, TypeError, "an int, 0 = off"),
    (1.5, TypeError, "an int, 0 = off"),
    ("100", TypeError, "an int, 0 = off"),
    (-1, ValueError, "0 \\(off\\) to 2\\^64 - 1"),
    (2**64, ValueError, "0 \\(off\\) to 2\\^64 - 1"),
])
def test_a_bad_bound_is_refused(value, error, message):
    k, _, _ = _one_wait_kernel()
    with pytest.raises(error, match=message):
        k.compile(debug_waits=value)
    with pytest.raises(error, match=message):
        compile(k.module, debug_waits=value)


def test_the_largest_bound_reaches_the_lowering():
    k, _, _ = _one_wait_kernel()
    llvm = compile(k.module, debug_waits=2**64 - 1, emit="llvm").llvm
    assert "llvm.mlir.constant(-1 : i64) : i64" in llvm and runtime.DEBUG_WAITS_STATE in llvm


def test_cli_refuses_a_bound_that_is_not_a_number(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text("module {}")
    proc = subprocess.run([sys.executable, "-m", "mbarrier_dialect", str(path),
                           "--debug-waits", "soon"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "'soon' is not a whole number of nanoseconds" in proc.stderr


def _suite_kernels():
    """Every kernel of the GPU suites (examples, pipelines and the GEMM
    among them), once."""
    seen = {}
    for builders in kernels.SUITES.values():
        for builder in builders:
            kernel = builder().kernel
            seen.setdefault(kernel.name, kernel)
    return list(seen.values())


def test_off_is_the_ptx_without_the_option_for_every_suite_kernel():
    compiled = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kernel in _suite_kernels():
            default = kernel.compile(emit="ptx")
            off = kernel.compile(emit="ptx", debug_waits=0)
            on = kernel.compile(emit="ptx", debug_waits=200_000_000)
            for name, module in default.modules.items():
                assert off.modules[name].ptx == module.ptx, kernel.name
                assert "globaltimer" not in module.ptx
                assert runtime.DEBUG_WAITS_STATE not in module.ptx
                # Every kernel that waits gets the bounded loop with the option.
                waits = "mbarrier.try_wait" in module.ptx
                assert ("trap;" in on.modules[name].ptx) == waits, kernel.name
                assert bool(formats(on.modules[name].ptx)) == waits, kernel.name
            compiled += 1
    assert compiled >= 24


def _under_arrival(name: str, wait) -> Kernel:
    """b4's bug: a barrier of count 4 that only thread 0 arrives on, then
    `wait(bar)` by every thread."""
    with Kernel(name, block=128) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 4})
        with k.if_then(k.is_thread(0)):
            bar.arrive(0)
        wait(bar)
    return k


def test_an_error_of_the_checker_still_stops_a_debug_build():
    k = _under_arrival("under_arrival", lambda bar: bar.wait(0, 0))
    with pytest.raises(CompileError, match="waits for a phase that never completes"):
        k.compile(debug_waits=1000)
    assert formats(k.compile(debug_waits=1000, check_sync=False).ptx)


def test_a_hand_written_try_wait_loop_is_checked_but_not_bounded():
    """The same under-arrival as above, waited on with a spin loop around
    try_wait: the checker takes the loop as a wait (class 12: a phase short
    of its count, at the init), and debug waits leave it unbounded."""
    from mlir import ir
    from mlir.dialects import scf

    def hand_loop(bar):
        loop = scf.WhileOp([], [])
        with ir.InsertionPoint(loop.before.blocks.append()):
            scf.ConditionOp(~bar.try_wait(0, 0), [])
        with ir.InsertionPoint(loop.after.blocks.append()):
            scf.YieldOp([])

    k = _under_arrival("hand_loop", hand_loop)
    with pytest.raises(CompileError, match="initialized with arrival count 4, "
                       "but a phase of the barrier gets 1 arrival"):
        k.compile(debug_waits=1000)
    compiled = k.compile(debug_waits=1000, check_sync=False)
    assert compiled.warnings == []
    assert "mbarrier.try_wait" in compiled.ptx and not formats(compiled.ptx)
