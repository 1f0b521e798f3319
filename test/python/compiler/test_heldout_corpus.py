"""The held-out corpora (test/Analysis/SyncCheck/heldout/, heldout2/, heldout3/,
heldout4/): correct kernels after public protocols that the production
corpus does not cover, each with one buggy twin (`NAME.bug-WHAT.mlir`, one bug
on the line marked `// BUG`; `// BUG-ALT` where the header also accepts a
diagnostic on a use of it). Both were written without reading the checker;
heldout2 also takes no protocol of heldout, heldout3 none of heldout, heldout2
or production, heldout4 none of those four.

heldout: FA3 backward, varlen and FP8 V-transpose; FlashInfer decode; CUTLASS
ptr-array and PipelineAsync with cp.async; DeepGEMM fp8 scale factors and
2-CTA multicast; Mosaic GPU; Triton TLX and the persistent TMA tutorial;
TileLang; Blackwell UMMA with tensor memory; cluster split-KV combine and
ring all-gather, split-K reduction; cub's sub-warp reduce in a bulk-copy ring.

heldout2: the CUDA guide's spatial partitioning, cuda::pipeline roles and
1-D TMA; the PTX ISA's test_wait loop; Marlin's and CUTLASS SM80's cp.async
mainloops; quack's cluster reduction; Triton NVWS arefs and the grouped-GEMM
tutorial; FA3 paged KV; CUTLASS stream-K fixup, the TMA store pipeline and
KernelTmaWarpSpecialized's lagging release; ThunderKittens LCSF; TileLang's
non-specialized pipeline; Mamba's state passing over a warpgroup hand-off;
the PTX ISA's bar.arrive example; the CUDA guide's DSMEM histogram.

heldout3: Gluon's warp-specialized and persistent matmuls; the CuTe Hopper
TMA tutorial; FA2's cp.async forward; FA3's dynamic tile-count smem and P in
smem; ThunderKittens' H100 attention; CUTLASS's consumer_try_wait tokens, 2 x
2 cluster multicast and epilogue C-load pipeline; cuda-samples' AWBarrier and
multistage async copy; Pallas Mosaic GPU attention's schedule barrier; Mosaic
GPU's collective barrier; the PTX ISA's per-warp bulk copies.

heldout4: fast.cu's cluster-multicast and TMA-store-epilogue H100 GEMMs;
Gluon's pipelined wgmma and tcgen05 matmuls and its multi-CTA lead barriers;
TransformerEngine's MXFP8 cast; CUB's bulk-copy transform; the CuTe Blackwell
tutorials (cooperative copy, TMA + UMMA, multicast) and sgemm_sm80; FA2's
cp.async backward; Pallas Mosaic GPU's warp-specialized pipeline; CUTLASS's
Blackwell FMHA softmax order barrier, CuTe DSL persistent GEMM and 2.x
MmaPipelined; TLX's Blackwell GEMM with double-buffered tensor memory.

The run is the production driver's: the passes `mbarrier-to-ptx` runs before
the checker, then `mbarrier-check-sync`, through `mbarrier-opt`. A correct
kernel must draw no diagnostic; a twin must draw one of the severity its
header states ("Every launch": an error; "Some launches": an error or a
warning) on a marked line.

What the checker gets wrong today is listed per corpus, not hidden:
KNOWN_MISSES (twins not caught on their line) and KNOWN_FALSE_ALARMS (correct
kernels with a diagnostic) run as strict xfails, so each entry must go when
the checker improves. MANIFEST.md in each corpus folder has the table."""

from pathlib import Path

import pytest

from sync_corpus import assert_caught, check, header, xfail_if_known

SYNC_CHECK = Path(__file__).resolve().parents[2] / "Analysis" / "SyncCheck"

# Per corpus: the fewest correct kernels it must hold, the twins missed and
# the correct kernels diagnosed by the checker.
CORPORA = {
    # Measured with the checker of main at f4ac7b8 (2026-12-03).
    "heldout": dict(
        at_least=12,
        known_misses={
        },
        known_false_alarms={
        },
    ),
    # Measured with the checker of main after the merges of 2026-12-04.
    "heldout2": dict(
        at_least=15,
        known_misses={
        },
        known_false_alarms={
        },
    ),
    # Measured with the checker of main after the merges of 2026-12-04.
    "heldout3": dict(
        at_least=15,
        known_misses={
        },
        known_false_alarms={
        },
    ),
    # Written blind; measured with the checker of main at its merge (2026-12-04).
    "heldout4": dict(
        at_least=15,
        known_misses={
            "gluon_wgmma_pipelined.bug-mma-wait-two-outstanding":
                "warpgroup_mma_wait(2) before refilling a slot an in-flight wgmma reads: silent",
            "gluon_tcgen05_pipelined.bug-acc-commit-by-another-thread":
                "tcgen05.commit of acc_bar by a thread that issued no MMA: silent",
            "fa2_bwd_cpasync.bug-no-syncthreads-after-ds-store":
                "dS stored to shared memory and read by other warps with no CTA barrier between: silent",
            "cutlass_mma_pipelined.bug-write-stage-not-toggled":
                "the write stage of a double buffer never toggled (a stage overwritten while read): silent",
            "fastcu_tma_store_epilogue.bug-store-wait-without-barrier":
                "staging buffer rewritten by other threads after thread 128's wait_group.read with no barrier: silent",
            "cute_bw_mma_copy.bug-no-proxy-fence-before-mma":
                "generic-proxy smem writes read by tcgen05.mma with no fence.proxy.async: silent",
            "tlx_bw_gemm_ws.bug-tmem-phase-per-tile":
                "tensor-memory buffer phase t & 1 where (t / 2) & 1 is right: silent",
        },
        known_false_alarms={
        },
    ),
}
KNOWN_FALSE_ALARMS: dict[str, str] = {}


def kernels(corpus: str) -> list[Path]:
    return sorted(p for p in (SYNC_CHECK / corpus).glob("*.mlir") if ".bug-" not in p.name)


def twins(corpus: str) -> list[Path]:
    return sorted((SYNC_CHECK / corpus).glob("*.bug-*.mlir"))


def params(paths_of, known_key: str):
    """pytest params over every corpus, `corpus/stem` ids, the corpus's known
    entries strict xfails."""
    for corpus, spec in CORPORA.items():
        yield from xfail_if_known(paths_of(corpus), spec[known_key], prefix=f"{corpus}/")


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_heldout_shape(corpus):
    """At least its number of kernels; one twin each, with a marked line, a
    public source and a twin of a kernel that exists; the known lists name
    real files."""
    spec, kernel_paths, twin_paths = CORPORA[corpus], kernels(corpus), twins(corpus)
    assert len(kernel_paths) >= spec["at_least"]
    stems = {p.stem for p in kernel_paths}
    assert sorted(t.name.split(".bug-")[0] for t in twin_paths) == sorted(stems)
    for path in kernel_paths + twin_paths:
        assert "Follows" in header(path) or "same public source" in header(path), path.name
    for twin in twin_paths:
        assert any(line.rstrip().endswith("// BUG") for line in twin.read_text().splitlines()), twin.name
    assert set(spec["known_misses"]) <= {t.stem for t in twin_paths}
    assert set(spec["known_false_alarms"]) <= stems


@pytest.mark.parametrize("path", list(params(kernels, "known_false_alarms")))
def test_heldout_kernel_is_silent(path):
    assert check(path) == []


@pytest.mark.parametrize("path", list(params(twins, "known_misses")))
def test_heldout_twin_is_caught(path):
    assert_caught(path)
