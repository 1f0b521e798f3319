"""TMA tensor maps: the runtime's argument checks (no GPU), the PTX of
lang.cp_async_bulk_tensor / prefetch_tensormap, and the manifest's
tensormap argument."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

from mbarrier_dialect import manifest
from mbarrier_dialect.lang import (Kernel, MBarrier, TMABar, cp_async_bulk_tensor, if_then,
                                   prefetch_tensormap)

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"


@pytest.fixture(scope="module")
def rt():
    spec = importlib.util.spec_from_file_location("mbarrier_runtime_tma", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------
# Runtime: argument checks before any CUDA call
# --------------------------------------------------------------------------

def test_arguments_in_driver_order(rt):
    a = rt.tensor_map_arguments(256, "int32", (256, 128), (64, 32))
    assert a["rank"] == 2 and a["cu_dtype"] == "INT32"
    assert a["global_dim"] == [128, 256]            # innermost first
    assert a["global_strides"] == [128 * 4]         # rank - 1 strides, bytes
    assert a["box_dim"] == [32, 64]
    assert a["element_strides"] == [1, 1]
    assert (a["swizzle"], a["l2_promotion"], a["oob_fill"]) == ("NONE", "L2_128B", "NONE")


def test_arguments_3d_with_strides(rt):
    a = rt.tensor_map_arguments(0, np.float16, (4, 8, 64), (2, 8, 64), strides=(2048, 256, 2),
                                swizzle="128B", oob_fill="nan")
    assert a["global_dim"] == [64, 8, 4] and a["global_strides"] == [256, 2048]
    assert (a["swizzle"], a["oob_fill"]) == ("128B", "NAN_REQUEST_ZERO_FMA")


@pytest.mark.parametrize("kwargs,message", [
    (dict(shape=(), box=()), "tensorRank must be 1 to 5, got 0"),
    (dict(shape=(2,) * 6, box=(4,) * 6), "tensorRank must be 1 to 5, got 6"),
    (dict(shape=(256, 256), box=(64,)), "boxDim has 1 dimensions, the tensor 2"),
    (dict(shape=(256, 256), box=(64, 512)), "boxDim must be non-zero and less than or equal to 256"),
    (dict(shape=(256, 256), box=(0, 64)), "boxDim must be non-zero"),
    (dict(shape=(256, 0), box=(64, 64)), "globalDim must be non-zero"),
    (dict(shape=(256, 256), box=(64, 2)),
     "boxDim[0] * elementSizeInBytes(tensorDataType) must be a multiple of 16 bytes, got 2 * 4 = 8"),
    (dict(shape=(256, 255), box=(64, 64)),
     "globalStrides must be a multiple of 16 and less than 2^40, got 1020 bytes"),
    (dict(shape=(256, 256), box=(64, 64), strides=(1024, 8)),
     "the innermost dimension must be contiguous"),
    (dict(shape=(256, 256), box=(64, 64), swizzle="64B"),
     "with swizzle 64B, boxDim[0] * elementSizeInBytes(tensorDataType) must be less than or "
     "equal to the swizzle size 64, got 256"),
    (dict(shape=(256, 256), box=(64, 64), swizzle="16B"), "swizzle '16B' is not one of"),
    (dict(shape=(256, 256), box=(64, 64), l2_promotion="512B"), "l2_promotion '512B'"),
    (dict(shape=(256, 256), box=(64, 64), oob_fill="nan"),
     "can only be used when tensorDataType represents a floating-point data type"),
    (dict(shape=(256, 256), box=(64, 64), element_strides=(1, 9)),
     "elementStrides must be non-zero and less than or equal to 8"),
    (dict(shape=(256, 256), box=(64, 64), nbytes=1024), "more than the buffer's 1024"),
])
def test_invalid_arguments(rt, kwargs, message):
    kwargs = dict(kwargs)
    shape, box = kwargs.pop("shape"), kwargs.pop("box")
    with pytest.raises(ValueError) as err:
        rt.tensor_map_arguments(0, "int32", shape, box, **kwargs)
    assert message in str(err.value)


def test_unaligned_address_and_dtype(rt):
    with pytest.raises(ValueError, match="globalAddress 0x1008 must be aligned to 16 bytes"):
        rt.tensor_map_arguments(0x1008, "int32", (256, 256), (64, 64))
    with pytest.raises(ValueError, match="tensorDataType: a tensor map cannot hold int8"):
        rt.tensor_map_arguments(0, "int8", (256, 256), (64, 64))
    assert rt.tensor_map_arguments(0, "bfloat16", (64,), (64,))["cu_dtype"] == "BFLOAT16"


def test_encode_checks_before_cuda(rt):
    # A DeviceBuffer object around a fake address: the checks raise before
    # any driver call, so no GPU is needed.
    buf = rt.DeviceBuffer(0x1004, (256, 256), np.dtype("int32"))
    with pytest.raises(ValueError, match="globalAddress 0x1004"):
        rt.encode_tensor_map_tiled(buf, "int32", (256, 256), (64, 64))
    with pytest.raises(TypeError, match="describes a DeviceBuffer"):
        rt.encode_tensor_map_tiled(np.zeros(4), "int32", (4,), (4,))
    with pytest.raises(TypeError, match="needs the box"):
        rt.encode_tensor_map_tiled(buf)


def test_encode_passes_the_driver_its_argument_types(rt, monkeypatch):
    """cuda-bindings wants cuuint64_t/cuuint32_t lists (plain ints raise
    TypeError while marshalling, before the driver is reached): here the
    call gets past marshalling -- to a missing driver, an error code, or a
    descriptor on a GPU machine."""
    pytest.importorskip("cuda.bindings")
    monkeypatch.setattr(rt, "_current_device", lambda: None)
    buf = rt.DeviceBuffer(0x10000, (256, 256), np.dtype("int32"))
    try:
        tm = rt.encode_tensor_map_tiled(buf, "int32", (256, 256), (64, 64))
    except TypeError as exc:  # marshalling: the bug this guards against
        pytest.fail(f"argument types refused by cuda-bindings: {exc}")
    except Exception:  # noqa: BLE001  no driver, or it is not initialised here
        return
    assert len(tm.descriptor) == 128 and tm.box_bytes == 16384


def test_tensor_map_object(rt):
    tm = rt.TensorMap(bytes(128), dtype="int32", shape=(256, 256), box=(64, 64),
                      strides=(1024, 4), address=0)
    assert tm.box_bytes == 64 * 64 * 4
    tm.free()  # nothing on the device yet: idempotent, no CUDA call
    with pytest.raises(ValueError, match="128 bytes"):
        rt.TensorMap(bytes(64), dtype="int32", shape=(1,), box=(1,), strides=(4,), address=0)


def test_pack_args_names_tensor_map(rt):
    with pytest.raises(TypeError, match="a DeviceBuffer, a TensorMap or a numpy scalar"):
        rt._pack_args([object()])


def test_compiler_launch_accepts_tensor_map():
    from mbarrier_dialect import launch, runtime

    tm = runtime.TensorMap(bytes(128), dtype="int32", shape=(4,), box=(4,), strides=(4,),
                           address=0)
    assert launch._launch_arg("k", 0, "!llvm.ptr<1>", tm) is tm
    with pytest.raises(TypeError, match="runtime.TensorMap"):
        launch._launch_arg("k", 0, "!llvm.ptr<1>", 5)


# --------------------------------------------------------------------------
# lang: the PTX of the tensor copy
# --------------------------------------------------------------------------

def _tma_kernel(name="tma", cluster=None, multicast=None, coords=None, prefetch=False):
    with Kernel(name, block=32, cluster=cluster,
                params=[("tmap", "ptr"), ("out", "ptr"), ("x", "i32")]) as k:
        pool = k.smem_pool()
        bar = TMABar(pool, 2)
        tile = pool.alloc(64 * 64, "i32", align=128)
        pool.commit()
        k.prologue({bar: 1})
        with if_then(k.is_thread(0)):
            if prefetch:
                prefetch_tensormap(k.param("tmap"))
            bar.arrive(1, tx_count=tile.nbytes)
            cp_async_bulk_tensor(tile, k.param("tmap"), coords or [k.param("x"), 64],
                                 bar=bar, stage=1, multicast_mask=multicast)
        bar.wait(1, 0)
        k.store(tile.load(k.thread_rank()), k.param("out"), k.thread_rank())
        if cluster:
            k.epilogue()
    return k


def _tensor_lines(ptx):
    return [line.strip() for line in ptx.splitlines() if "cp.async.bulk.tensor" in line]


# The NVPTX backend spells the (default) tile load mode out: ".global.tile".
TILED_2D = (r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global(\.tile)?"
            r"\.mbarrier::complete_tx::bytes")
OPERANDS = r" \[(%\w+)\], \[(%\w+), \{(%\w+), (%\w+)\}\], \[(%\w+)\]"


def test_ptx_tiled_2d_load_on_the_group_barrier():
    ptx = _tma_kernel().compile().ptx
    (line,) = _tensor_lines(ptx)
    match = re.fullmatch(TILED_2D + OPERANDS + ";", line)
    assert match, line
    # The barrier operand is stage 1 of the group (mbarrier.ptr): the
    # address the expect_tx arrival used.
    barrier = match.group(6)
    (arrive,) = [l for l in ptx.splitlines() if "mbarrier.arrive.expect_tx" in l]
    assert f"[{barrier}]" in arrive, (barrier, arrive)


def test_ptx_coordinates_innermost_first():
    ptx = _tma_kernel(coords=[3, 64]).compile().ptx
    (line,) = _tensor_lines(ptx)
    match = re.fullmatch(TILED_2D + OPERANDS + ";", line)
    assert match, line
    values = {}
    for l in ptx.splitlines():
        m = re.fullmatch(r"\s*mov\.[bus]32\s+(%r\d+), (-?\d+);", l)
        if m:
            values[m.group(1)] = m.group(2)
    # numpy order (row 3, column 64) is PTX order {64, 3}.
    assert [values.get(r, r) for r in (match.group(4), match.group(5))] == ["64", "3"]


def test_ptx_multicast_form():
    ptx = _tma_kernel("tma_mc", cluster=2, multicast=0b11).compile().ptx
    (line,) = _tensor_lines(ptx)
    assert re.fullmatch(TILED_2D + r"\.multicast::cluster" + OPERANDS + r", %rs\d+;", line), line


def test_ptx_prefetch_tensormap():
    ptx = _tma_kernel("tma_pf", prefetch=True).compile().ptx
    assert "prefetch.tensormap" in ptx


def test_lang_refuses_bad_operands():
    with Kernel("bad", block=32, params=[("tmap", "ptr"), ("n", "i32")]) as k:
        pool = k.smem_pool()
        tma, plain = TMABar(pool, 1), MBarrier(pool, 1)
        tile = pool.alloc(64, "i32", align=128)
        pool.commit()
        k.prologue({tma: 1, plain: 1})
        with pytest.raises(TypeError, match="completes on a TMABar"):
            cp_async_bulk_tensor(tile, k.param("tmap"), [0], bar=plain)
        with pytest.raises(TypeError, match="shared-memory buffer"):
            cp_async_bulk_tensor(k.param("tmap"), k.param("tmap"), [0], bar=tma)
        with pytest.raises(ValueError, match="1 to 5 coordinates"):
            cp_async_bulk_tensor(tile, k.param("tmap"), [0] * 6, bar=tma)
        with pytest.raises(ValueError, match="1 to 5 coordinates"):
            cp_async_bulk_tensor(tile, k.param("tmap"), [], bar=tma)
        with pytest.raises(TypeError, match="pointer to its descriptor"):
            cp_async_bulk_tensor(tile, k.param("n"), [0], bar=tma)
        with pytest.raises(TypeError, match="global memory"):
            cp_async_bulk_tensor(tile, tile.ptr, [0], bar=tma)
        with pytest.raises(ValueError, match="non-zero 16-bit CTA mask"):
            cp_async_bulk_tensor(tile, k.param("tmap"), [0], bar=tma, multicast_mask=1 << 16)
        with pytest.raises(TypeError):
            cp_async_bulk_tensor(tile, k.param("tmap"), [True], bar=tma)


# --------------------------------------------------------------------------
# Manifest: the tensormap argument
# --------------------------------------------------------------------------

def test_manifest_tensormap_argument(tmp_path):
    import kernels
    import run_manifest
    written = manifest.write([kernels.tma_tile()], str(tmp_path))
    (entry,) = written["kernels"]
    (tm,) = [a for a in entry["args"] if a["kind"] == "tensormap"]
    assert tm == {"kind": "tensormap", "buffer": "src", "dtype": "int32", "shape": [256, 256],
                  "box": [64, 64], "swizzle": "none", "l2_promotion": "128B",
                  "oob_fill": "zero"}
    assert [a["kind"] for a in entry["args"]] == ["buffer", "tensormap", "buffer", "scalar",
                                                  "scalar"]
    expect = np.load(tmp_path / entry["expect"]["out"]["npy"])
    src = np.load(tmp_path / entry["args"][0]["init"]["npy"])
    assert (expect == src[64:128, 128:192]).all()
    ptx = (tmp_path / "tma_tile.ptx").read_text()
    assert re.search(TILED_2D, ptx)
    assert len(run_manifest.load_manifest(tmp_path)) == 1

    data = json.loads((tmp_path / "manifest.json").read_text())
    data["kernels"][0]["args"][1]["buffer"] = "nope"
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(run_manifest.ManifestError, match="not a buffer argument before it"):
        run_manifest.load_manifest(tmp_path)


def test_oob_case_expects_zero_fill():
    import kernels
    case = kernels.tma_tile(224, -16, name="tma_tile_oob")
    src, out = case.inputs["src"], case.expect["out"]
    assert (out[:32, 16:] == src[224:, :48]).all()
    assert (out[32:] == 0).all() and (out[:, :16] == 0).all()


def test_manifest_checks_tensormap_at_build_time(tmp_path):
    with Kernel("tm_bad", block=32, params=[("src", "ptr"), ("tmap", "ptr")]) as k:
        pass
    src = np.zeros((256, 256), np.int32)
    case = manifest.Case(k, [manifest.buffer("src", src),
                             manifest.tensormap("src", (256, 256), (64, 2))],
                         {}, inputs={"src": src})
    with pytest.raises(ValueError, match="tm_bad: tensormap of 'src': boxDim"):
        manifest.write([case], str(tmp_path))
