#!/usr/bin/env python3
"""attention.backward on the GPU machine (no MLIR there: the cubins come
from the cache bwd_build.py filled), in one process:

1. correctness: dQ, dK, dV of random data (o, lse from our forward) against
   the fp32 autograd of the math attention, next to SDPA's (cuDNN's and
   FA2's) own error on the same data; error = max |got - ref| / max |ref|
   per gradient; the rule: no NaN, and ours at most 2x the worse torch
   backend's (or 1e-2 where no backend takes the shape);
2. CUDA graphs: a captured backward replayed on new dO data gives the bits
   of an eager call;
3. speed (``--time``), interleaved round-robin: forward + backward of ours
   against cuDNN and FA2 through SDPA (their forward + autograd backward),
   16 heads, 16k tokens per call, eager and as a CUDA-graph replay;
   TFLOP/s = 3.5 x 4 b h s^2 d / t (halved when causal), the median of 5.

    python3 bwd_run.py DIR [--json FILE] [--time] [--seqs 2048,8192] [--consumers 1|2]
    python3 bwd_run.py DIR --once B,H,S[,D] [--consumers 1|2]

``--once``: only a forward and two backward calls at [B, H, S, D] (D 128
unless given; the target of ncu and compute-sanitizer), no check.
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


def reference(torch, q, k, v, do, causal, scale):
    """fp32 autograd of the math attention, one (batch, head) at a time."""
    b, h, s, d = q.shape
    grads = [torch.empty(b, h, s, d, device="cuda") for _ in range(3)]
    mask = torch.ones(s, s, device="cuda", dtype=torch.bool).tril() if causal else None
    for i in range(b):
        for j in range(h):
            qq, kk, vv = (t[i, j].float().requires_grad_() for t in (q, k, v))
            sc = (qq @ kk.t()) * scale
            if causal:
                sc = sc.masked_fill(~mask, float("-inf"))
            out = torch.softmax(sc, dim=-1) @ vv
            out.backward(do[i, j].float())
            for g, t in zip(grads, (qq, kk, vv)):
                g[i, j] = t.grad
    return grads


def rel_max(torch, got, ref):
    """(max |got - ref| / max |ref|, ||got - ref|| / ||ref||); the absolute
    errors where the reference is 0 (seq 1: dQ = dK = 0)."""
    g = got.float()
    if torch.isnan(g).any():
        return float("nan"), float("nan")
    top, norm = float(ref.abs().max()), float(torch.linalg.norm(ref))
    return (float((g - ref).abs().max()) / (top or 1.0),
            float(torch.linalg.norm(g - ref)) / (norm or 1.0))


def sdpa_grads(torch, be, q, k, v, do, causal):
    qq, kk, vv = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with torch.nn.attention.sdpa_kernel(be):
        out = torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
    out.backward(do)
    return qq.grad, kk.grad, vv.grad


def check(torch, fwd, bwd, sdpa):
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda")
    g.manual_seed(31)
    ok_all, rows = True, []
    for d in (64, 128):
        for causal in (False, True):
            for b, h, s in ((2, 4, 128), (1, 4, 777), (2, 2, 1000), (1, 4, 2048), (1, 2, 1)):
                q, k, v, do = (torch.randn(b, h, s, d, device="cuda", generator=g)
                               .to(torch.bfloat16) for _ in range(4))
                scale = 1 / math.sqrt(d)
                o, lse = fwd(q, k, v, causal)
                got = bwd(q, k, v, o, lse, do, causal)
                ref = reference(torch, q, k, v, do, causal, scale)
                ours = [rel_max(torch, x, r) for x, r in zip(got, ref)]
                theirs = {}
                for name, be in sdpa.items():
                    try:
                        tg = sdpa_grads(torch, be, q, k, v, do, causal)
                    except RuntimeError:
                        continue
                    theirs[name] = [rel_max(torch, x, r) for x, r in zip(tg, ref)]
                finite = [t for t in theirs.values() if all(x == x for p in t for x in p)]
                worst = [[max([t[i][m] for t in finite], default=5e-3) for m in (0, 1)]
                         for i in range(3)]
                ok = all(x == x and x <= max(2 * w, 1e-3)
                         for o_, w_ in zip(ours, worst) for x, w in zip(o_, w_))
                ok_all &= ok
                rows.append({"shape": [b, h, s, d], "causal": causal, "ours": ours,
                             "torch": theirs, "ok": ok})
                def fmt(t):
                    return " ".join(f"{m:.1e}/{f:.1e}" for m, f in t)
                print(f"  {b}x{h}x{s}x{d} causal={causal}: dq dk dv (max/fro) " + fmt(ours)
                      + " | " + " | ".join(f"{n} " + fmt(t) for n, t in theirs.items())
                      + f" -> {'ok' if ok else 'FAIL'}", flush=True)
    refused = []
    q = torch.randn(1, 2, 256, 128, device="cuda").to(torch.bfloat16)
    o, lse = fwd(q, q, q, False)
    for what, args in (("lse f16", (q, q, q, o, lse.half(), q)),
                       ("do shape", (q, q, q, o, lse, q[:, :1])),
                       ("o cpu", (q, q, q, o.cpu(), lse, q))):
        try:
            bwd(*args)
            refused.append(f"{what}: NOT refused")
            ok_all = False
        except ValueError as exc:
            refused.append(f"{what}: {exc}")
    print("  refused: " + " | ".join(refused), flush=True)
    return ok_all, rows


def check_graph(torch, fwd, bwd):
    ok = True
    for d, s, causal in ((128, 2048, False), (64, 1000, True)):
        q, k, v, do = (torch.randn(2, 4, s, d, device="cuda").to(torch.bfloat16)
                       for _ in range(4))
        o, lse = fwd(q, k, v, causal)
        bwd(q, k, v, o, lse, do, causal)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            grads = bwd(q, k, v, o, lse, do, causal)
        do.copy_(torch.randn_like(do))
        graph.replay()
        eager = bwd(q, k, v, o, lse, do, causal)
        torch.cuda.synchronize()
        same = all(bool(torch.equal(a, b)) for a, b in zip(grads[1:], eager[1:]))
        dq_err = float((grads[0].float() - eager[0].float()).abs().max()
                       / eager[0].float().abs().max())
        ok &= same and dq_err < 1e-2
        print(f"  graph d={d} s={s} causal={causal}: replay on new dO: dK, dV "
              f"{'bit-identical' if same else 'DIFFER'} to eager, dQ (reduction order varies) "
              f"max rel {dq_err:.1e}", flush=True)
    return ok


def bench(torch, api_run, run, fwd, bwd, sdpa, seqs, rounds=5):
    rows = []
    d = 128
    for causal in (False, True):
        for s in seqs:
            b, h = max(1, 16384 // s), 16
            q, k, v, do = (torch.randn(b, h, s, d, device="cuda").to(torch.bfloat16)
                           for _ in range(4))

            def ours():
                o, lse = fwd(q, k, v, causal)
                return bwd(q, k, v, o, lse, do, causal)
            impls = {"ours": ours}
            for name, be in sdpa.items():
                qq, kk, vv = (t.detach().clone().requires_grad_() for t in (q, k, v))

                def theirs(be=be, qq=qq, kk=kk, vv=vv):
                    with torch.nn.attention.sdpa_kernel(be):
                        out = torch.nn.functional.scaled_dot_product_attention(
                            qq, kk, vv, is_causal=causal)
                    return torch.autograd.grad(out, (qq, kk, vv), do)
                impls[name] = theirs
            graphs = {}
            for name, fn in impls.items():
                try:
                    graphs[name] = api_run.capture(torch, fn)
                except Exception as exc:  # noqa: BLE001
                    print(f"  {name}: no graph ({str(exc).splitlines()[0][:100]})")
            times = {f"{n}_{m}": [] for n in impls for m in ("eager", "graph")}
            for _ in range(rounds):
                for name, fn in impls.items():
                    times[f"{name}_eager"].append(run.time_round(torch, fn))
                    if name in graphs:
                        times[f"{name}_graph"].append(api_run.time_graph(torch, graphs[name]))
            flops = 3.5 * 4.0 * b * h * s * s * d / (2 if causal else 1)
            row = {"d": d, "causal": causal, "seq": s, "batch": b, "heads": h}
            for key, ts in times.items():
                if ts:
                    row[key] = flops / (statistics.median(ts) * 1e-3) / 1e12
            rows.append(row)
            print("  " + " ".join(f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}"
                                  for k, v in row.items()), flush=True)
    return rows


def once(torch, fwd, bwd, shape) -> None:
    shape = shape if len(shape) == 4 else [*shape, 128]
    q, k, v, do = (torch.randn(*shape, device="cuda").to(torch.bfloat16) for _ in range(4))
    o, lse = fwd(q, k, v, False)
    for _ in range(2):
        dq, _, _ = bwd(q, k, v, o, lse, do, False)
    torch.cuda.synchronize()
    print(f"once {shape}: mean |dq| {float(dq.float().abs().mean()):.3e}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--json")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--seqs", default="2048,8192")
    parser.add_argument("--consumers", type=int, help="the dK/dV kernel's consumer "
                        "warpgroups (default backward_api.CONSUMERS)")
    parser.add_argument("--once", help="B,H,S[,D]: one forward, two backward calls, no check")
    args = parser.parse_args()
    root = Path(args.dir).resolve()
    rt = _load("runtime", root / "runtime.py")
    from attention_parts import api, backward_api  # DIR/attention_parts: run from its copy in DIR
    api.set_runtime(rt)
    import torch
    run = _load("attn_run", root / "run.py")
    api_run = _load("attn_api_run", root / "api_run.py")
    cache = api.Cache(root / "cache")
    fwd, bwd = api.Forward(cache), backward_api.Backward(cache, args.consumers)
    B = torch.nn.attention.SDPBackend
    sdpa = {"cudnn": B.CUDNN_ATTENTION, "fa2": B.FLASH_ATTENTION}
    if args.once:
        once(torch, fwd, bwd, [int(x) for x in args.once.split(",")])
        return
    ok, rows = check(torch, fwd, bwd, sdpa)
    ok_graph = check_graph(torch, fwd, bwd)
    result = {"check": rows, "ok": ok, "graph_ok": ok_graph, "consumers": args.consumers}
    if args.time:
        result["bench"] = bench(torch, api_run, run, fwd, bwd, sdpa,
                                [int(x) for x in args.seqs.split(",")])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print(f"correctness {'PASS' if ok else 'FAIL'}, graphs {'PASS' if ok_graph else 'FAIL'}")


if __name__ == "__main__":
    main()
