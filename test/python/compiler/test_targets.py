"""Every chip the NVPTX backend knows, with default features and with each
PTX-version edge, compiled in this very process: every case ends in PTX or a
CompileError that names the fix, never an abort of the interpreter (an LLVM
ERROR or an assertion in the backend would take pytest down with it)."""
from __future__ import annotations

import re

import pytest

from mbarrier_dialect import targets
from mbarrier_dialect.compiler import CompileError, compile

# A local arrive and wait (sm_80 / sm_90 forms) and a remote arrival (the
# shared::cluster form: sm_90, PTX 8.0) in a 2-CTA cluster kernel.
KERNEL = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%phase: i32, %peer: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] on %peer : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      gpu.return
    }
  }
}
"""
CLUSTER_FORMS_PTX = 80  # the shared::cluster arrive and the .cluster scope


def _version(ptx: str) -> int:
    major, minor = re.search(r"^\.version (\d+)\.(\d+)$", ptx, re.M).groups()
    return int(major) * 10 + int(minor)


def _sm(chip: str) -> int:
    return int(re.match(r"sm_(\d+)", chip).group(1))


CHIPS = targets.chips()
VERSIONS = targets.ptx_versions()


def test_the_backend_tables_are_read_not_copied():
    assert "sm_90" in CHIPS and "sm_90a" in CHIPS and "sm_120" in CHIPS
    assert all(c.startswith("sm_") for c in CHIPS)
    assert VERSIONS == sorted(VERSIONS) and 86 in VERSIONS
    assert targets.min_ptx_version("sm_90") == 78
    assert targets.min_ptx_version("sm_120") == 87
    assert targets.min_ptx_version("sm_91") is None


@pytest.mark.parametrize("chip", CHIPS)
def test_every_chip_every_ptx_edge_is_ptx_or_a_located_error(chip):
    minimum = targets.min_ptx_version(chip)
    assert minimum in VERSIONS
    below = [v for v in VERSIONS if v < minimum]
    cases = {
        "derived": None,
        "chip minimum": f"+ptx{minimum}",
        "newest known": f"+ptx{VERSIONS[-1]}",
        "unknown version": "+ptx100",
        "malformed": "ptx86",
        "two versions": f"+ptx{minimum},+ptx{VERSIONS[-1]}",
    }
    if below:
        cases["one below the chip minimum"] = f"+ptx{below[-1]}"
    for label, features in cases.items():
        try:
            # The kernel is a target-checking snippet, not a barrier protocol
            # (its remote arrival precedes any publication of the init).
            result = compile(KERNEL, chip, features=features, emit="ptx", check_sync=False)
        except CompileError as e:
            message = str(e)
            if label == "unknown version":
                assert "unknown PTX ISA version in target features '+ptx100'" in message
            elif label == "malformed":
                assert "malformed target features 'ptx86'" in message
            elif label == "two versions":
                assert "name more than one PTX ISA version" in message
            elif label == "one below the chip minimum":
                assert f"needs at least PTX ISA {minimum // 10}.{minimum % 10}" in message
                assert f"raise it to +ptx{minimum}" in message
            elif _sm(chip) < 90:
                # The cluster forms need sm_90: a located error naming the op.
                assert "needs sm_90 or newer" in message and "but the target chip is" in message
            elif label == "chip minimum" and minimum < CLUSTER_FORMS_PTX:
                assert "needs PTX ISA 8.0" in message and "raise it to +ptx80" in message
            else:
                raise AssertionError(f"{chip} {label} ({features!r}): unexpected error\n{message}")
            continue
        assert label in ("derived", "chip minimum", "newest known"), (chip, label)
        assert _sm(chip) >= 90, chip
        version = _version(result.ptx)
        if label == "derived":
            # The lowest version that the chip and the ops need.
            assert version == max(minimum, CLUSTER_FORMS_PTX), (chip, version)
        elif label == "chip minimum":
            assert version == minimum
        else:
            assert version == VERSIONS[-1]
        assert "mbarrier.arrive.release.cluster.shared::cluster.b64" in result.ptx
        assert f".target {chip}" in result.ptx


def test_the_chip_of_an_nvvm_target_is_read_through_the_bindings():
    from mlir import ir
    with ir.Context():
        assert targets.nvvm_target_chip(ir.Attribute.parse('#nvvm.target<chip = "sm_90a">')) == "sm_90a"
        assert targets.nvvm_target_chip(ir.Attribute.parse('#nvvm.target<O = 3>')) == "sm_50"
        assert targets.nvvm_target_chip(ir.Attribute.parse('"sm_90"')) is None
