"""docs/reference/ is generated from ODS: regenerating it changes nothing."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


def test_generated_reference_is_current():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_reference_has_every_op_and_pass():
    dialect = open(os.path.join(ROOT, "docs", "reference", "MBarrierDialect.md")).read()
    for op in ("alloc", "view", "init", "fence_init", "remote_view", "arrive", "arrive_expect_tx",
               "expect_tx", "wait", "try_wait", "test_wait", "inval", "ptr", "tcgen05_commit"):
        assert f"`mbarrier.{op}`" in dialect, op
    assert "https://docs.nvidia.com/cuda/parallel-thread-execution/" in dialect
    passes = open(os.path.join(ROOT, "docs", "reference", "MBarrierPasses.md")).read()
    assert "-convert-mbarrier-to-nvvm" in passes and "-mbarrier-attach-target" in passes
