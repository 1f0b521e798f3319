"""Every example of examples/ compiles (CI), as a script and through its
case() (the GPU suite's data check), and `--run` without a GPU stops with
the runtime's clear message, not a traceback from deep inside."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
EXAMPLES = os.path.join(ROOT, "examples")
PYTHON_EXAMPLES = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))


def test_the_examples_the_issue_asks_for_exist():
    assert {"first_kernel.py", "producer_consumer.py", "cluster_ring.py",
            "bulk_copy.py"} <= set(PYTHON_EXAMPLES)


@pytest.mark.parametrize("example", PYTHON_EXAMPLES)
def test_example_compiles_as_a_script(example, tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, example), "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ptx = [f for f in os.listdir(tmp_path) if f.endswith(".ptx")]
    assert len(ptx) == 1
    text = open(tmp_path / ptx[0]).read()
    assert ".entry" in text and "mbarrier." in text
    # Run without -o (into the current folder: the clone's top, or
    # examples/), what it writes is ignored by git.
    if subprocess.run(["git", "-C", ROOT, "rev-parse"], capture_output=True).returncode:
        return  # not a git checkout
    for name in os.listdir(tmp_path):
        for where in (name, f"examples/{name}"):
            ignored = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", where])
            assert ignored.returncode == 0, f"{example} writes {where}, which git does not ignore"


@pytest.mark.parametrize("example", PYTHON_EXAMPLES)
def test_example_run_without_a_gpu_is_a_clear_error(example, tmp_path):
    from mbarrier_dialect import runtime
    try:
        runtime.require_gpu()
        pytest.skip("a GPU is present: the GPU suite runs the examples")
    except runtime.NoGPUError:
        pass
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, example), "-o", str(tmp_path),
                           "--run"], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "mbarrier_dialect.runtime.NoGPUError: no usable CUDA GPU: "), proc.stderr
