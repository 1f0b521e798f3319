"""attention.backward (examples/attention_parts/backward*.py) without a GPU:
the entry's ValueErrors before any driver call or allocation (the fake
driver and fake torch of test_attention_api.py), its three launches and
their arguments, capture, the cache key of the real kernels' sources, and
the real kernels compiling with the synchronization checker silent (with
and without debug waits), and the verifier's error on a stage never released."""
from __future__ import annotations

import json
import re
import struct
from types import SimpleNamespace

import pytest

from examples.attention_parts import api, backward_api
from test_attention_api import BF16, F16, F32, Driver, Tensor, fakes  # noqa: F401  (fixture)


class BwdDriver(Driver):
    """Driver whose launches read each kernel's own argument count."""
    ARGS = {"attn_bwd_pre": 13, "attn_bwd": 12, "attn_bwd_dq": 6}

    def cuLaunchKernelEx(self, config, function, params, extra):
        name = function.split(":", 1)[1]
        self.arg_count = self.ARGS[name.rsplit("_d", 1)[0] if "_s" not in name
                                   else "attn_bwd"]
        result = super().cuLaunchKernelEx(config, function, params, extra)
        self.launches[-1] = (name, *self.launches[-1])
        return result


@pytest.fixture
def bwd_fakes(fakes, monkeypatch):
    driver = BwdDriver()
    monkeypatch.setattr(fakes.rt, "_driver", lambda: driver)
    fakes.driver = driver
    return fakes


class FakeCompiler:
    """api.Compiler over made-up sources of the three kernels."""

    def __init__(self):
        self.built = []
        self.compiler = api.Compiler(self.build, lambda: "v1")

    def build(self, fields):
        d, kind = fields["head_dim"], fields["kernel"]
        w = fields["consumers"]
        entry = {"bwd_pre": f"attn_bwd_pre_d{d}", "bwd_dq": f"attn_bwd_dq_d{d}",
                 "bwd": f"attn_bwd_d{d}_s2" + f"_w{w}" * (w > 1) + "_causal" * fields["causal"]
                 }[kind]
        launch = {"entry": entry, "threads": 128 * (1 + w) if kind == "bwd" else 128,
                  "smem_bytes": 115712 if kind == "bwd" else 0, "consumers": w}

        def compile_cubin():
            self.built.append(entry)
            return b"\x7fELF" + json.dumps(fields).encode()
        return json.dumps(fields, sort_keys=True), launch, compile_cubin


def tensors(b=2, h=4, s=1000, d=128):
    q, k, v, o, do = (Tensor((b, h, s, d)) for _ in range(5))
    return q, k, v, o, Tensor((b, h, s), dtype=F32), do


def _refused(fakes, tmp_path, match, *args, causal=False, scale=None):
    bwd = backward_api.Backward(api.Cache(tmp_path, FakeCompiler().compiler))
    with pytest.raises(ValueError, match=match):
        bwd(*args, causal, scale)
    assert fakes.driver.calls == [] and fakes.torch.allocated == []
    assert not (tmp_path / "index.json").exists()


