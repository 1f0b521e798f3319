"""compile() and mbarrier-compile on inputs with several gpu.modules: one
PTX and one cubin per module, each for the module's own target."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mbarrier_dialect import CompiledModule, CompileError, compile

ELF = b"\x7fELF"

# Input order is not alphabetical; @alpha carries its own target.
TWO_MODULES = """
module attributes {gpu.container_module} {
  gpu.module @zeta {
    gpu.func @signal(%r: i32) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %v = mbarrier.remote_view %g, %r : !mbarrier.group<1>
      mbarrier.arrive %v[%c0] : !mbarrier.remote<1>
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
  }
  gpu.module @alpha [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @local() kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      gpu.return
    }
  }
}
"""


def test_two_modules_give_one_cubin_each():
    result = compile(TWO_MODULES)
    assert list(result.modules) == ["zeta", "alpha"]
    zeta, alpha = result.modules["zeta"], result.modules["alpha"]
    assert isinstance(zeta, CompiledModule)
    assert (zeta.name, zeta.chip) == ("zeta", "sm_90")
    assert (alpha.name, alpha.chip) == ("alpha", "sm_100a")   # its own target
    for m in (zeta, alpha):
        assert m.cubin[:4] == ELF
        assert m.ptx.count(".version") == 1 and m.ptx.count(".target") == 1
    assert ".target sm_90\n" in zeta.ptx and ".visible .entry signal(" in zeta.ptx
    assert ".target sm_100a\n" in alpha.ptx and ".visible .entry local(" in alpha.ptx
    assert "entry local(" not in zeta.ptx and "entry signal(" not in alpha.ptx


@pytest.mark.parametrize("attr", ["ptx", "cubin"])
def test_several_modules_have_no_single_ptx_or_cubin(attr):
    result = compile(TWO_MODULES, emit="cubin")
    with pytest.raises(CompileError) as err:
        getattr(result, attr)
    text = str(err.value)
    assert "zeta" in text and "alpha" in text and f".modules[name].{attr}" in text


def test_one_module_keeps_ptx_and_cubin():
    one = TWO_MODULES[: TWO_MODULES.index("  gpu.module @alpha")] + "}\n"
    result = compile(one)
    assert list(result.modules) == ["zeta"]
    assert result.ptx == result.modules["zeta"].ptx and result.ptx.count(".version") == 1
    assert result.cubin == result.modules["zeta"].cubin and result.cubin[:4] == ELF
    early = compile(one, emit="llvm")
    assert early.modules == {} and early.ptx == "" and early.cubin == b""
    ptx_only = compile(one, emit="ptx")
    assert ptx_only.ptx.startswith("//") and ptx_only.cubin == b""


def test_write_puts_the_ptx_and_the_cubin_side_by_side(tmp_path):
    """CompiledKernel.write (what the examples' -o does): NAME.ptx and
    NAME.cubin in a folder it makes, byte for byte the compiled ones; with
    several gpu.modules it refuses, as .ptx does."""
    one = TWO_MODULES[: TWO_MODULES.index("  gpu.module @alpha")] + "}\n"
    result = compile(one)
    out = tmp_path / "new" / "dir"
    ptx_path, cubin_path = result.write(str(out), "zeta_kernel")
    assert (ptx_path, cubin_path) == (str(out / "zeta_kernel.ptx"), str(out / "zeta_kernel.cubin"))
    assert Path(ptx_path).read_text() == result.ptx
    assert Path(cubin_path).read_bytes() == result.cubin and result.cubin[:4] == ELF
    with pytest.raises(CompileError, match=r"\.modules\[name\]\.ptx"):
        compile(TWO_MODULES).write(str(tmp_path), "both")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "mbarrier_dialect.cli", *args],
                          capture_output=True)


@pytest.fixture
def two_modules(tmp_path):
    path = tmp_path / "two.mlir"
    path.write_text(TWO_MODULES)
    return path


@pytest.mark.parametrize("emit", ["cubin", "ptx"])
def test_cli_writes_one_file_per_module(tmp_path, two_modules, emit):
    out = tmp_path / "out" / f"k.{emit}"
    out.parent.mkdir()
    proc = _cli(str(two_modules), "--emit", emit, "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    written = sorted(p.name for p in out.parent.iterdir())
    assert written == sorted([f"k.zeta.{emit}", f"k.alpha.{emit}"])
    for name, target in (("zeta", "sm_90"), ("alpha", "sm_100a")):
        data = (out.parent / f"k.{name}.{emit}").read_bytes()
        if emit == "cubin":
            assert data[:4] == ELF
        else:
            assert data.count(b".version") == 1 and f".target {target}\n".encode() in data


def test_cli_refuses_several_modules_on_stdout(two_modules):
    proc = _cli(str(two_modules), "--emit", "ptx")
    err = proc.stderr.decode()
    assert proc.returncode != 0 and proc.stdout == b"" and "Traceback" not in err
    assert "2 gpu.modules (zeta, alpha)" in err and "--module" in err


def test_cli_module_picks_one(tmp_path, two_modules):
    proc = _cli(str(two_modules), "--emit", "ptx", "--module", "alpha")
    assert proc.returncode == 0, proc.stderr.decode()
    ptx = proc.stdout.decode()
    assert ptx.count(".version") == 1 and ".target sm_100a\n" in ptx and "entry local(" in ptx
    out = tmp_path / "zeta.cubin"
    proc = _cli(str(two_modules), "--module", "zeta", "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert out.read_bytes()[:4] == ELF
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.mlir", "zeta.cubin"]


def test_cli_unknown_module_is_an_error(tmp_path, two_modules):
    proc = _cli(str(two_modules), "--module", "beta", "-o", str(tmp_path / "k.cubin"))
    err = proc.stderr.decode()
    assert proc.returncode != 0 and "Traceback" not in err
    assert "no gpu.module named 'beta'" in err and "zeta, alpha" in err
    assert not (tmp_path / "k.cubin").exists()


def test_cli_module_with_whole_module_emit_is_an_error(two_modules):
    proc = _cli(str(two_modules), "--emit", "llvm", "--module", "zeta")
    err = proc.stderr.decode()
    assert proc.returncode != 0 and "Traceback" not in err and "--emit llvm" in err


def test_cli_llvm_stays_whole_module(two_modules):
    proc = _cli(str(two_modules), "--emit", "llvm")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert "gpu.module @zeta" in text and "gpu.module @alpha" in text


# --------------------------------------------------------------------------
# What compile() takes
# --------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[3]


def test_a_str_naming_an_mlir_file_is_read(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = compile("examples/remote_pingpong.mlir", emit="ptx")
    assert ".visible .entry remote_pingpong(" in result.ptx
    assert result.ptx == compile(ROOT / "examples" / "remote_pingpong.mlir", emit="ptx").ptx


def test_a_str_naming_no_file_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CompileError, match=r"^examples/nope\.mlir: no such file \(compile\(\) "
                                           r"takes an ir\.Module, IR text, or the path"):
        compile("examples/nope.mlir")


def test_diagnostics_of_a_file_name_it(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n  this is not mlir\n}\n")
    with pytest.raises(CompileError) as err:
        compile(str(bad))
    assert str(err.value).startswith(f"{bad}:2:3: error: ")


# An upstream op whose custom form the parser cannot read back with its
# location alias: compile() must not print the module and parse it again.
def _nvvm_barrier_kernel():
    from mlir import ir
    from mlir.dialects import arith, nvvm

    from mbarrier_dialect.lang import Kernel

    with Kernel("named_barrier", block=64) as k:
        i32 = ir.IntegerType.get_signless(32)
        nvvm.BarrierOp(None, barrierId=arith.ConstantOp(i32, 1).result,
                       numberOfThreads=arith.ConstantOp(i32, 64).result)
    return k


def test_a_lang_module_is_cloned_not_printed_and_parsed():
    k = _nvvm_barrier_kernel()
    before = k.module.operation.get_asm(enable_debug_info=True)
    assert "nvvm.barrier id = " in before and "number_of_threads = " in before
    result = compile(k.module, emit="ptx")
    assert "bar.sync \t1, 64;" in result.ptx
    assert k.module.operation.get_asm(enable_debug_info=True) == before  # left untouched
    assert k.compile().cubin[:4] == ELF


# --------------------------------------------------------------------------
# Diagnostics as compilers print them
# --------------------------------------------------------------------------

def test_an_unknown_chip_is_one_line_without_a_location(monkeypatch):
    # The chip is an argument, not a line of the input: no made-up location.
    monkeypatch.chdir(ROOT)
    with pytest.raises(CompileError) as err:
        compile("examples/remote_pingpong.mlir", chip="sm_77")
    text = str(err.value)
    assert text.startswith("unknown chip 'sm_77': expected one the NVPTX backend knows (sm_20 ")
    assert len(text.splitlines()) == 1, text        # no note dumping the module
    assert "see current operation" not in text and '"builtin.module"()' not in text
    assert err.value.diagnostics == []


TWICE = """func.func @committed_twice(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}
"""


def test_notes_are_located_on_lines_of_their_own():
    with pytest.raises(CompileError) as err:
        compile(TWICE)
    assert str(err.value).splitlines() == [
        "-:2:18: error: 'mbarrier.pipe.acquire' op makes a slot that is committed twice: each "
        "slot is committed exactly once",
        "-:4:3: note: second pipe.commit"]


def _multicast_release_kernel():
    """A 2 x 2 cluster pipe released to the 3 CTAs of its row and column:
    one pipe.release lowers to 3 cluster arrivals. Returns the kernel and
    the line of the release."""
    import inspect

    from mbarrier_dialect.lang import Kernel, Pipeline, if_then

    with Kernel("rowcol_release", block=64, grid=(2, 2), cluster=(2, 2),
                params=[("map", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, 2, kind="tma", consumers=1, multicast="rowcol")
        stages = pool.alloc((2, 256), "i32", align=128)
        pool.commit()
        k.prologue(pipes=[pipe])
        with if_then(k.thread_rank() == 0):
            producer = pipe.producer()
            slot = producer.acquire()
            slot.cp_async_bulk_tensor(stages, k.param("map"), [0, 0], box_bytes=256,
                                      multicast="row")
            slot.cp_async_bulk_tensor(stages, k.param("map"), [0, 0], box_bytes=256,
                                      multicast="col", byte_offset_in_stage=512)
            slot.commit(bytes=1024)
            producer.tail()
        with if_then(k.thread_rank() == 32):
            slot = pipe.consumer().wait()
            line = inspect.currentframe().f_lineno + 1
            slot.release()
        k.epilogue()
    return k, line


def test_a_multicast_release_is_reported_once():
    k, line = _multicast_release_kernel()
    with pytest.raises(CompileError) as err:
        k.compile(features="+ptx78")
    lines = str(err.value).splitlines()
    assert len(lines) == len(set(lines)), lines
    release = [d for d in lines if f"test_compiler.py:{line}:" in d]
    assert len(release) == 1 and "'mbarrier.arrive' op needs PTX ISA 8.0" in release[0], lines


def test_the_cli_reports_a_multicast_release_once(tmp_path):
    k, line = _multicast_release_kernel()
    src = tmp_path / "rowcol.mlir"
    src.write_text(k.module.operation.get_asm(enable_debug_info=True))
    proc = _cli(str(src), "--features", "+ptx78", "-o", str(tmp_path / "k.cubin"))
    err = proc.stderr.decode().splitlines()
    assert proc.returncode == 1 and err and len(err) == len(set(err)), err
    assert all(": error: " in e for e in err) and not any("mbarrier-compile:" in e for e in err)
    assert len([e for e in err if f"test_compiler.py:{line}:" in e]) == 1, err


def test_the_cli_prints_located_errors_as_compilers_do(tmp_path):
    src = tmp_path / "twice.mlir"
    src.write_text(TWICE)
    proc = _cli(str(src), "--emit", "ptx")
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines() == [
        f"{src}:2:18: error: 'mbarrier.pipe.acquire' op makes a slot that is committed twice: "
        "each slot is committed exactly once",
        f"{src}:4:3: note: second pipe.commit"]


# --------------------------------------------------------------------------
# The command lines: --version, --help, a cubin and a terminal
# --------------------------------------------------------------------------

def _version_lines(text: str, tool: str) -> list[str]:
    import mbarrier_dialect

    lines = text.splitlines()
    assert lines[0] == f"{tool} (mbarrier-dialect) {mbarrier_dialect.__version__}", lines
    assert re.fullmatch(r"MLIR/LLVM 22\.\d+\.\d+ \(xtc-mlir-python-bindings 22[.\d]+, .*\)",
                        lines[1]), lines
    assert re.fullmatch(r"ptxas: Cuda compilation tools, release \d+\.\d+, V[\d.]+ \(.*ptxas\)",
                        lines[2]), lines
    return lines


def test_mbarrier_compile_version():
    proc = _cli("--version")
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(_version_lines(proc.stdout.decode(), "mbarrier-compile")) == 3


def test_mbarrier_opt_version():
    exe = Path(sys.executable).parent / "mbarrier-opt"     # the console script
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert len(_version_lines(proc.stdout, "mbarrier-opt")) == 3


def test_the_package_version_is_the_projects():
    import tomllib  # noqa: F401 (Python >= 3.11; the test machine's)

    import mbarrier_dialect

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert mbarrier_dialect.__version__ == project["version"]


def test_help_shows_the_defaults():
    proc = _cli("--help")
    text = " ".join(proc.stdout.decode().split())
    for default in ("(default: sm_90)", "(default: 3)", "(default: cubin)", "(default: -;",
                    "(default: every gpu.module)", "(default: the lowest version"):
        assert default in text, default


def test_a_cubin_is_not_written_to_a_terminal():
    import os
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "mbarrier_dialect.cli",
                               str(ROOT / "examples" / "remote_pingpong.mlir")],
                              stdout=slave, stderr=subprocess.PIPE, timeout=120)
        os.set_blocking(master, False)
        try:
            written = os.read(master, 1 << 16)
        except BlockingIOError:
            written = b""
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 1
    assert proc.stderr.decode() == ("mbarrier-compile: error: refusing to write a cubin (binary) "
                                    "to a terminal: pass -o FILE, or --emit ptx for text\n")
    assert written == b""
