"""The production corpus (test/Analysis/SyncCheck/production/): correct kernels
written after public protocols (FA3, CUTLASS, DeepGEMM, DeepEP, FlashMLA,
FlashInfer, ThunderKittens, upstream nvgpu, cluster kernels) and one buggy twin
of each (`NAME.bug-WHAT.mlir`, one bug, marked `// BUG`).

Each file goes through the passes that `mbarrier-to-ptx` runs before the
checker (`mbarrier-raise-nvgpu` for the nvgpu kernel, `mbarrier-lower-pipes`,
`mbarrier-allocate-named-barriers`) and `mbarrier-check-sync`: a correct kernel
must draw no diagnostic at all; a twin must draw one of the severity its
header states (an error where every launch fails; an error or a warning where
some do) on a line marked `// BUG` (or `// BUG-ALT`, where the header says a
diagnostic on a line that uses the bug is accepted).

Twins the checker misses today are in KNOWN_MISSES, run as strict xfails: the
test fails as soon as one is caught, so the set can only shrink."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "Analysis" / "SyncCheck" / "production"
OPT = Path(sys.executable).parent / "mbarrier-opt"
PASSES = ["--mbarrier-lower-pipes", "--mbarrier-allocate-named-barriers", "--mbarrier-check-sync"]
DIAG = re.compile(r"^[^:\n]+:(\d+):\d+: (error|warning): ", re.M)
MARK = re.compile(r"// BUG(-ALT)?\s*$")

CORRECT = sorted(p for p in CORPUS.glob("*.mlir") if ".bug-" not in p.name)
TWINS = sorted(CORPUS.glob("*.bug-*.mlir"))

# Twins the current checker misses on their BUG line (measured on main after
# issue 30's protocol model and classes, 2026-12-03), name -> the kind of bug, with the item of issue 30 it falls under.
KNOWN_MISSES = {
    "cutlass_pingpong.bug-staging-before-wait-read":
        "missed: staging buffer rewritten at a warpgroup's next tile of a persistent scf.while (item 3)",
    "cutlass_pingpong.bug-seq-start-group":
        "missed: both math warpgroups start the ordered sequence as group 0 (item 6, seq.start's group)",
}


def _check(path: Path) -> list[tuple[int, str]]:
    """(line, severity) of every checker diagnostic on `path`."""
    passes = (["--mbarrier-raise-nvgpu"] if "nvgpu." in path.read_text() else []) + PASSES
    proc = subprocess.run([str(OPT), *passes, str(path), "-o", "/dev/null"],
                          capture_output=True, text=True, timeout=120)
    diags = [(int(m.group(1)), m.group(2)) for m in DIAG.finditer(proc.stderr)]
    if proc.returncode != 0:
        assert diags, f"mbarrier-opt failed without a located diagnostic:\n{proc.stderr}"
    return diags


def _header(path: Path) -> str:
    return "\n".join(l for l in path.read_text().splitlines() if l.startswith("//"))


def _every_launch(path: Path) -> bool:
    """What the twin's header states: 'Every launch' (an error is expected) or
    'Some launches' (an error or a warning)."""
    h = _header(path)
    every, some = "Every launch" in h, "Some launches" in h
    assert every != some, f"{path.name}: the header must say 'Every launch' or 'Some launches'"
    return every


def _marked_lines(path: Path) -> set[int]:
    return {n for n, line in enumerate(path.read_text().splitlines(), 1)
            if not line.lstrip().startswith("//") and MARK.search(line)}


def test_corpus_shape():
    """At least 15 correct kernels, each with a twin, and each twin marks its op."""
    assert len(CORRECT) >= 15
    names = {p.stem for p in CORRECT}
    for twin in TWINS:
        assert twin.name.split(".bug-")[0] in names, twin.name
        assert _marked_lines(twin), f"{twin.name}: no line marked // BUG"
    assert {t.name.split(".bug-")[0] for t in TWINS} == names
    assert set(KNOWN_MISSES) <= {t.stem for t in TWINS}


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_correct_kernel_is_silent(path):
    assert _check(path) == []


def _twin_params():
    for p in TWINS:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[p.stem])] if p.stem in KNOWN_MISSES else []
        yield pytest.param(p, id=p.stem, marks=marks)


@pytest.mark.parametrize("path", list(_twin_params()))
def test_twin_is_caught_on_its_line(path):
    wanted = {"error"} if _every_launch(path) else {"error", "warning"}
    lines = _marked_lines(path)
    diags = _check(path)
    hits = [(line, sev) for line, sev in diags if line in lines and sev in wanted]
    assert hits, f"{path.name}: wanted {sorted(wanted)} on lines {sorted(lines)}, got {diags}"
