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

from pathlib import Path

import pytest

from sync_corpus import assert_caught, check, marked_lines, xfail_if_known

CORPUS = Path(__file__).resolve().parents[2] / "Analysis" / "SyncCheck" / "production"

CORRECT = sorted(p for p in CORPUS.glob("*.mlir") if ".bug-" not in p.name)
TWINS = sorted(CORPUS.glob("*.bug-*.mlir"))

# Twins the current checker misses on their BUG line (measured on main after
# issue 30's protocol model and classes, 2026-12-03), name -> the kind of bug, with the item of issue 30 it falls under.
KNOWN_MISSES: dict[str, str] = {}  # none since the merge of i30f and i30x (2026-12-03)


def test_corpus_shape():
    """At least 15 correct kernels, each with a twin, and each twin marks its op."""
    assert len(CORRECT) >= 15
    names = {p.stem for p in CORRECT}
    for twin in TWINS:
        assert twin.name.split(".bug-")[0] in names, twin.name
        assert marked_lines(twin), f"{twin.name}: no line marked // BUG"
    assert {t.name.split(".bug-")[0] for t in TWINS} == names
    assert set(KNOWN_MISSES) <= {t.stem for t in TWINS}


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_correct_kernel_is_silent(path):
    assert check(path) == []


@pytest.mark.parametrize("path", list(xfail_if_known(TWINS, KNOWN_MISSES)))
def test_twin_is_caught_on_its_line(path):
    assert_caught(path)