def test_bad_input_is_refused_before_any_cuda_call(bwd_fakes, tmp_path):
    q, k, v, o, lse, do = tensors()
    cpu = SimpleNamespace(type="cpu", index=None)
    f = bwd_fakes
    _refused(f, tmp_path, "o must be torch.bfloat16, got torch.float16",
             q, k, v, Tensor(q.shape, dtype=F16), lse, do)
    _refused(f, tmp_path, "do must be on a CUDA device", q, k, v, o, lse,
             Tensor(q.shape, device=cpu))
    _refused(f, tmp_path, r"do has shape \(2, 4, 999, 128\), q \(2, 4, 1000, 128\)",
             q, k, v, o, lse, Tensor((2, 4, 999, 128)))
    _refused(f, tmp_path, "lse must be torch.float32, got torch.bfloat16",
             q, k, v, o, Tensor((2, 4, 1000), dtype=BF16), do)
    _refused(f, tmp_path, r"lse must be \[batch, heads, seq\], got shape \(2, 4, 1000, 1\)",
             q, k, v, o, Tensor((2, 4, 1000, 1), dtype=F32), do)
    _refused(f, tmp_path, r"lse has shape \(2, 4, 999\): it must be \[batch, heads, seq\]",
             q, k, v, o, Tensor((2, 4, 999), dtype=F32), do)
    strided = Tensor((2, 4, 1000), dtype=F32, strides=(8000, 2000, 2))
    _refused(f, tmp_path, r"lse must be contiguous .* strides are \(8000, 2000, 2\)",
             q, k, v, o, strided, do)
    bshd = Tensor((2, 1000, 4, 128)).permute(0, 2, 1, 3)
    _refused(f, tmp_path, r"do: strides .* have no \[batch\*heads, seq, head_dim\] view",
             q, k, v, o, lse, bshd)
    _refused(f, tmp_path, "o: the head dim must be contiguous", q, k, v,
             Tensor((2, 4, 128, 1000)).permute(0, 1, 3, 2), lse, do)
    _refused(f, tmp_path, "head_dim 96 is not supported", *tensors(d=96))
    _refused(f, tmp_path, "causal is a bool, got str", *tensors(), causal="yes")
    _refused(f, tmp_path, "scale must be a positive finite number", *tensors(), scale=0.0)
    # an lse whose size-1 dimensions have other strides is contiguous all the same
    q, k, v, o, _, do = tensors(1, 1, 300, 64)
    lse = Tensor((1, 1, 300), dtype=F32, strides=(7, 5, 1))
    assert backward_api.check_inputs(q, k, v, o, lse, do, False, None)[:4] == (1, 1, 300, 64)
    assert f.driver.calls == []


def _words(launch):
    return launch[3]


