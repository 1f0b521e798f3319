"""compile(raise_nvgpu=True) and mbarrier-compile --raise-nvgpu on nvgpu
input (docs/interop.md): examples/nvgpu_ws_tma.mlir, written in upstream's
nvgpu dialect, becomes this dialect's PTX; without the option the pipeline
does not lower nvgpu and says so."""
import os
import subprocess
import sys
import warnings

import pytest

from mbarrier_dialect import CompileError, compile

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "examples", "nvgpu_ws_tma.mlir")


def test_nvgpu_kernel_compiles_with_raise_nvgpu():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker finds nothing to warn about
        result = compile(EXAMPLE, "sm_90", raise_nvgpu=True, emit="ptx")
    ptx = result.ptx
    # The raised ops' instructions: the expect_tx, the tensor copy on the
    # barrier, this dialect's wait with the ticks as suspend hint.
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert ptx.count("mbarrier.try_wait.parity.shared.b64") == 2
    assert "waitLoop" not in ptx  # not nvgpu's inline-asm loop
    # The tensor map is the generic pointer nvgpu's lowering makes of it.
    assert ".param .u64 .ptr .align 1 nvgpu_ws_tma_param_1" in ptx


def test_checker_runs_on_the_raised_kernel(tmp_path):
    """The TMA bytes come from the descriptor's box: posting 1024 of the
    4096 a tile brings is class 6, an error."""
    text = open(EXAMPLE).read()
    bad = text.replace("nvgpu.mbarrier.arrive.expect_tx %full[%s], %c4096",
                       "nvgpu.mbarrier.arrive.expect_tx %full[%s], %c1024")
    assert bad != text
    path = tmp_path / "bad.mlir"
    path.write_text(bad)
    with pytest.raises(CompileError, match="expects 1024 transaction bytes on the barrier, "
                                           "but the bulk copies that complete on it bring 4096"):
        compile(path, "sm_90", raise_nvgpu=True, emit="ptx")


def test_without_raise_nvgpu_nvgpu_is_not_lowered():
    with pytest.raises(CompileError):
        compile(EXAMPLE, "sm_90", emit="ptx")


def test_raise_nvgpu_must_be_a_bool():
    with pytest.raises(TypeError, match="raise_nvgpu must be a bool"):
        compile(EXAMPLE, "sm_90", raise_nvgpu=1)


def test_cli_raise_nvgpu(tmp_path):
    out = tmp_path / "k.ptx"
    proc = subprocess.run([sys.executable, "-m", "mbarrier_dialect.cli", EXAMPLE, "--raise-nvgpu",
                           "--emit", "ptx", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "cp.async.bulk.tensor.2d" in out.read_text()


def test_every_thread_init_twin_gets_the_checkers_warning(tmp_path):
    """The same kernel with upstream's every-thread init (NVIDIA/Fuser#1552):
    after raising, the checker warns at each init (class 8)."""
    text = open(EXAMPLE).read()
    guarded = "      scf.if %leader {\n        nvgpu.mbarrier.init %full[%c0], %c1 : !bars\n"
    assert guarded in text
    bad = text.replace(guarded, "      scf.if %true {\n        nvgpu.mbarrier.init %full[%c0], %c1 : !bars\n")
    bad = bad.replace("      %leader = arith.cmpi eq, %tid, %c0 : index\n",
                      "      %leader = arith.cmpi eq, %tid, %c0 : index\n      %true = arith.constant true\n")
    path = tmp_path / "every_thread.mlir"
    path.write_text(bad)
    with pytest.warns(Warning, match="is executed by 96 threads of a CTA for the same barrier"):
        result = compile(path, "sm_90", raise_nvgpu=True, emit="ptx")
    assert len([w for w in result.warnings if "is executed by 96 threads" in w]) == 4
