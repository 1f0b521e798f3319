"""The GPU suite. The build half (kernels -> cubins + manifest, with the PTX
forms checked) runs everywhere; the GPU half runs the manifest through
run_manifest.py where a CUDA GPU is present and is skipped, with the reason,
where none is (CI)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
import build_suite  # noqa: E402

# Kernels that arrive through remote views -> the local arrivals they make on
# purpose (predicated_remote arrives once on CTA 0's own barrier).
REMOTE_KERNELS = {"pingpong_2cta": 0, "predicated_remote": 1, "all_to_one_cluster4": 0,
                  "all_to_one_cluster16": 0,  # a non-portable cluster (more than 8 CTAs)
                  "signal_peer": 0, "remote_pingpong": 0, "cluster_ring": 0,
                  # pipelines with row multicast: the release reaches each CTA of the row
                  "tma_pipeline_c2_d4_w2_x2": 0, "tma_pipeline_c4_d4_w2_x4": 0,
                  "tma_pipeline_c2_d8_w1_x2": 0, "tma_pipeline_c4_d2_w4_x4": 0,
                  "gemm_c2_exact": 0, "tma_pipeline_rowcol_d4_w2_x4": 0,
                  "tma_pipeline_rowcol_d2_w1_x132": 0}
# Every example of examples/ and the kernel that runs it in the suite.
EXAMPLE_KERNELS = {"first_kernel.py": ["signal_peer"],
                   "producer_consumer.py": ["producer_consumer_2stage", "producer_consumer_4stage"],
                   "cluster_ring.py": ["cluster_ring"], "bulk_copy.py": ["bulk_copy"],
                   "remote_pingpong.mlir": ["remote_pingpong"],
                   "nvgpu_ws_tma.mlir": ["nvgpu_ws_tma"],
                   "tma_pipeline.py": ["tma_pipeline_c1_d4_w2_x1", "tma_pipeline_c2_d4_w2_x2",
                                       "tma_pipeline_c4_d4_w2_x4", "tma_pipeline_c1_d8_w1_x1",
                                       "tma_pipeline_c2_d8_w1_x2", "tma_pipeline_c4_d2_w4_x4"],
                   "gemm.py": ["gemm_c1_exact", "gemm_c2_exact", "gemm_pingpong_exact",
                               "gemm_aMN_bMN_exact", "gemm_aK_bMN_exact", "gemm_splitk_exact",
                               "gemm_splitk_reduce_exact"],
                   "attention.py": ["attention_d128_exact", "attention_d128_causal_pp_exact",
                                    "attention_d64_m192_causal_pp_p_exact"]}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu-suite")
    return str(out), build_suite.build(str(out))


def test_every_kernel_builds_to_a_cubin(suite):
    out, manifest = suite
    names = [k["name"] for k in manifest["kernels"]]
    assert len(names) == 37 and len(set(names)) == 37
    for entry in manifest["kernels"]:
        with open(os.path.join(out, entry["cubin"]), "rb") as f:
            assert f.read(4) == b"\x7fELF", entry["name"]
        for arg in entry["args"]:
            if arg["kind"] == "buffer" and "npy" in arg["init"]:
                assert os.path.exists(os.path.join(out, arg["init"]["npy"]))


@pytest.mark.parametrize("name", sorted(REMOTE_KERNELS))
def test_remote_kernels_use_only_cluster_arrivals(suite, name):
    out, _ = suite
    ptx = open(os.path.join(out, f"{name}.ptx")).read()
    assert "mapa.shared::cluster" in ptx
    assert ".shared::cluster.b64 _," in ptx
    # No arrival through a view became the local form.
    assert ptx.count("mbarrier.arrive.shared.b64") == REMOTE_KERNELS[name]
    assert ".reqnctapercluster" in ptx


def test_remote_pingpong_example_entry(suite):
    """examples/remote_pingpong.mlir, compiled from the file, is launched in
    the shape it declares and its output is checked (every thread of both
    CTAs saw every value its peer sent)."""
    out, manifest = suite
    (entry,) = [k for k in manifest["kernels"] if k["name"] == "remote_pingpong"]
    assert entry["entry"] == "remote_pingpong"
    assert entry["grid"] == [2, 1, 1] and entry["block"] == [128, 1, 1]
    assert entry["cluster"] == [2, 1, 1]
    assert [a["kind"] for a in entry["args"]] == ["buffer", "scalar"]
    iters = entry["args"][1]["value"]
    import numpy as np
    expect = np.load(os.path.join(out, entry["expect"]["out"]["npy"]))
    assert expect.shape == (256,) and (expect == iters).all()
    ptx = open(os.path.join(out, "remote_pingpong.ptx")).read()
    assert ".maxntid 128, 1, 1" in ptx and ".reqnctapercluster 2, 1, 1" in ptx
    # One initializing thread, the init fenced and published by a cluster
    # barrier; cluster-scope waits; a cluster barrier again before exit.
    assert ptx.count("mbarrier.init.shared.b64") == 1
    assert ptx.index("fence.mbarrier_init.release.cluster") < ptx.index("barrier.cluster.wait")
    assert ptx.count("barrier.cluster.arrive;") == 2 and ptx.count("barrier.cluster.wait;") == 2
    waits = [l for l in ptx.splitlines() if "mbarrier.try_wait" in l]
    assert waits and all(".acquire.cluster." in l for l in waits)
    # The value travels through distributed shared memory.
    assert "st.shared::cluster.b32" in ptx


def test_nvgpu_ws_tma_entry(suite):
    """examples/nvgpu_ws_tma.mlir, written in nvgpu, compiled with
    raise_nvgpu: one CTA of 96 threads, the tensor map of `src`, out =
    every tile plus one; the PTX is the raised ops' (docs/interop.md)."""
    out, manifest = suite
    (entry,) = [k for k in manifest["kernels"] if k["name"] == "nvgpu_ws_tma"]
    assert entry["grid"] == [1, 1, 1] and entry["block"] == [96, 1, 1]
    assert [a["kind"] for a in entry["args"]] == ["buffer", "tensormap", "buffer", "scalar"]
    assert entry["args"][1]["box"] == [16, 64]
    import numpy as np
    src = np.load(os.path.join(out, entry["args"][0]["init"]["npy"]))
    expect = np.load(os.path.join(out, entry["expect"]["out"]["npy"]))
    assert (expect == (src + 1).reshape(-1)).all()
    ptx = open(os.path.join(out, "nvgpu_ws_tma.ptx")).read()
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == 1
    assert ptx.count("mbarrier.try_wait.parity.shared.b64") == 2
    assert "nanosleep.u32" in ptx


