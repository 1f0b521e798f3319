"""The build half of the debug-wait evidence (debug_waits.py) and the judge
of its runner (run_debug_waits.py), everywhere; the GPU half is
tools/device/run.sh debug-waits'. The new hangs are ones the checker cannot see:
it compiles them (and their twins) without an error or a warning."""
import json
import os
import subprocess
import sys
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
import debug_waits  # noqa: E402
from bench.debug_waits import table as debug_waits_table  # noqa: E402
import run_debug_waits  # noqa: E402
import run_manifest  # noqa: E402

MARK = run_debug_waits.MARK


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("debug-waits")
    return out, debug_waits.build(str(out), bound_ns=200_000_000)


def _sites(ptx: str) -> list[str]:
    """Where each wait site of the PTX's site table is."""
    from mbarrier_dialect.runtime import debug_wait_sites
    return [where for where, _, _ in debug_wait_sites(ptx)]


def test_every_hang_has_a_twin_and_a_located_wait(built):
    out, written = built
    hangs = {k["name"]: k for k in written["hangs"]["kernels"]}
    twins = {k["name"] for k in written["twins"]["kernels"]}
    assert sorted(hangs) == sorted(
        ["b1_init_not_published", "b4_one_signal_for_four_warps", "b5_constant_parity",
         "b6_expect_tx_mismatch", "h1_wait_cycle", "h2_bytes_from_memory",
         "h3_producer_two_phases_ahead"])
    assert twins == {f"{name}_fixed" for name in hangs}
    for name, entry in hangs.items():
        assert entry["bound_ns"] == 200_000_000 and entry["timeout_s"] >= 10
        ptx = (out / "hangs" / f"{name}.ptx").read_text()
        located = set(_sites(ptx))
        # Each stuck_at line is the location of one of the kernel's waits.
        for at in entry["stuck_at"]:
            assert any(os.path.basename(w.rsplit(":", 1)[0]) == at for w in located), (name, at)
        assert "trap;" in ptx
    # The manifests are run_manifest.py's format (compute-sanitizer runs the
    # twins with the long bound).
    for part in ("hangs", "twins", "twins-sanitize"):
        assert len(run_manifest.load_manifest(out / part)) == 7
    slow = written["twins-sanitize"]["kernels"]
    assert {k["name"] for k in slow} == twins and {k["bound_ns"] for k in slow} == {20 * 10**9}
    assert ", 20000000001;" in (out / "twins-sanitize" / "h1_wait_cycle_fixed.ptx").read_text()


def test_h2_is_one_kernel_given_two_byte_counts(built):
    out, written = built
    entries = {k["name"]: k for part in ("hangs", "twins") for k in written[part]["kernels"]}
    counts = [entries[n]["args"][1]["init"]["fill"]
              for n in ("h2_bytes_from_memory", "h2_bytes_from_memory_fixed")]
    assert counts == [8192, 4096]
    ptx = [(out / part / f"{name}.ptx").read_text() for part, name in
           (("hangs", "h2_bytes_from_memory"), ("twins", "h2_bytes_from_memory_fixed"))]
    assert [p.replace("h2_bytes_from_memory_fixed", "h2_bytes_from_memory") for p in ptx] \
        == [ptx[0]] * 2


@pytest.mark.parametrize("builder, fixed", [
    (debug_waits.h1_wait_cycle, True),
    (debug_waits.h2_bytes_from_memory, False), (debug_waits.h2_bytes_from_memory, True),
    (debug_waits.h3_producer_two_phases_ahead, False),
    (debug_waits.h3_producer_two_phases_ahead, True)])
def test_the_checker_cannot_see_the_new_hangs(builder, fixed):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = builder(fixed).kernel.compile(emit="nvvm")
    assert compiled.warnings == []


def test_the_checker_sees_the_cross_cta_wait_cycle():
    """h1 (each CTA of a 2-CTA cluster waits on its own barrier before it
    arrives on the peer's: the hang debug waits located on the H200) is a
    class-12 error since the protocol model follows the CTAs of a cluster."""
    from mbarrier_dialect import CompileError
    with pytest.raises(CompileError, match="deadlock: a cycle in the wait-for graph: warp 0 of "
                                           "CTA 0 wait here on an mbarrier of CTA 0 for warp 0 "
                                           "of CTA 1"):
        debug_waits.h1_wait_cycle(False).kernel.compile(emit="nvvm")


