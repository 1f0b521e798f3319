"""The held-out corpus (test/Analysis/SyncCheck/heldout/): correct kernels
after public protocols that the production corpus does not cover (FA3
backward, varlen and FP8 V-transpose; FlashInfer decode; CUTLASS ptr-array
and PipelineAsync with cp.async; DeepGEMM fp8 scale factors and 2-CTA
multicast; Mosaic GPU; Triton TLX and the persistent TMA tutorial; TileLang;
Blackwell UMMA with tensor memory; cluster split-KV combine and ring
all-gather, split-K reduction; cub's sub-warp reduce in a bulk-copy ring), each with one buggy twin (`NAME.bug-WHAT.mlir`, one bug on the
line marked `// BUG`; `// BUG-ALT` where the header also accepts a
diagnostic on a use of it). They were written without reading the checker.

The run is the production driver's: the passes `mbarrier-to-ptx` runs before
the checker, then `mbarrier-check-sync`, through `mbarrier-opt`. A correct
kernel must draw no diagnostic; a twin must draw one of the severity its
header states ("Every launch": an error; "Some launches": an error or a
warning) on a marked line.

What the checker gets wrong today is listed, not hidden: KNOWN_MISSES (twins
not caught on their line) and KNOWN_FALSE_ALARMS (correct kernels with a
diagnostic) run as strict xfails, so each entry must go when the checker
improves. MANIFEST.md in the corpus folder has the table."""

from pathlib import Path

import pytest

from sync_corpus import assert_caught, check, header, xfail_if_known

HELDOUT = Path(__file__).resolve().parents[2] / "Analysis" / "SyncCheck" / "heldout"

KERNELS = sorted(p for p in HELDOUT.glob("*.mlir") if ".bug-" not in p.name)
BUGGY = sorted(HELDOUT.glob("*.bug-*.mlir"))

# Measured with the checker of main at efda335 (2026-12-03).
KNOWN_MISSES = {
    "flashinfer_decode.bug-wait-group-off-by-one":
        "cp.async groups (cp.async.wait_group N one too loose in a multistage ring) are not modeled",
    "cutlass_ptr_array.bug-one-consumer":
        "a pipe typed with 1 consumer released by two warpgroups per stage: silent",
    "cutlass_cpasync_ws.bug-arrive-without-noinc":
        "cp.async.mbarrier.arrive without .noinc (a net-zero arrival) is not counted as a missing arrival",
    "triton_persistent_flat.bug-store-wait-missing":
        "staging buffer rewritten in a flattened persistent loop without the TMA store's wait_group.read",
    "fa3_varlen_reverse.bug-consumer-state-per-tile":
        "a pipe state restarted per tile by the consumer while the producer carries its own",
    "cluster_ring_allgather.bug-release-own-slot":
        "back-pressure released on the CTA's own barrier instead of the sender's (remote view left out)",
    "cluster_splitk_reduce.bug-root-from-blockidx":
        "a rank from blockIdx that leaves the cluster draws a warning although known_grid_size = 8 makes it certain",
    "fa3_fp8_vtranspose.bug-missing-proxy-fence":
        "generic-proxy smem stores read by wgmma with no fence.proxy.async before the commit",
}
KNOWN_FALSE_ALARMS = {
    "cluster_splitkv_combine":
        "warning on DSMEM stores followed by exit with no cluster barrier, though their only target waits for them",
}


def test_heldout_shape():
    """At least 12 kernels; one twin each, with a marked line, a public source
    and a twin of a kernel that exists; the known lists name real files."""
    assert len(KERNELS) >= 12
    stems = {p.stem for p in KERNELS}
    assert sorted(t.name.split(".bug-")[0] for t in BUGGY) == sorted(stems)
    for path in KERNELS + BUGGY:
        assert "Follows" in header(path) or "same public source" in header(path), path.name
    for twin in BUGGY:
        assert any(line.rstrip().endswith("// BUG") for line in twin.read_text().splitlines()), twin.name
    assert set(KNOWN_MISSES) <= {t.stem for t in BUGGY}
    assert set(KNOWN_FALSE_ALARMS) <= stems


@pytest.mark.parametrize("path", list(xfail_if_known(KERNELS, KNOWN_FALSE_ALARMS)))
def test_heldout_kernel_is_silent(path):
    assert check(path) == []


@pytest.mark.parametrize("path", list(xfail_if_known(BUGGY, KNOWN_MISSES)))
def test_heldout_twin_is_caught(path):
    assert_caught(path)
