"""What the corpus drivers of the checker share (test_production_corpus.py,
test_heldout_corpus.py): run a corpus file through the passes
`mbarrier-to-ptx` runs before the checker and `mbarrier-check-sync`, read its
header's "Every launch" / "Some launches" and its `// BUG` lines, and judge a
twin. Imported by name: pytest puts this folder first on sys.path for its
test files."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

OPT = Path(sys.executable).parent / "mbarrier-opt"
PASSES = ["--mbarrier-lower-pipes", "--mbarrier-allocate-named-barriers", "--mbarrier-check-sync"]
DIAG = re.compile(r"^[^:\n]+:(\d+):\d+: (error|warning): ", re.M)
MARK = re.compile(r"// BUG(-ALT)?\s*$")


def check(path: Path) -> list[tuple[int, str]]:
    """(line, severity) of every located diagnostic on `path` (raised first
    where it holds nvgpu ops)."""
    passes = (["--mbarrier-raise-nvgpu"] if "nvgpu." in path.read_text() else []) + PASSES
    proc = subprocess.run([str(OPT), *passes, str(path), "-o", "/dev/null"],
                          capture_output=True, text=True, timeout=120)
    diags = [(int(m.group(1)), m.group(2)) for m in DIAG.finditer(proc.stderr)]
    if proc.returncode != 0:
        assert diags, f"{path.name}: mbarrier-opt failed without a located diagnostic:\n{proc.stderr}"
    return diags


def header(path: Path) -> str:
    return "\n".join(l for l in path.read_text().splitlines() if l.startswith("//"))


def every_launch(path: Path) -> bool:
    """Whether the header says 'Every launch' (an error is due) rather than
    'Some launches' (an error or a warning)."""
    h = header(path)
    every, some = "Every launch" in h, "Some launches" in h
    assert every != some, f"{path.name}: the header must say 'Every launch' or 'Some launches'"
    return every


def marked_lines(path: Path) -> set[int]:
    return {n for n, line in enumerate(path.read_text().splitlines(), 1)
            if not line.lstrip().startswith("//") and MARK.search(line)}


def xfail_if_known(paths, known: dict, prefix: str = ""):
    """pytest params of `paths` (ids: `prefix` + stem), those named in
    `known` as strict xfails."""
    for p in paths:
        marks = [pytest.mark.xfail(strict=True, reason=known[p.stem])] if p.stem in known else []
        yield pytest.param(p, id=prefix + p.stem, marks=marks)


def assert_caught(path: Path) -> None:
    """The twin at `path` draws a diagnostic of its header's severity on a
    marked line."""
    wanted = {"error"} if every_launch(path) else {"error", "warning"}
    lines = marked_lines(path)
    diags = check(path)
    hits = [(line, sev) for line, sev in diags if line in lines and sev in wanted]
    assert hits, f"{path.name}: wanted {sorted(wanted)} on lines {sorted(lines)}, got {diags}"
