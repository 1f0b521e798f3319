"""Issue 34, a new user's first hour: each mistake that tripped a new user
gets one located diagnostic at the user's own line that says what to do,
and the build is the same every run and from every folder."""
import inspect
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

from mbarrier_dialect import CompileError, SyncCheckWarning, compile, lang, targets
from mbarrier_dialect.cli import main as cli_main
from mbarrier_dialect.lang import Kernel, MBarrier, if_then

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HERE = re.escape(__file__)


def _line_of(marker: str) -> int:
    """The line of this file that holds `marker` (after the marker's own
    definition)."""
    lines = open(__file__).read().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "_line_of" not in text)


# -- notes of lang errors are located -----------------------------------------

def test_lang_error_notes_carry_their_location():
    with pytest.raises(ValueError) as err:
        with Kernel("released_twice", block=32) as k:
            pool = k.smem_pool()
            pipe = lang.Pipeline(pool, 2, kind="arrive")
            pool.commit()
            k.prologue(pipes=[pipe])
            consumer = pipe.consumer()
            slot = consumer.wait()  # MARK-wait
            slot.release()
            slot.release()  # MARK-second-release
    lines = str(err.value).splitlines()
    assert re.match(rf"{HERE}:{_line_of('MARK-wait')}:\d+: error: ", lines[0]), lines
    assert re.fullmatch(rf"{HERE}:{_line_of('MARK-second-release')}:\d+: note: second pipe.release",
                        lines[1]), lines
    assert len(lines) == 2, lines


# -- a lang call outside `with Kernel(...)` -----------------------------------

def test_a_lang_call_outside_a_kernel_says_so_at_the_users_line():
    with Kernel("done", block=32) as k:
        pool = k.smem_pool()
    calls = {"lang.const": lambda: lang.const(1),
             "lang.fence_proxy_async": lang.fence_proxy_async,
             "lang.bulk_commit_group": lang.bulk_commit_group,
             "Kernel.thread_rank": k.thread_rank,
             "Kernel.sync_threads": k.sync_threads,
             "MBarrier": lambda: MBarrier(pool, 1)}
    for name, call in calls.items():
        with pytest.raises(RuntimeError) as err:
            call()
        message = str(err.value)
        assert re.match(rf"{HERE}:\d+:\d+: error: {re.escape(name)}\(\) builds IR into the kernel "
                        r"being built, and none is: call it inside the `with Kernel\(\.\.\.\) "
                        r"as k:` block$", message), message
        assert "requires a" not in message


def test_the_calls_that_need_no_kernel_still_work_outside_one():
    with Kernel("params", block=32, params=[("n", "i32")]) as k:
        pass
    assert k.param("n") is not None
    assert ".entry params(" in k.compile(emit="ptx").ptx


# -- type-parameter errors point at the user's line ---------------------------

@pytest.mark.parametrize("make, message", [
    (lambda pool: lang.OrderedSequence(pool, 1, 1), "an ordered sequence orders at least two groups"),
    (lambda pool: lang.Pipeline(pool, 0), "a pipe needs at least one stage"),
    (lambda pool: MBarrier(pool, 0), "an mbarrier group needs at least one barrier"),
])
def test_type_parameter_errors_are_located_at_the_users_line(make, message):
    with pytest.raises(ValueError) as err:
        with Kernel("bad_type", block=32) as k:
            make(k.smem_pool())
    text = str(err.value)
    line = inspect.getsourcelines(make)[1]
    assert re.fullmatch(rf"{HERE}:{line}:\d+: error: {re.escape(message)}.*", text), text
    assert "!mbarrier." not in text.split("error:")[0]


# -- named-barrier-reserved from every entry point -----------------------------

def _named_barrier_kernel():
    with Kernel("named", block=64) as k:
        bar = k.named_barrier(64)
        bar.sync()
    return k


def _bar_ids(ptx: str) -> set[str]:
    return set(re.findall(r"\bbar(?:rier)?\.sync(?:\.aligned)?\s+(\d+)", ptx))


def test_named_barrier_reserved_from_compile_k_compile_and_the_cli(tmp_path, capsys):
    k = _named_barrier_kernel()
    assert _bar_ids(k.compile(emit="ptx").ptx) == {"1"}
    assert _bar_ids(k.compile(emit="ptx", named_barrier_reserved="0,1-7").ptx) == {"8"}
    assert _bar_ids(compile(k.module, emit="ptx", named_barrier_reserved="0-3").ptx) == {"4"}
    src = tmp_path / "named.mlir"
    src.write_text(str(k.module))
    out = tmp_path / "named.ptx"
    assert cli_main([str(src), "--emit", "ptx", "--named-barrier-reserved", "0-5",
                     "-o", str(out)]) == 0
    assert _bar_ids(out.read_text()) == {"6"}
    with pytest.raises(CompileError, match="named_barrier_reserved must be a plain string"):
        compile(k.module, named_barrier_reserved="0 1")


# -- lang.fence_barrier_init ---------------------------------------------------

