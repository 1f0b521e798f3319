"""mbarrier_dialect.manifest writes what test/gpu/suite/run_manifest.py (the
MLIR-free runner of the GPU machine) reads."""
import importlib.util
import json
import os

import numpy as np
import pytest

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import Kernel

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gpu", "suite", "run_manifest.py")


def _runner():
    spec = importlib.util.spec_from_file_location("run_manifest", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kernel(name="copy"):
    with Kernel(name, block=32, grid=2, params=[("src", "ptr"), ("out", "ptr"), ("n", "i32")]) as k:
        i = k.block_rank() * 32 + k.thread_rank()
        k.store(k.load(k.param("src"), i) + k.param("n"), k.param("out"), i)
    return k


def test_written_manifest_is_what_run_manifest_reads(tmp_path):
    src = np.arange(64, dtype=np.int32)
    case = manifest.Case(_kernel(), [manifest.buffer("src", src),
                                     manifest.buffer("out", fill=-1, shape=[64]),
                                     manifest.scalar(5)],
                         {"out": src + 5}, inputs={"src": src}, timeout_s=30)
    written = manifest.write([case], str(tmp_path))
    assert json.load(open(tmp_path / "manifest.json")) == written
    (entry,) = _runner().load_manifest(tmp_path)
    assert entry["name"] == entry["entry"] == "copy" and entry["grid"] == [2, 1, 1]
    assert entry["block"] == [32, 1, 1] and entry["cluster"] is None and entry["timeout_s"] == 30
    assert open(tmp_path / "copy.cubin", "rb").read(4) == b"\x7fELF"
    assert [a["kind"] for a in entry["args"]] == ["buffer", "buffer", "scalar"]
    runner = _runner()
    init = runner._array(entry["args"][0]["init"], (64,), np.dtype("int32"), tmp_path, "src")
    expect = runner._array(entry["expect"]["out"], (64,), np.dtype("int32"), tmp_path, "out")
    assert (init == src).all() and (expect == src + 5).all()


def test_manifest_errors(tmp_path):
    k = _kernel()
    out = manifest.buffer("out", fill=0, shape=[64])
    with pytest.raises(ValueError, match="expected out is int64\\[64\\], the buffer int32\\[64\\]"):
        manifest.write([manifest.Case(k, [out], {"out": np.zeros(64, np.int64)})], str(tmp_path))
    with pytest.raises(ValueError, match="expect names 'nope', which is not a buffer argument"):
        manifest.write([manifest.Case(k, [out], {"nope": np.zeros(64, np.int32)})], str(tmp_path))
    with pytest.raises(ValueError, match="kernel names must be unique in a manifest: \\['copy'\\]"):
        case = manifest.Case(k, [out], {})
        manifest.write([case, case], str(tmp_path))
    with pytest.raises(ValueError, match="give an array, or a shape and a fill value"):
        manifest.buffer("x", shape=[4])
    with pytest.raises(TypeError, match="not a bool"):
        manifest.scalar(True)
