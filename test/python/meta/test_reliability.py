"""Reliability checks that run in CI: every diagnostic is expected by a lit
test, a short fuzz run finds no crash, and bad input at the compiler's edges
gives a clear error and a non-zero exit, never a traceback from deep inside."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TEST_DIR = os.path.join(ROOT, "test")


def _sources(*dirs):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for name in files:
                if name.endswith((".cpp", ".h")):
                    yield os.path.join(base, name)


def _diagnostic_fragments():
    """String literals streamed into emitOpError()/emitError()/emitWarning()
    in C++, into an InFlightDiagnostic named `diag` built in several
    statements, or into a report of the synchronization checker
    (`out.report(op, severity) << ...`)."""
    fragments = set()
    for path in _sources("dialect", "passes"):
        text = open(path).read()
        for stmt in re.findall(r"(?:emit(?:Op)?(?:Error|Warning)\(\)|\bdiag\s*<<|\bout\.report\()[^;]*;",
                               text, re.S):
            # Adjacent literals are one C++ string; `<<` separates pieces.
            for piece in re.split(r"<<", stmt):
                lit = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', piece))
                if len(lit.strip()) >= 12:
                    fragments.add(lit.strip())
    return sorted(fragments)


# Diagnostics the C++ emits that no passing lit test can expect yet, each
# with the reason. An entry must name a fragment the C++ still emits and that
# no lit test expects yet: when one becomes testable, add the case and remove
# the entry (the audit fails until then).
KNOWN_UNTESTED = {
    ", which this NVPTX backend does not know":
        "unreachable today: no mbarrier op needs a PTX ISA version above the "
        "newest one the NVPTX backend knows",
}


def _expected_errors():
    """{path: [message]} of the lit tests' `expected-error ... {{message}}`
    and `expected-warning ... {{message}}` lines; an XFAIL test proves
    nothing and is left out."""
    found = {}
    for base, dirs, files in os.walk(TEST_DIR):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # .lit-out: lit's outputs
        for name in files:
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(base, name)
            text = open(path).read()
            if re.search(r"^//\s*XFAIL:", text, re.M):
                continue
            messages = []
            for line in text.splitlines():
                if "expected-error" in line or "expected-warning" in line:
                    messages += re.findall(r"\{\{(.*)\}\}", line)
            if messages:
                found[path] = messages
    return found


def _expected_by_lit(fragment, expected):
    # A fragment may be split around a streamed value: match its longest
    # piece between format values.
    key = max(fragment.split("'"), key=len).strip()
    return any(key in message for message in expected)


def test_expected_errors_are_checked():
    """An expected-error line only proves something where the file is run
    with -verify-diagnostics."""
    found = _expected_errors()
    assert len(found) >= 3, found
    for path in found:
        runs = [line for line in open(path) if "RUN:" in line]
        assert any("-verify-diagnostics" in line for line in runs), (
            f"{os.path.relpath(path, ROOT)} has expected-error lines but no "
            "RUN line with -verify-diagnostics")


def test_every_diagnostic_is_expected_by_a_test():
    """Every message the C++ emits is the expected-error of a lit test case
    that triggers it (test/**/*.mlir, run with -verify-diagnostics); a
    fragment found anywhere else under test/ does not count."""
    fragments = _diagnostic_fragments()
    assert len(fragments) >= 20, fragments
    expected = [m for messages in _expected_errors().values() for m in messages]
    missing = [f for f in fragments
               if f not in KNOWN_UNTESTED and not _expected_by_lit(f, expected)]
    assert not missing, "diagnostics no lit expected-error checks:\n" + "\n".join(missing)
    for fragment, reason in KNOWN_UNTESTED.items():
        assert fragment in fragments, f"KNOWN_UNTESTED names a gone diagnostic: {fragment!r}"
        assert not _expected_by_lit(fragment, expected), (
            f"{fragment!r} is now expected by a lit test: remove it from KNOWN_UNTESTED")


FUZZ_SEED = 20261129
FUZZ_BATCHES = 60  # x 64 mutants: about 20 s on a 2-core machine


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("fuzz", os.path.join(TEST_DIR, "fuzz", "fuzz.py"))
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    return fuzz


def test_short_fuzz_run_finds_no_crash():
    """A fixed run (seed and batch count, not a time box): the same inputs on
    every machine, however fast."""
    fuzz = _fuzz_module()
    import mbarrier_dialect

    stats = fuzz.fuzz(mbarrier_dialect.mbarrier_opt_path(), seed=FUZZ_SEED,
                      num_batches=FUZZ_BATCHES, crash_dir=None, log=lambda *_: None)
    assert stats["batches"] == FUZZ_BATCHES
    assert stats["inputs"] == FUZZ_BATCHES * 64
    assert not stats["crashes"], stats["crashes"][0]


def test_fuzz_inputs_depend_only_on_the_seed():
    fuzz = _fuzz_module()
    corpus = fuzz.seeds()
    assert len(corpus) > 50

    def first(seed, n=3):
        gen = fuzz.batches(seed, corpus)
        return [next(gen) for _ in range(n)]

    assert first(FUZZ_SEED) == first(FUZZ_SEED)
    assert first(FUZZ_SEED) != first(FUZZ_SEED + 1)
    with pytest.raises(ValueError, match="exactly one of seconds and num_batches"):
        fuzz.fuzz("mbarrier-opt", seconds=1, seed=0, num_batches=1)
    with pytest.raises(ValueError, match="exactly one of seconds and num_batches"):
        fuzz.fuzz("mbarrier-opt", seed=0)


def _compile_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "mbarrier_dialect", *args],
                          input=stdin, capture_output=True)


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "cannot read"),
    (lambda p: open(p, "w").close(), "is empty"),
    (lambda p: open(p, "wb").write(b"\xff\xfe\x00module"), "is not UTF-8"),
    (lambda p: open(p, "w").write("module { this is not mlir }"), "error:"),
    (lambda p: open(p, "w").write("module {}"), "no gpu.module"),
])
def test_mbarrier_compile_bad_input(tmp_path, setup, message):
    path = str(tmp_path / "in.mlir")
    setup(path)
    proc = _compile_cli(path, "-o", str(tmp_path / "out.cubin"))
    err = proc.stderr.decode()
    assert proc.returncode != 0
    assert message in err, err
    assert "Traceback" not in err


def test_mbarrier_compile_unknown_chip(tmp_path):
    example = os.path.join(ROOT, "examples", "remote_pingpong.mlir")
    proc = _compile_cli(example, "--chip", "sm_9x", "--emit", "ptx")
    err = proc.stderr.decode()
    assert proc.returncode != 0 and "Traceback" not in err
    assert "sm_9x" in err


def test_mbarrier_compile_lower_chip_names_op_and_chip(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text("""
    module attributes {gpu.container_module} {
      gpu.module @m {
        gpu.func @k(%r: i32) kernel {
          %c0 = arith.constant 0 : index
          %g = mbarrier.alloc : !mbarrier.group<1>
          %v = mbarrier.remote_view %g, %r : !mbarrier.group<1>
          mbarrier.arrive %v[%c0] : !mbarrier.remote<1>
          gpu.return
        }
      }
    }""")
    # (--no-check-sync: the snippet is no protocol, and the synchronization
    # checker, which runs first, would reject its exit after a remote arrival.)
    proc = _compile_cli(str(src), "--no-check-sync", "--chip", "sm_80", "--emit", "ptx")
    err = proc.stderr.decode()
    assert proc.returncode != 0
    # The op whose instruction needs sm_90 (the view alone emits none).
    assert "'mbarrier.arrive' op needs sm_90 or newer for the shared::cluster arrive form" in err
    assert "the target chip is sm_80" in err
    # located in the input file, at the op's line
    assert err.startswith(f"{src}:8:11: error: 'mbarrier.arrive' op needs sm_90"), err


# The runtime's edges (non-ELF cubin, impossible launch shapes, a malformed
# manifest) are tested in test_runtime.py; on the GPU by test/gpu/suite/edge_manifest.py.


def test_ptxas_rejection_carries_its_message():
    from mbarrier_dialect.ptxas import PtxasError, assemble

    bad = ".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n"
    with pytest.raises(PtxasError) as err:
        assemble(bad, "sm_90")
    text = str(err.value)
    assert "ptxas rejected the PTX for sm_90" in text and "bogus" in text


def test_missing_ptxas_is_a_clear_error(monkeypatch):
    import importlib.util

    from mbarrier_dialect import ptxas

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ptxas.PtxasError, match="ptxas not found: install nvidia-cuda-nvcc-cu12"):
        ptxas.find_ptxas()
