"""compile() and mbarrier-compile on inputs with several gpu.modules: one
PTX and one cubin per module, each for the module's own target."""
import subprocess
import sys

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


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "mbarrier_dialect.compiler", *args],
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