def _hang():
    return {"name": "h", "bound_ns": 200_000_000, "stuck_at": ["k.py:12"]}


LINE = (f"{MARK}/build/here/k.py:12:9 (barrier group<1>[0] from /build/here/k.py:7:15, ...); "
        "barrier state 0x7ffff800 (phase 0, pending arrivals 1, tx field 0x000; sm_90 layout)")
NO_STATE = LINE.split("; barrier state")[0] + "; barrier state not read"


@pytest.mark.parametrize("result, ok, says", [
    ({"result": "TRAPPED", "seconds": 0.3, "lines": [LINE]}, True, "1 with the barrier's state"),
    ({"result": "TRAPPED", "seconds": 1.3, "lines": [LINE]}, False, "too late"),
    ({"result": "TRAPPED", "seconds": 0.3, "lines": [LINE.replace(":12:", ":13:")]}, False,
     "0 located"),
    ({"result": "TRAPPED", "seconds": 0.3, "lines": [LINE, NO_STATE]}, False,
     "a barrier state not read"),
    ({"result": "ERROR", "seconds": 0.3, "lines": []}, False, "0 lines"),
    ({"result": "HANG", "seconds": None}, False, "HANG"),
    ({"result": "PASS", "seconds": 0.01, "lines": [], "detail": ""}, False, "PASS"),
])
def test_judge_of_a_hang(result, ok, says):
    verdict, what = run_debug_waits.judge("hangs", _hang(), result)
    assert verdict == ok and says in what


def test_judge_of_a_twin():
    judge = run_debug_waits.judge
    assert judge("twins", {}, {"result": "PASS", "seconds": 0.01, "lines": []})[0]
    assert not judge("twins", {}, {"result": "PASS", "seconds": 0.01, "lines": [LINE]})[0]
    assert not judge("twins", {}, {"result": "FAIL", "seconds": 0.01, "lines": []})[0]


def test_runner_skips_without_gpu(built):
    from cuda.bindings import driver
    try:
        present = driver.cuInit(0)[0] == driver.CUresult.CUDA_SUCCESS
    except RuntimeError:
        present = False
    if present:
        pytest.skip("a GPU is present: the no-GPU skip path cannot be exercised")
    out, _ = built
    proc = subprocess.run([sys.executable, run_debug_waits.__file__, str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 77 and proc.stdout.startswith("SKIP: no usable GPU")


def test_cost_table(tmp_path):
    latency = {"rows": [{"label": "ping-pong", "unroll": 1, "reference_median": 958.0,
                         "ours_median": 959.4},
                        {"label": "local", "unroll": 4, "reference_median": 100.0,
                         "ours_median": 104.0}]}
    stream = {"stream": {"rows": [
        {"depth": 5, "rows": 8, "ctas_per_sm": c, "ref_ms": t, "ours_ms": t * r, "ratio": r,
         "ref_gbs": 4300 / t, "ours_gbs": 4300 / (t * r), "correct": True}
        for c, t, r in ((1, 1.0, 1.004), (2, 0.98, 1.002))]}}
    gemm = {"shapes": [{"shape": [8192, 8192, 8192], "torch": {"tflops": 690},
                        "c1_256": {"tflops": 680.0}, "c1_256_dw": {"tflops": 676.0}}]}
    paths = {}
    for name, data in (("latency", latency), ("stream", stream), ("gemm", gemm)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(data))
    rows = (debug_waits_table.latency_rows(latency) + debug_waits_table.stream_rows(stream)
            + debug_waits_table.gemm_rows(gemm))
    assert [r[3:] for r in rows] == [["+1 cycles", "ok"], ["+4 cycles", "over"],
                                     ["+0.20% time", "ok"], ["+0.30% time", "ok"],
                                     ["-0.59%", "ok"]]
    proc = subprocess.run([sys.executable, "-m", "bench.debug_waits.table", "--latency",
                           str(paths["latency"]), "--stream", str(paths["stream"]), "--gemm",
                           str(paths["gemm"])], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.count("\n") == 2 + len(rows)
    assert "| GEMM c1_256 8192x8192x8192 | 680 TFLOP/s | 676 TFLOP/s | -0.59% | ok |" in proc.stdout
