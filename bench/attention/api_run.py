#!/usr/bin/env python3
"""attention.forward's torch entry on the GPU machine (no MLIR there: the
cubins come from the cache api_build.py filled), in one process:

1. correctness: O and lse of random data against the f32 math reference
   (run.py's), next to cuDNN's and FA2's (SDPA) error on the same inputs;
   the rule is run.py's (O within 2x the worse torch bf16 backend, relative
   Frobenius at most 1e-2, lse within 1e-3, no NaN); odd lengths; strided
   inputs (a head-dim slice of a wider tensor, [1, s, h, d] permuted) give
   the bits of their contiguous copies; bad input is a ValueError;
2. CUDA graphs: a captured call replayed on new q data gives the bits of
   an eager call;
3. speed, interleaved round-robin: ours, FlashAttention-4
   (flash_attn.cute.flash_attn_func, when importable), cuDNN and FA2
   through SDPA; 16 heads, 16k tokens per call; each timed eager (10
   calls between CUDA events) and as a CUDA-graph replay (10 captured
   calls); TFLOP/s = 4 b h s^2 d / t (halved when causal), the median of
   5 rounds.

    python3 api_run.py DIR [--json FILE] [--seqs 1024,...] [--no-fa4] [--head-dims 64,128]

FlashAttention-4 (``flash_attn.cute``) is imported from the package path
where it is installed (``PYTHONPATH=/tmp/pyext`` in BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def errors(torch, got, ref):
    g = got.float()
    return {"rel_fro": float(torch.linalg.norm(g - ref) / torch.linalg.norm(ref)),
            "max_abs": float((g - ref).abs().max()), "nan": int(torch.isnan(g).sum())}


SHAPES = ((1, 16, 1024), (2, 16, 777), (1, 8, 1000), (1, 4, 3000), (4, 2, 2048), (1, 2, 1))
# head dim 256: seq 1000 and 4096 (a masked tail of the 80-row kv blocks, and many blocks)
SHAPES_256 = ((1, 16, 1000), (2, 2, 4096), (2, 8, 1000), (1, 16, 4096), (1, 2, 1))


def check(torch, fwd, run, sdpa, fa4=None, head_dims=(64, 128)):
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda")
    g.manual_seed(31)
    ok_all, rows = True, []
    for d in head_dims:
        for causal in (False, True):
            for b, h, s in SHAPES_256 if d == 256 else SHAPES:
                q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=g)
                           .to(torch.bfloat16) for _ in range(3))
                scale = 1 / math.sqrt(d)
                o, lse = fwd(q, k, v, causal)
                ref_o, ref_lse = run.reference(torch, q, k, v, causal, scale)
                e = errors(torch, o, ref_o)
                worst = {"rel_fro": 0.0, "max_abs": 0.0}
                for name, be in sdpa.items():
                    try:
                        with torch.nn.attention.sdpa_kernel(be):
                            t = torch.nn.functional.scaled_dot_product_attention(
                                q, k, v, is_causal=causal)
                    except RuntimeError:    # a backend that does not take the shape (seq 1)
                        continue
                    te = errors(torch, t, ref_o)
                    worst = {m: max(worst[m], te[m]) for m in worst}
                if worst["rel_fro"] == 0.0:  # no torch backend: bf16 rounding's bound
                    worst = {"rel_fro": 5e-3, "max_abs": 1e-2}
                lse_err = float((lse - ref_lse).abs().max())
                fa4_e = None
                if fa4 is not None:        # FA4's own error, reported (not in the rule)
                    try:
                        out = fa4(*(t.transpose(1, 2).contiguous() for t in (q, k, v)),
                                  causal=causal)
                        out = out[0] if isinstance(out, tuple) else out
                        fa4_e = errors(torch, out.transpose(1, 2), ref_o)
                    except Exception as exc:  # noqa: BLE001  a shape FA4 does not take
                        fa4_e = {"error": str(exc).splitlines()[0][:100]}
                ok = (e["nan"] == 0 and e["rel_fro"] <= min(1e-2, 2 * worst["rel_fro"])
                      and e["max_abs"] <= 2 * worst["max_abs"] and lse_err <= 1e-3)
                ok_all &= ok
                rows.append({"shape": [b, h, s, d], "causal": causal, "ours": e,
                             "torch_worst": worst, "fa4": fa4_e, "lse_max_abs": lse_err,
                             "ok": ok})
                print(f"  check {b}x{h}x{s}x{d} causal={causal}: rel {e['rel_fro']:.2e} max "
                      f"{e['max_abs']:.2e} lse {lse_err:.1e} | torch worst rel "
                      f"{worst['rel_fro']:.2e} max {worst['max_abs']:.2e} | fa4 "
                      f"{(fa4_e or {}).get('rel_fro', float('nan')):.2e} max "
                      f"{(fa4_e or {}).get('max_abs', float('nan')):.2e} -> "
                      f"{'ok' if ok else 'FAIL'}", flush=True)
    # strided inputs through the descriptors' strides: the bits of the contiguous call
    for d in head_dims:
        wide = torch.randn(2, 4, 1000, 3 * d, device="cuda", generator=g).to(torch.bfloat16)
        q, k, v = wide[..., :d], wide[..., d:2 * d], wide[..., 2 * d:]
        o1, l1 = fwd(q, k, v, True)
        o2, l2 = fwd(q.contiguous(), k.contiguous(), v.contiguous(), True)
        bshd = torch.randn(1, 900, 6, d, device="cuda", generator=g).to(torch.bfloat16)
        p = bshd.permute(0, 2, 1, 3)
        o3, l3 = fwd(p, p, p)
        o4, l4 = fwd(p.contiguous(), p.contiguous(), p.contiguous())
        same = bool(torch.equal(o1, o2) and torch.equal(l1, l2) and torch.equal(o3, o4)
                    and torch.equal(l3, l4))
        ok_all &= same
        print(f"  strided d={d}: head-dim slices and [1, s, h, d] permuted "
              f"{'bit-identical' if same else 'DIFFER'} to contiguous copies", flush=True)
        rows.append({"strided": d, "ok": same})
    refused = []
    q = torch.randn(2, 4, 256, 128, device="cuda").to(torch.bfloat16)
    for what, args in (("float16", (q.half(), q, q)), ("head dim 96", (q[..., :96],) * 3),
                       ("bshd b>1", (q.transpose(1, 2).contiguous().transpose(1, 2), q, q)),
                       ("cpu", (q.cpu(), q, q))):
        try:
            fwd(*args)
            refused.append(f"{what}: NOT refused")
            ok_all = False
        except ValueError as exc:
            refused.append(f"{what}: {exc}")
    print("  refused: " + " | ".join(refused), flush=True)
    return ok_all, rows


def check_graph(torch, fwd, head_dims=(64, 128)):
    ok = True
    for d, s, causal in ((128, 4096, False), (64, 1000, True), (128, 1024, False),
                         (256, 4096, False), (256, 1000, True)):
        if d not in head_dims:
            continue
        q, k, v = (torch.randn(2, 8, s, d, device="cuda").to(torch.bfloat16) for _ in range(3))
        fwd(q, k, v, causal)                      # warm-up: load, descriptor slots
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o, lse = fwd(q, k, v, causal)
        q.copy_(torch.randn_like(q))
        graph.replay()
        eo, else_ = fwd(q, k, v, causal)
        torch.cuda.synchronize()
        same = bool(torch.equal(o, eo) and torch.equal(lse, else_))
        ok &= same
        print(f"  graph d={d} s={s} causal={causal}: replay on new q "
              f"{'bit-identical' if same else 'DIFFERS'} to eager", flush=True)
    return ok


def capture(torch, fn, iters=10):
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(iters):
            fn()
    return graph


def time_graph(torch, graph, iters=10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    graph.replay()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / iters


def bench(torch, fwd, sdpa, fa4, seqs, time_eager, rounds=5, head_dims=(64, 128)):
    rows = []
    for d in head_dims:
        for causal in (False, True):
            for s in seqs:
                b, h = max(1, 16384 // s), 16
                q, k, v = (torch.randn(b, h, s, d, device="cuda").to(torch.bfloat16)
                           for _ in range(3))
                impls = {"ours": lambda: fwd(q, k, v, causal)}
                for name, be in sdpa.items():
                    def run(be=be):
                        with torch.nn.attention.sdpa_kernel(be):
                            return torch.nn.functional.scaled_dot_product_attention(
                                q, k, v, is_causal=causal)
                    impls[name] = run
                if fa4 is not None:
                    qs, ks, vs = (t.transpose(1, 2).contiguous() for t in (q, k, v))
                    impls["fa4"] = lambda: fa4(qs, ks, vs, causal=causal)
                graphs = {}
                for name, fn in impls.items():
                    try:
                        graphs[name] = capture(torch, fn)
                    except Exception as exc:  # noqa: BLE001  a backend that cannot be captured
                        print(f"  {name}: no graph ({str(exc).splitlines()[0][:100]})")
                times = {f"{n}_{m}": [] for n in impls for m in ("eager", "graph")}
                for _ in range(rounds):
                    for name, fn in impls.items():
                        times[f"{name}_eager"].append(time_eager(torch, fn))
                        if name in graphs:
                            times[f"{name}_graph"].append(time_graph(torch, graphs[name]))
                flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
                row = {"d": d, "causal": causal, "seq": s, "batch": b, "heads": h}
                for key, ts in times.items():
                    if ts:
                        row[key] = flops / (statistics.median(ts) * 1e-3) / 1e12
                rows.append(row)
                cells = " ".join(f"{k} {v:.0f}" for k, v in row.items()
                                 if isinstance(v, float))
                print(f"  d={d} causal={causal} seq={s}: {cells}", flush=True)
                del graphs
                torch.cuda.empty_cache()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--json")
    parser.add_argument("--seqs", default="1024,2048,4096,8192,16384")
    parser.add_argument("--no-fa4", action="store_true")
    parser.add_argument("--head-dims", default="64,128", help="e.g. 256 (its own run)")
    args = parser.parse_args()
    directory = Path(args.dir).resolve()
    head_dims = tuple(int(x) for x in args.head_dims.split(",") if x)
    import torch
    torch.zeros(1, device="cuda")                  # torch's primary context first
    rt = _load("mbarrier_runtime", directory / "runtime.py")
    run = _load("attn_run", directory / "run.py")
    from attention_parts import api  # DIR/attention_parts: the script runs from its copy in DIR
    api.set_runtime(rt)
    fwd = api.Forward(api.Cache(directory / "cache", None))
    from torch.nn.attention import SDPBackend
    sdpa = {"cudnn": SDPBackend.CUDNN_ATTENTION, "fa2": SDPBackend.FLASH_ATTENTION}
    fa4 = None
    if not args.no_fa4:
        try:  # flash_attn on the package path (BENCHMARKS.md: PYTHONPATH=/tmp/pyext)
            from flash_attn.cute import flash_attn_func as fa4
        except Exception as exc:  # noqa: BLE001
            print(f"no FA4: {exc}")
    import traceback
    ok, check_rows, rows = False, [], []
    print("== correctness", flush=True)
    try:
        ok, check_rows = check(torch, fwd, run, sdpa, fa4, head_dims)
    except Exception:  # noqa: BLE001  report, and go on to the other sections
        traceback.print_exc()
    print("== graphs", flush=True)
    try:
        ok &= check_graph(torch, fwd, head_dims)
    except Exception:  # noqa: BLE001
        ok = False
        traceback.print_exc()
    print("== speed (TFLOP/s)", flush=True)
    try:
        rows = bench(torch, fwd, sdpa, fa4, [int(x) for x in args.seqs.split(",") if x],
                     run.time_round, head_dims=head_dims)  # run.py's eager timing: 10 calls between two events
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    print(f"{'d':>4} {'causal':>6} {'seq':>6} | " + " ".join(
        f"{n:>12}" for n in ("ours e/g", "fa4 e/g", "cudnn e/g", "fa2 e/g", "ours_g/fa4")))
    for r in rows:
        def cell(n):
            return f"{r.get(n + '_eager', 0):5.0f}/{r.get(n + '_graph', 0):<5.0f}"
        fa4g = r.get("fa4_graph")
        best = max(r.get("fa4_graph", 0), r.get("fa4_eager", 0))
        ratio = f"{r['ours_graph'] / best:.2f}" if fa4g else "-"
        print(f"{r['d']:>4} {str(r['causal']):>6} {r['seq']:>6} | {cell('ours'):>12} "
              f"{cell('fa4'):>12} {cell('cudnn'):>12} {cell('fa2'):>12} {ratio:>12}")
    print(f"correctness and graphs: {'ok' if ok else 'FAIL'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"ok": ok, "check": check_rows, "bench": rows},
                                              indent=1))


if __name__ == "__main__":
    main()
