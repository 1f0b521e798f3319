"""The IR correct-kernel corpus of issue 20 (test/Analysis/SyncCheck/corpus/)
compiles to a cubin with the synchronization checker off: every kernel is
valid IR that the whole pipeline (lower-pipes, NVVM, PTX, ptxas) accepts.
The lit tests of that folder check that the checker keeps the kernels
silent; those that are not silent today are XFAIL there, which also hides
their compile step, so this test keeps that step checked meanwhile."""
import pathlib
import re

import pytest

from mbarrier_dialect import compile

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "Analysis" / "SyncCheck" / "corpus"
FILES = sorted(CORPUS.glob("*.mlir"))


def test_the_corpus_has_its_files():
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_corpus_file_compiles_with_the_checker_off(path):
    modules = re.findall(r"^gpu\.module @(\w+)", path.read_text(), re.M)
    compiled = compile(path, check_sync=False)
    assert sorted(compiled.modules) == sorted(modules)
    assert all(m.cubin for m in compiled.modules.values())
