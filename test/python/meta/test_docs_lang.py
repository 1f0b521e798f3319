"""docs/lang.md: every ```python block of the guide runs, in order, in one
namespace (the blocks assert what they claim), and the guide covers what a
frontend guide must."""
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
GUIDE = os.path.join(ROOT, "docs", "lang.md")


def _blocks():
    text = open(GUIDE).read()
    return [(text[:m.start()].count("\n") + 2, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_every_python_block_of_the_guide_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = _blocks()
    assert len(blocks) >= 12
    namespace = {"__name__": "lang_guide"}
    for line, code in blocks:
        try:
            exec(compile(code, f"{GUIDE}:{line}", "exec"), namespace)
        except Exception as e:  # name the block that failed
            pytest.fail(f"docs/lang.md block at line {line}: {type(e).__name__}: {e}")


def test_the_guide_covers_the_frontend():
    text = open(GUIDE).read()
    for heading in ("## Kernel", "## Values and operators", "## Control flow", "## Shared memory",
                    "## Barriers", "## Remote views and distributed shared memory",
                    "## Prologue and epilogue", "## Compile and launch", "## Errors"):
        assert heading in text, heading
    for example in ("first_kernel.py", "producer_consumer.py", "cluster_ring.py", "bulk_copy.py"):
        assert f"examples/{example}" in text
        assert os.path.exists(os.path.join(ROOT, "examples", example))
    # the integer rules are stated
    for rule in ("signed", "`//` and `%` are **Python's**", "Promotion", "shift count"):
        assert rule in text, rule
