"""Every example of examples/ compiles (CI), as a module from the
repository root (``python -m examples.NAME``, no PYTHONPATH), the
single-file ones also as a script (``python examples/NAME.py``, README's
first command), and through its case() (the GPU suite's data check), and `--run` without a GPU stops with
the runtime's clear message, not a traceback from deep inside."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
EXAMPLES = os.path.join(ROOT, "examples")
PYTHON_EXAMPLES = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py") and f != "__init__.py")
# The examples with parts of their own (examples/NAME_parts/, imported
# relatively): modules only.
WITH_PARTS = sorted(f for f in PYTHON_EXAMPLES if os.path.isdir(os.path.join(EXAMPLES, f[:-3] + "_parts")))


def _command(example: str, as_script: bool) -> list[str]:
    if as_script:
        return [sys.executable, os.path.join(EXAMPLES, example)]
    return [sys.executable, "-m", f"examples.{example[:-3]}"]


def _env():
    """This environment without PYTHONPATH: the commands need none."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_the_examples_the_issue_asks_for_exist():
    assert {"first_kernel.py", "producer_consumer.py", "cluster_ring.py",
            "bulk_copy.py"} <= set(PYTHON_EXAMPLES)


@pytest.mark.parametrize("example,as_script",
                         [(e, False) for e in PYTHON_EXAMPLES]
                         + [(e, True) for e in PYTHON_EXAMPLES if e not in WITH_PARTS])
def test_example_compiles(example, as_script, tmp_path):
    proc = subprocess.run([*_command(example, as_script), "-o", str(tmp_path)], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=300)
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
    proc = subprocess.run([*_command(example, False), "-o", str(tmp_path), "--run"], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "mbarrier_dialect.runtime.NoGPUError: no usable CUDA GPU: "), proc.stderr


@pytest.mark.parametrize("example", WITH_PARTS)
def test_an_example_with_parts_run_as_a_script_says_how_to_run_it(example, tmp_path):
    """``python examples/gemm.py`` cannot import its parts (relative
    imports): one line saying the command that works, not an ImportError."""
    assert WITH_PARTS == ["attention.py", "gemm.py"]
    proc = subprocess.run(_command(example, True), cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == (
        f"examples/{example} imports its parts as a package: run it from the repository "
        f"root as `python -m examples.{example[:-3]}` (same options)")