def test_lang_fence_barrier_init_is_the_kernels():
    with Kernel("manual", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        with if_then(k.is_thread(0)):
            bar.init(1)
            lang.fence_barrier_init()
        k.cluster_sync()
        k.epilogue()
    assert "fence.mbarrier_init.release.cluster" in k.compile(emit="ptx").ptx
    assert "lang.fence_barrier_init()" in open(os.path.join(ROOT, "docs", "lang.md")).read()


# -- compile() with a path, barriers across kernels, warnings, chips -----------

def test_compile_reads_a_path_of_any_name(tmp_path):
    src = tmp_path / "kernel.ir"
    src.write_text(open(os.path.join(ROOT, "examples", "remote_pingpong.mlir")).read())
    assert "mapa.shared::cluster" in compile(str(src), emit="ptx").ptx
    with pytest.raises(CompileError) as err:
        compile(str(tmp_path / "missing.ir"))
    assert "missing.ir: no such file" in str(err.value)
    assert "dialect" not in str(err.value)


def test_a_barrier_of_another_kernel_is_a_located_error():
    with Kernel("first", block=32) as first:
        pool = first.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
    with pytest.raises(ValueError) as err:
        with Kernel("second", block=32):
            bar.wait(0, 0)  # MARK-other-kernel
    text = str(err.value)
    assert re.fullmatch(rf"{HERE}:{_line_of('MARK-other-kernel')}:\d+: error: this MBarrier belongs "
                        r"to kernel 'first', not to 'second'.*", text), text
    assert "isolat" not in text


def test_checker_warnings_are_attributed_to_the_users_line():
    with Kernel("many_arrive", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.thread_rank() != 0):
            bar.arrive(0)  # MARK-arrive
        k.epilogue()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SyncCheckWarning)
        compiled = k.compile(emit="nvvm")
    assert any("arrives 31 times" in w for w in compiled.warnings), compiled.warnings
    ours = [w for w in caught if issubclass(w.category, SyncCheckWarning)]
    assert [(w.filename, w.lineno) for w in ours] == [(__file__, _line_of("MARK-arrive"))]


def test_an_unknown_chip_is_reported_without_a_made_up_location(tmp_path, capsys):
    src = os.path.join(ROOT, "examples", "remote_pingpong.mlir")
    assert cli_main([src, "--chip", "sm_91", "--emit", "ptx"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mbarrier-compile: error: unknown chip 'sm_91'"), err
    assert ".mlir:" not in err and err.count("error:") == 1
    with pytest.raises(CompileError) as raised:
        compile(src, chip="sm_91")
    assert raised.value.diagnostics == []
    listed = str(raised.value).split("(", 1)[1].rstrip(")").split()
    assert listed == targets.chips()
    assert listed.index("sm_90") < listed.index("sm_100") < listed.index("sm_120")


def test_the_chip_list_is_sorted_by_number():
    chips = targets.chips()

    def key(chip):
        digits = re.match(r"sm_(\d+)(.*)", chip)
        return int(digits[1]), digits[2]

    assert chips == sorted(chips, key=key)
    assert chips.index("sm_90") < chips.index("sm_90a") < chips.index("sm_100")


# -- every error of every module, the same every run ---------------------------

def test_compile_reports_every_module_in_source_order_every_run():
    src = os.path.join(ROOT, "test", "Conversion", "MBarrierToNVVM", "all-module-errors.mlir")
    seen = set()
    for _ in range(5):
        with pytest.raises(CompileError) as err:
            compile(src, check_sync=False, emit="ptx")
        lines = [d.split(":")[1] for d in err.value.diagnostics]
        seen.add(tuple(lines))
    assert len(seen) == 1, seen
    (lines,) = seen
    assert len(lines) == 4 and [int(x) for x in lines] == sorted(int(x) for x in lines), lines


# -- reproducible builds --------------------------------------------------------

KERNEL_SCRIPT = textwrap.dedent('''
    import sys
    from mbarrier_dialect.lang import Kernel, MBarrier, if_then

    with Kernel("stuck", block=32, debug_waits=1000000) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.is_thread(0)):
            bar.arrive(0)
        bar.wait(0, 0)
    k.compile().write(sys.argv[1], "stuck")
''')


def test_the_same_source_built_from_two_folders_is_byte_identical(tmp_path):
    outputs = []
    for folder in ("a/clone", "b/elsewhere/clone"):
        where = tmp_path / folder
        where.mkdir(parents=True)
        (where / "kernel.py").write_text(KERNEL_SCRIPT)
        (where / "kernel.mlir").write_text(
            open(os.path.join(ROOT, "test", "PTX", "debug-waits-ptx.mlir")).read())
        # The script and the IR named by absolute path, run from the folder.
        subprocess.run([sys.executable, str(where / "kernel.py"), str(where / "out")], cwd=where,
                       check=True, capture_output=True)
        subprocess.run([sys.executable, "-m", "mbarrier_dialect.cli", str(where / "kernel.mlir"),
                        "--no-check-sync", "--debug-waits", "1000000", "--emit", "ptx", "-o",
                        str(where / "out" / "ir.ptx")], cwd=where, check=True, capture_output=True)
        outputs.append({name: (where / "out" / name).read_bytes()
                        for name in ("stuck.ptx", "stuck.cubin", "ir.ptx")})
    first, second = outputs
    assert b"kernel.py:" in first["stuck.cubin"]            # the wait's site, relative
    assert b"mbarrier_debug_wait_sites\0" in first["stuck.cubin"]
    for name, data in first.items():
        assert str(tmp_path).encode() not in data, name
    for name in first:
        assert first[name] == second[name], name


def test_compile_raise_nvgpu_takes_a_subview_destination():
    src = os.path.join(ROOT, "test", "Conversion", "NVGPUToMBarrier", "subview-destination.mlir")
    compiled = compile(src, raise_nvgpu=True)
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in compiled.ptx
    assert compiled.cubin[:4] == b"\x7fELF"
    with pytest.raises(CompileError) as err:
        compile(src)
    assert len(err.value.diagnostics) == 1
    assert "pass raise-nvgpu=true" in err.value.diagnostics[0]
    assert "failed to legalize" not in str(err.value)
