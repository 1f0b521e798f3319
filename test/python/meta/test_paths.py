"""Every repository path the docs cite exists (README.md, RELIABILITY.md,
BENCHMARKS.md, docs/*.md, bench/**/README.md), and the one device entry
(tools/device/run.sh) has a step for every name it lists. A path in git history
only is cited with the words "git history" on its line; NAME-style
placeholders and brace or glob patterns are not paths."""
import glob
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOCS = (["README.md", "RELIABILITY.md", "BENCHMARKS.md"]
        + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
        + sorted(os.path.relpath(p, ROOT)
                 for p in glob.glob(os.path.join(ROOT, "bench", "**", "README.md"), recursive=True)))
TOP = ("bench", "test", "examples", "python", "docs", "tools", "passes", "dialect",
       "capi", "cmake")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_])" % "|".join(TOP))


def cited_paths(text: str):
    """(line, path) of every repository path cited in `text`."""
    for n, line in enumerate(text.splitlines(), 1):
        if "git history" in line:
            continue
        for m in PATH.finditer(line):
            rest = line[m.end():m.end() + 2]
            if rest[:1] in ("{", "*", "<", "$", "[") or rest == ".{" or re.search(r"[A-Z]{3,}", m.group(1)):
                continue
            yield n, re.sub(r":\d+(-\d+)?$", "", m.group(1))


def test_the_path_finder_sees_a_missing_path():
    found = list(cited_paths("see `test/gpu/final_run.sh` and tools/device/run.sh, not examples/NAME.py"))
    assert found == [(1, "test/gpu/final_run.sh"), (1, "tools/device/run.sh")]


@pytest.mark.parametrize("doc", DOCS)
def test_every_cited_path_exists(doc):
    text = open(os.path.join(ROOT, doc)).read()
    missing = [(n, p) for n, p in cited_paths(text) if not os.path.exists(os.path.join(ROOT, p))]
    assert not missing, f"{doc} cites paths that do not exist: {missing}"


def _listed_steps():
    header = open(os.path.join(ROOT, "tools", "device", "run.sh")).read().split("set -u", 1)[0]
    steps = set()
    for line in header.splitlines():
        m = re.match(r"#\s+\w+\.sh\s+(.*)$", line)
        if m:
            steps |= set(m.group(1).split())
    return steps


def test_the_device_entry_has_every_listed_step():
    steps = _listed_steps()
    assert {"suite", "sanitize", "edge", "stress", "gemm", "attention", "fence"} <= steps
    defined = set()
    for path in glob.glob(os.path.join(ROOT, "tools", "device", "steps", "*.sh")):
        defined |= {m.replace("_", "-") for m in re.findall(r"^step_(\w+)\(\)", open(path).read(), re.M)}
    assert steps == defined


def test_the_device_entry_refuses_an_unknown_step(tmp_path):
    proc = subprocess.run(["bash", os.path.join(ROOT, "tools", "device", "run.sh"), "no-such-step"],
                          capture_output=True, text=True, env={**os.environ, "OUT": str(tmp_path)})
    assert proc.returncode == 2 and "unknown step: no-such-step" in proc.stderr


def test_the_suite_runner_finds_runtime_py():
    """test/gpu/suite/run_manifest.py loads runtime.py by a path relative to
    its own place (it runs on the GPU machine without the package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "run_manifest_paths", os.path.join(ROOT, "test", "gpu", "suite", "run_manifest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.RUNTIME_PATH.is_file()
    assert module.RUNTIME_PATH.samefile(os.path.join(ROOT, "python", "mbarrier_dialect", "runtime.py"))