def test_every_example_runs_in_the_suite_with_a_data_check(suite):
    """Each file of examples/ is in the manifest, and each of its entries
    checks every output buffer against data computed on the host."""
    import numpy as np

    out, manifest = suite
    examples = sorted(f for f in os.listdir(os.path.join(HERE, "..", "..", "..", "examples"))
                      if f.endswith((".py", ".mlir")) and f != "__init__.py")
    assert examples == sorted(EXAMPLE_KERNELS)
    entries = {k["name"]: k for k in manifest["kernels"]}
    for example, names in EXAMPLE_KERNELS.items():
        for name in names:
            entry = entries[name]
            buffers = {a["name"] for a in entry["args"] if a["kind"] == "buffer"}
            outputs = {a["name"] for a in entry["args"]
                       if a["kind"] == "buffer" and "fill" in a["init"]}
            assert outputs and outputs <= set(entry["expect"]) <= buffers, (example, name)
            for buf, spec in entry["expect"].items():
                expect = np.load(os.path.join(out, spec["npy"]))
                assert (expect != -1).any(), (name, buf)  # not the fill value


def test_example_ptx_forms(suite):
    out, _ = suite

    def ptx(name):
        return open(os.path.join(out, f"{name}.ptx")).read()

    ring = ptx("cluster_ring")
    assert "st.shared::cluster.b32" in ring and ".reqnctapercluster 4, 1, 1" in ring
    assert ring.count("mbarrier.arrive.release.cluster.shared::cluster.b64") == 2
    assert all(".acquire.cluster." in l for l in ring.splitlines() if "mbarrier.try_wait" in l)
    # prologue and epilogue: one cluster barrier after the inits, one after
    # the last remote access
    assert ring.count("barrier.cluster.wait;") == 2
    assert ring.rindex("barrier.cluster.wait") > max(ring.rindex("mbarrier.arrive"),
                                                     ring.rindex("st.shared::cluster"))
    copy = ptx("bulk_copy")
    assert "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes" in copy or \
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" in copy
    assert copy.index("mbarrier.arrive.expect_tx.shared.b64") < copy.index("cp.async.bulk")
    for stages in (2, 4):
        ring = ptx(f"producer_consumer_{stages}stage")
        assert ring.count("mbarrier.init.shared.b64") == 2 * stages
        assert "mbarrier.arrive.shared.b64" in ring and "mapa" not in ring
    ops = ptx("operators")
    assert "div.s32" in ops and "shr.s32" in ops  # (the i64 division has a div.u32 fast path)


def test_mlir_file_kernel_must_be_launched_as_declared():
    import kernels

    path = os.path.join(kernels.EXAMPLES, "remote_pingpong.mlir")
    with pytest.raises(ValueError, match="declares block"):
        kernels.MlirFileKernel(path, "remote_pingpong", grid=2, block=64, cluster=2)
    with pytest.raises(ValueError, match="no gpu.func @nope"):
        kernels.MlirFileKernel(path, "nope", grid=2, block=128, cluster=2)


def test_local_kernels_stay_local(suite):
    out, manifest = suite
    for entry in manifest["kernels"]:
        if entry["name"] in REMOTE_KERNELS:
            continue
        ptx = open(os.path.join(out, f"{entry['name']}.ptx")).read()
        assert "mapa" not in ptx and "shared::cluster.b64" not in ptx, entry["name"]


def _gpu_reason():
    try:
        from cuda.bindings import driver

        (err,) = driver.cuInit(0)
    except Exception as e:  # no libcuda.so: cuda-bindings raises on first use
        return f"no CUDA driver here ({type(e).__name__}: {e})"
    if err != driver.CUresult.CUDA_SUCCESS:
        return f"no CUDA GPU here (cuInit: {driver.cuGetErrorName(err)[1].decode()})"
    return None


def test_suite_runs_on_the_gpu(suite):
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    out, _ = suite
    proc = subprocess.run([sys.executable, os.path.join(HERE, "run_manifest.py"), out],
                          capture_output=True, text=True, timeout=900)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