@pytest.mark.parametrize("consumers", [None, 2])
def test_three_launches_and_their_arguments(bwd_fakes, tmp_path, consumers):
    compiler = FakeCompiler()
    bwd = backward_api.Backward(api.Cache(tmp_path, compiler.compiler), consumers)
    w = consumers or backward_api.CONSUMERS[128]
    name = "attn_bwd_d128_s2" + f"_w{w}" * (w > 1) + "_causal"
    b, h, s, d = 2, 4, 1000, 128
    # o a head-dim slice of a wider tensor: read through its strides
    wide = Tensor((b, h, s, 3 * d), strides=(h * s * 3 * d, s * 3 * d, 3 * d, 1))
    q, k, v, _, lse, do = tensors(b, h, s, d)
    o = Tensor((b, h, s, d), strides=wide.stride(), ptr=wide.data_ptr())
    dq, dk, dv = bwd(q, k, v, o, lse, do, True)
    assert sorted(compiler.built) == [name, "attn_bwd_dq_d128", "attn_bwd_pre_d128"]
    assert all(t.shape == (b, h, s, d) and t.dtype is BF16 for t in (dq, dk, dv))
    names = bwd_fakes.driver.names()
    assert not any("Synchronize" in n for n in names)
    pre, main, conv = bwd_fakes.driver.launches
    assert [x[0] for x in (pre, main, conv)] == ["attn_bwd_pre_d128", name, "attn_bwd_dq_d128"]
    s_pad, bh = 1024, b * h
    assert pre[1] == (-(-bh * s_pad // 128),) and main[1] == (-(-s // (64 * w)) * bh,)
    assert conv[1] == (-(-bh * s * d // 2 // 128),)
    assert all(x[2] == 0x5717 for x in (pre, main, conv))         # torch's stream
    lse2, delta, acc = [t for t in bwd_fakes.torch.allocated if t.dtype is F32]
    assert lse2.shape == delta.shape == (bh * s_pad,) and acc.shape == (bh * s_pad * d,)
    wp, wm, wc = _words(pre), _words(main), _words(conv)
    # preprocess: o, do, lse, lse2, delta, dq_accum, seq, seq_pad, rows, o/do strides
    assert wp[0] == o.data_ptr() and wp[1] == do.data_ptr() and wp[2] == lse.data_ptr()
    assert wp[5] == acc.data_ptr() and wp[6] & 0xFFFFFFFF == s and wp[7] & 0xFFFFFFFF == s_pad
    assert wp[9:13] == [s * 3 * d, 3 * d, s * d, d]
    # main: four descriptors, dq_accum, dk, dv, lse2, delta (the preprocess's), seq, scales
    assert all(w % 128 == 0 for w in wm[:4]) and len(set(wm[:4])) == 4
    assert wm[4] == acc.data_ptr() and wm[5] == dk.data_ptr() and wm[6] == dv.data_ptr()
    assert wm[7:9] == [wp[3], wp[4]] and wm[9] & 0xFFFFFFFF == s
    f32 = [struct.unpack("<f", struct.pack("<I", w & 0xFFFFFFFF))[0] for w in wm[10:12]]
    assert f32 == pytest.approx([d ** -0.5 * 1.4426950408889634, d ** -0.5], rel=1e-6)
    assert wp[3] == lse2.data_ptr() and wp[4] == delta.data_ptr()
    # the four maps: [b h, s, d] with (1, 64, 64) boxes
    assert [m[3] for m in bwd_fakes.driver.maps] == [[64, 64, 1]] * 4
    assert bwd_fakes.driver.maps[3][0] == do.data_ptr()
    # convert: dq_accum -> dq, scaled
    assert wc[0] == acc.data_ptr() and wc[1] == dq.data_ptr()
    assert wc[4] & 0xFFFFFFFF == bh * s * d // 2


def test_capture_allocates_only_torch_memory(bwd_fakes, tmp_path):
    """Inside a capture: the three launches (new torch memory each call:
    the launches are prepared again, the dK/dV kernel's shared-memory
    attribute set again), no allocation, no synchronous copy; a new dO's
    descriptor is an asynchronous copy on torch's stream."""
    bwd = backward_api.Backward(api.Cache(tmp_path, FakeCompiler().compiler))
    q, k, v, o, lse, do = tensors(1, 2, 300, 64)
    bwd(q, k, v, o, lse, do)                      # warm-up: modules, descriptor slots
    bwd_fakes.driver.calls.clear()
    bwd_fakes.torch.capturing = True
    bwd(q, k, v, o, lse, do)
    launches = ["cuLaunchKernelEx", "cuFuncSetAttribute", "cuLaunchKernelEx", "cuLaunchKernelEx"]
    assert bwd_fakes.driver.names() == launches
    bwd_fakes.driver.calls.clear()
    do2 = Tensor(do.shape)
    bwd(q, k, v, o, lse, do2)
    assert bwd_fakes.driver.names() == ["cuTensorMapEncodeTiled", "cuMemcpyHtoDAsync", *launches]
    assert bwd_fakes.driver.maps[-1][0] == do2.data_ptr()
    assert bwd_fakes.driver.calls[1][3] == 0x5717                # on torch's stream


# ---------------------------------------------------------------------------
# the real kernels (MLIR)
# ---------------------------------------------------------------------------

def test_the_cache_keys_the_real_kernels_sources():
    pytest.importorskip("mlir")
    from examples import attention
    fields = backward_api.fields
    a = attention.backward_kernel_for(fields("bwd", 128, False))
    b = attention.backward_kernel_for(fields("bwd", 128, False))
    c = attention.backward_kernel_for(fields("bwd", 128, True))
    assert a[0] == b[0] != c[0] and "gpu.module" in a[0]
    assert a[1] == {"entry": "attn_bwd_d128_s2", "threads": 256, "consumers": 1,
                    # K, V, two stages of Q and dO, one dS^T buffer, the f32 dQ tile,
                    # two stages of lse2 and delta (64 f32 each), the alignment
                    "smem_bytes": 6 * 64 * 128 * 2 + 64 * 64 * 2 + 64 * 128 * 4 + 4 * 256
                    + 1024}
    pre = [attention.backward_kernel_for(fields("bwd_pre", d, True)) for d in (64, 128)]
    assert pre[0][0] != pre[1][0] and pre[0][1]["entry"] == "attn_bwd_pre_d64"
    two = attention.backward_kernel_for(fields("bwd", 128, False, 2))
    assert two[0] != a[0] and two[1]["entry"] == "attn_bwd_d128_s2_w2" and two[1]["threads"] == 384
    # the row kernels: one variant per head dim
    assert fields("bwd_pre", 64, True, 2) == fields("bwd_pre", 64, False)


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("consumers", [1, 2])
def test_the_kernels_compile_with_the_checker_silent(d, causal, consumers):
    pytest.importorskip("mlir")
    import warnings

    from examples.attention_parts import backward, backward_rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # a checker warning fails the test
        main = backward.build(cfg=backward.BwdConfig(head_dim=d, causal=causal,
                                                     consumers=consumers))
        compiled = main.compile()
        debug = main.compile(debug_waits=1_000_000)
        rows = [backward_rows.preprocess(d).compile(), backward_rows.convert(d).compile()]
    assert compiled.warnings == [] and debug.warnings == []
    ptx = compiled.ptx
    assert "setmaxnreg.dec.sync.aligned.u32 \t24" in ptx
    assert f"setmaxnreg.inc.sync.aligned.u32 \t{backward.CONSUMER_REGS[consumers]}" in ptx
    assert f".maxntid {128 * (1 + consumers)}, 1, 1" in ptx
    # per query block: S^T, dP^T (d/16 each), dV, dK (4 each), dQ: 4 per 64
    # keys and 64 columns (one consumer: every half over its keys; two at
    # d = 128: one half each over both warpgroups' keys, the
    # warpgroup's half an address; two at d = 64: the whole over its own keys)
    dq = {1: 4 * d // 64, 2: 8 if d == 128 else 4}[consumers]
    assert ptx.count("wgmma.mma_async") == 2 * d // 16 + 8 + dq
    # dQ = dS K: both operands transposed (imm-trans-a, imm-trans-b)
    assert len([ln for ln in ptx.splitlines() if "wgmma.mma_async" in ln
                and ln.rstrip().endswith("1,  1;")]) == dq
    # dQ added by bulk reductions of the shared dQ tile(s), no atomics
    tiles = 2 if (consumers, d) == (2, 64) else 1
    assert ptx.count("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32") == tiles
    assert "atom.global" not in ptx and "red.global" not in ptx
    assert ptx.count("cp.async.bulk.commit_group") == 1
    # the issuer waits for the last reduction's read: before each block's dQ
    # tile is written again, and before the CTA exits
    assert len(re.findall(r"cp\.async\.bulk\.wait_group\.read\s+0;", ptx)) == 2
    assert "cp.async.bulk.tensor" in ptx and "ld.local" not in ptx
    # lse2 and delta reach the stage by bulk copies, read from shared memory
    assert ptx.count("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes") == 2
    assert "ld.global" not in ptx
    assert debug.ptx != ptx and "globaltimer" in debug.ptx
    assert all(r.warnings == [] and "mbarrier" not in r.ptx for r in rows)


def test_a_stage_never_released_is_a_located_error(monkeypatch):
    """Without the consumer's release of the Q/dO stage (the producer's next
    acquire of it would hang), building the kernel fails with the
    verifier's error, located at the wait in backward.py."""
    pytest.importorskip("mlir")
    from examples.attention_parts import backward
    from mbarrier_dialect.lang import pipeline
    monkeypatch.setattr(pipeline.ConsumerSlot, "release", lambda self, pred=None: None)
    with pytest.raises(ValueError, match="backward.py:[0-9]+:[0-9]+: error: 'mbarrier.pipe.wait' "
                       "op makes a slot that is never released"):
        backward.build(cfg=backward.BwdConfig(head_dim=64))


def test_the_causal_order_is_a_permutation_longest_first():
    """The causal CTAs' (batch x head, key block) order: every pair once,
    and within each group of CAUSAL_GROUP batch x heads key block 0 of each
    before key block 1 (the most query blocks first)."""
    pytest.importorskip("mlir")
    from examples.attention_parts import backward
    G = backward.CAUSAL_GROUP

    def select(c, a, b):
        return a if c else b
    for n_kv, bh_total in ((16, 128), (64, 32), (3, 5), (7, 13), (1, 1), (5, 8)):
        order = [backward._longest_first(b, n_kv, bh_total, select)
                 for b in range(n_kv * bh_total)]
        assert sorted(order) == [(h, t) for h in range(bh_total) for t in range(n_kv)]
        for g0 in range(0, bh_total, G):
            tiles = [t for h, t in order if g0 <= h < g0 + G]
            assert tiles == sorted(tiles)
