#!/usr/bin/env python3
"""Ours against FlashAttention-4 in one process (issue 31), on the GPU
machine (no MLIR there: the cubins come from the cache bwd_build.py filled).

Per row, interleaved round-robin over ``--rounds`` rounds (each round: every
implementation eager, then its CUDA-graph replay):

* forward: ours (``attention.forward``), FA4 (``flash_attn.cute.flash_attn_func``,
  inputs [b, s, h, d]), cuDNN (SDPA); d in {64, 128}, seq 1k-16k, and d = 256
  at 4k and 16k; causal and not; TFLOP/s = 4 b h s^2 d / t, halved when causal;
* forward + backward: ours (``forward`` then ``backward``), FA4 (forward and
  its autograd backward), cuDNN (SDPA forward + autograd backward); d in
  {64, 128}, seq 2k, 8k, 16k, causal and not; TFLOP/s = 3.5 x the forward's.

16 heads, batch = 16384 / seq. Eager: CUDA events around 10 calls (run.py's
time_round); graph: 10 captured calls replayed (api_run.py's); the median of
the rounds. An implementation whose calls cannot be captured is timed by the
profiler's kernel time instead (the ``_prof`` key, the sum of its kernels'
durations per call). Once per row, on the row's own random data, the output
(forward: O; forward + backward: dQ, dK, dV) of each implementation against
the fp32 math reference (run.py's, bwd_run.py's), and the same on odd lengths
(777, 1000, 3000): ours, FA4's and cuDNN's errors side by side.

FA4 is imported from the package path: its unpacked wheels and the CuTe DSL's
``dsl_packages`` folder (what nvidia_cutlass_dsl's .pth file adds) on
PYTHONPATH, as step attention-fa4 of tools/device/run.sh sets it.

    python3 fa4_run.py DIR [--json FILE] [--rounds 5]
        [--only fwd,bwd,odd] [--impls ours,fa4,cudnn] [--seqs 1024,...]
        [--bwd-seqs 2048,...] [--bwd-dims 64,128] [--alt-consumers 1,2]
    python3 fa4_run.py --table RESULTS.json [REPEAT]     # BENCHMARKS.md's tables, here
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import time
from pathlib import Path

TOKENS, HEADS = 16384, 16


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def kernel_ms(torch, fn, iters=10):
    """The profiler's kernel time of one call (ms): the sum of the CUDA
    kernels' durations over ``iters`` calls, divided by ``iters``."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    us = sum(e.self_device_time_total for e in prof.key_averages())  # CPU-side events: 0
    return us / 1e3 / iters


class Impls:
    """The three implementations' calls on one row's inputs ([b, h, s, d]
    for ours and SDPA, [b, s, h, d] contiguous copies for FA4)."""

    def __init__(self, torch, fwd, bwd, fa4, names, alt_bwd=None):
        self.torch, self.fwd, self.bwd, self.fa4, self.names = torch, fwd, bwd, fa4, names
        self.alt_bwd = alt_bwd or {}       # "ours_wN": the backward with N consumer warpgroups
        self.cudnn = torch.nn.attention.SDPBackend.CUDNN_ATTENTION

    def _sdpa(self, q, k, v, causal):
        torch = self.torch
        with torch.nn.attention.sdpa_kernel(self.cudnn):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def forward(self, q, k, v, causal):
        """name -> (call, the call's O as [b, h, s, d])."""
        fns = {}
        if "ours" in self.names:
            fns["ours"] = lambda: self.fwd(q, k, v, causal)[0]
        if "fa4" in self.names and self.fa4 is not None:
            qs, ks, vs = (t.transpose(1, 2).contiguous() for t in (q, k, v))
            fns["fa4"] = lambda: self.fa4(qs, ks, vs, causal=causal)[0].transpose(1, 2)
        if "cudnn" in self.names:
            fns["cudnn"] = lambda: self._sdpa(q, k, v, causal)
        return fns

    def training(self, q, k, v, do, causal):
        """name -> (forward + backward, returning dq, dk, dv as [b, h, s, d])."""
        torch, fns = self.torch, {}
        if "ours" in self.names:
            def ours():
                o, lse = self.fwd(q, k, v, causal)
                return self.bwd(q, k, v, o, lse, do, causal)
            fns["ours"] = ours
        for name, bwd in self.alt_bwd.items():
            def alt(bwd=bwd):
                o, lse = self.fwd(q, k, v, causal)
                return bwd(q, k, v, o, lse, do, causal)
            fns[name] = alt
        if "fa4" in self.names and self.fa4 is not None:
            qs, ks, vs = (t.transpose(1, 2).contiguous().requires_grad_() for t in (q, k, v))
            dos = do.transpose(1, 2).contiguous()

            def fa4():
                out = self.fa4(qs, ks, vs, causal=causal)[0]
                return [g.transpose(1, 2) for g in torch.autograd.grad(out, (qs, ks, vs), dos)]
            fns["fa4"] = fa4
        if "cudnn" in self.names:
            qq, kk, vv = (t.detach().clone().requires_grad_() for t in (q, k, v))

            def cudnn():
                out = self._sdpa(qq, kk, vv, causal)
                return torch.autograd.grad(out, (qq, kk, vv), do)
            fns["cudnn"] = cudnn
        return fns


def timed(torch, api_run, run, fns, rounds, flops):
    """TFLOP/s per `name_eager`, `name_graph` (or `name_prof`) over rounds."""
    graphs, out = {}, {}
    for name, fn in fns.items():
        try:
            graphs[name] = api_run.capture(torch, fn)
        except Exception as exc:  # noqa: BLE001  one that cannot be captured
            torch.cuda.synchronize()
            out[f"{name}_no_graph"] = str(exc).splitlines()[0][:160]
            print(f"  {name}: no graph ({out[f'{name}_no_graph']})", flush=True)
    times = {f"{n}_{m}": [] for n in fns for m in ("eager", "graph")}
    for _ in range(rounds):
        for name, fn in fns.items():
            times[f"{name}_eager"].append(run.time_round(torch, fn))
            if name in graphs:
                times[f"{name}_graph"].append(api_run.time_graph(torch, graphs[name]))
    for name, fn in fns.items():
        if name not in graphs:
            try:
                times[f"{name}_prof"] = [kernel_ms(torch, fn)]
            except Exception as exc:  # noqa: BLE001
                out[f"{name}_no_prof"] = str(exc).splitlines()[0][:160]
    for key, ts in times.items():
        if ts:
            out[key] = flops / (statistics.median(ts) * 1e-3) / 1e12
    del graphs
    return out


def fwd_errors(torch, run, api_run, fns, q, k, v, causal):
    ref, _ = run.reference(torch, q, k, v, causal, 1 / math.sqrt(q.shape[-1]))
    errs = {}
    for name, fn in fns.items():
        try:
            errs[name] = api_run.errors(torch, fn(), ref)
        except Exception as exc:  # noqa: BLE001  a shape one does not take
            errs[name] = {"error": str(exc).splitlines()[0][:120]}
    del ref
    return errs


def bwd_errors(torch, bwd_run, fns, q, k, v, do, causal):
    ref = bwd_run.reference(torch, q, k, v, do, causal, 1 / math.sqrt(q.shape[-1]))
    errs = {}
    for name, fn in fns.items():
        try:
            errs[name] = [bwd_run.rel_max(torch, g, r) for g, r in zip(fn(), ref)]
        except Exception as exc:  # noqa: BLE001
            errs[name] = {"error": str(exc).splitlines()[0][:120]}
    del ref
    return errs


def fmt_fwd(errs):
    return " | ".join(f"{n} " + (f"rel {e['rel_fro']:.2e} max {e['max_abs']:.2e}"
                                 if "rel_fro" in e else e["error"]) for n, e in errs.items())


def fmt_bwd(errs):
    return " | ".join(f"{n} " + (" ".join(f"{m:.1e}/{f:.1e}" for m, f in e)
                                 if isinstance(e, list) else e["error"])
                      for n, e in errs.items())


def rand(torch, *shape, n=3):
    return [torch.randn(*shape, device="cuda").to(torch.bfloat16) for _ in range(n)]


def forward_rows(rows, torch, mods, impls, grid, rounds):
    run, api_run = mods["run"], mods["api_run"]
    for d, seqs in grid:
        for causal in (False, True):
            for s in seqs:
                b = max(1, TOKENS // s)
                q, k, v = rand(torch, b, HEADS, s, d)
                fns = impls.forward(q, k, v, causal)
                flops = 4.0 * b * HEADS * s * s * d / (2 if causal else 1)
                row = {"d": d, "causal": causal, "seq": s, "batch": b, "heads": HEADS}
                row.update(timed(torch, api_run, run, fns, rounds, flops))
                row["errors"] = fwd_errors(torch, run, api_run, fns, q, k, v, causal)
                rows.append(row)
                print(f"  fwd d={d} causal={causal} seq={s}: " + " ".join(
                    f"{k_} {v_:.0f}" for k_, v_ in row.items() if isinstance(v_, float))
                    + " || " + fmt_fwd(row["errors"]), flush=True)
                del fns, q, k, v
                torch.cuda.empty_cache()


def training_rows(rows, torch, mods, impls, dims, seqs, rounds):
    run, api_run, bwd_run = mods["run"], mods["api_run"], mods["bwd_run"]
    for d in dims:
        for causal in (False, True):
            for s in seqs:
                b = max(1, TOKENS // s)
                q, k, v, do = rand(torch, b, HEADS, s, d, n=4)
                fns = impls.training(q, k, v, do, causal)
                flops = 3.5 * 4.0 * b * HEADS * s * s * d / (2 if causal else 1)
                row = {"d": d, "causal": causal, "seq": s, "batch": b, "heads": HEADS}
                row.update(timed(torch, api_run, run, fns, rounds, flops))
                row["errors"] = bwd_errors(torch, bwd_run, fns, q, k, v, do, causal)
                rows.append(row)
                print(f"  fwd+bwd d={d} causal={causal} seq={s}: " + " ".join(
                    f"{k_} {v_:.0f}" for k_, v_ in row.items() if isinstance(v_, float))
                    + " || dq dk dv (max/fro) " + fmt_bwd(row["errors"]), flush=True)
                del fns, q, k, v, do
                torch.cuda.empty_cache()


def odd_rows(rows, torch, mods, impls):
    """Odd lengths, errors only: forward at d 64, 128, 256, forward +
    backward at d 64, 128."""
    run, api_run, bwd_run = mods["run"], mods["api_run"], mods["bwd_run"]
    for d in (64, 128, 256):
        for causal in (False, True):
            for b, h, s in ((2, 16, 777), (1, 8, 1000), (1, 4, 3000)):
                q, k, v, do = rand(torch, b, h, s, d, n=4)
                e = fwd_errors(torch, run, api_run, impls.forward(q, k, v, causal), q, k, v,
                               causal)
                rows.append({"kind": "fwd", "shape": [b, h, s, d], "causal": causal,
                             "errors": e})
                print(f"  odd fwd {b}x{h}x{s}x{d} causal={causal}: {fmt_fwd(e)}", flush=True)
                if d == 256:
                    continue
                e = bwd_errors(torch, bwd_run, impls.training(q, k, v, do, causal),
                               q, k, v, do, causal)
                rows.append({"kind": "bwd", "shape": [b, h, s, d], "causal": causal,
                             "errors": e})
                print(f"  odd fwd+bwd {b}x{h}x{s}x{d} causal={causal}: dq dk dv "
                      f"{fmt_bwd(e)}", flush=True)


def best(row, name):
    return max(row.get(f"{name}_{m}", 0.0) for m in ("eager", "graph", "prof"))


def table(title, rows):
    print(f"{title}\n{'d':>4} {'causal':>6} {'seq':>6} | {'ours e/g':>11} {'fa4 e/g':>11} "
          f"{'cudnn e/g':>11} | {'g/fa4 g':>7} {'best/best':>9} | others e/g")
    for r in rows:
        def cell(n):
            g = r.get(f"{n}_graph", r.get(f"{n}_prof", 0.0))
            return f"{r.get(n + '_eager', 0.0):5.0f}/{g:<5.0f}"
        fa4g = r.get("fa4_graph", r.get("fa4_prof"))
        ratio = f"{r['ours_graph'] / fa4g:.2f}" if fa4g and "ours_graph" in r else "-"
        both = f"{best(r, 'ours') / best(r, 'fa4'):.2f}" if best(r, "fa4") else "-"
        print(f"{r['d']:>4} {str(r['causal']):>6} {r['seq']:>6} | {cell('ours'):>11} "
              f"{cell('fa4'):>11} {cell('cudnn'):>11} | {ratio:>7} {both:>9} | " + " ".join(
                  f"{n[:-6]} {cell(n[:-6])}" for n in r if n.endswith("_eager")
                  and n[:-6] not in ("ours", "fa4", "cudnn")))


def markdown(path, repeat=None) -> None:
    """BENCHMARKS.md's tables from a saved --json file (``main``, and
    ``repeat``: another run whose graph ratios are the last column), here."""
    runs = json.loads(Path(path).read_text())
    main_run, other = runs["main"], runs.get(repeat) if repeat else None
    for key, title in (("forward", "forward"), ("training", "forward + backward")):
        again = {(r["d"], r["causal"], r["seq"]): r for r in (other or {}).get(key, [])}
        print(f"\n{title}\n\n| d | causal | seq | ours eager / graph | FA4 eager / graph | "
              f"cuDNN eager / graph | ours / FA4, graph | ours / FA4, best of |"
              + (" repeat: graph, best of |" if other else "")
              + "\n|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if other else ""))
        for r in main_run.get(key, []):
            def cell(n, r=r):
                return f"{r.get(n + '_eager', 0):.0f} / {r.get(n + '_graph', 0):.0f}"

            def ratios(r):
                return (r["ours_graph"] / r["fa4_graph"], best(r, "ours") / best(r, "fa4"))
            g, b = ratios(r)
            seq = f"{r['seq'] // 1024}k"
            line = (f"| {r['d']} | {'yes' if r['causal'] else 'no'} | {seq} | {cell('ours')} | "
                    f"{cell('fa4')} | {cell('cudnn')} | {g:.2f} | {b:.2f} |")
            a = again.get((r["d"], r["causal"], r["seq"]))
            if other:
                line += " {:.2f}, {:.2f} |".format(*ratios(a)) if a else " - |"
            print(line)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--table":      # here, from a saved file
        markdown(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--json")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="fwd,bwd,odd")
    parser.add_argument("--impls", default="ours,fa4,cudnn")
    parser.add_argument("--seqs", default="1024,2048,4096,8192,16384")
    parser.add_argument("--seqs-256", default="4096,16384")
    parser.add_argument("--bwd-seqs", default="2048,8192,16384")
    parser.add_argument("--bwd-dims", default="64,128")
    parser.add_argument("--alt-consumers", default="", help="e.g. 1,2: forward + backward "
                        "also with the dK/dV kernel of that many consumers (ours_wN)")
    args = parser.parse_args()
    root = Path(args.dir).resolve()
    sections = set(args.only.split(","))
    import torch
    torch.zeros(1, device="cuda")                  # torch's primary context first
    rt = _load("mbarrier_runtime", root / "runtime.py")
    mods = {"run": _load("attn_run", root / "run.py"),
            "api_run": _load("attn_api_run", root / "api_run.py"),
            "bwd_run": _load("attn_bwd_run", root / "bwd_run.py")}
    from attention_parts import api, backward_api  # DIR/attention_parts (the script's folder)
    api.set_runtime(rt)
    cache = api.Cache(root / "cache")
    fa4, fa4_version = None, None
    try:
        from flash_attn.cute import flash_attn_func as fa4
        from importlib import metadata
        fa4_version = metadata.version("flash-attn-4")
        print(f"FA4 {fa4_version} from {Path(sys.modules['flash_attn.cute'].__file__).parent}",
              flush=True)
    except Exception as exc:  # noqa: BLE001
        print(f"{'FA4 imported, its version unknown' if fa4 else 'no FA4'}: {exc}", flush=True)
    alt = {f"ours_w{n}": backward_api.Backward(cache, int(n))
           for n in args.alt_consumers.split(",") if n}
    impls = Impls(torch, api.Forward(cache), backward_api.Backward(cache), fa4,
                  set(args.impls.split(",")), alt)
    torch.backends.cuda.matmul.allow_tf32 = False   # the references in fp32, no TF32
    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
              "rounds": args.rounds, "fa4": fa4 is not None, "fa4_version": fa4_version}
    t0 = time.perf_counter()

    def save():
        result["seconds"] = round(time.perf_counter() - t0, 1)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
    seqs = [int(x) for x in args.seqs.split(",") if x]
    grid = [(64, seqs), (128, seqs), (256, [int(x) for x in args.seqs_256.split(",") if x])]
    bwd_dims = [int(x) for x in args.bwd_dims.split(",")]
    bwd_seqs = [int(x) for x in args.bwd_seqs.split(",") if x]
    steps = (("fwd", "forward", "forward", lambda rows: forward_rows(
                 rows, torch, mods, impls, grid, args.rounds)),
             ("bwd", "training", "forward + backward", lambda rows: training_rows(
                 rows, torch, mods, impls, bwd_dims, bwd_seqs, args.rounds)),
             ("odd", "odd", "odd lengths (errors only)", lambda rows: odd_rows(
                 rows, torch, mods, impls)))
    import traceback
    for flag, key, title, step in steps:
        if flag not in sections:
            continue
        print(f"== {title}", flush=True)
        result[key] = []
        try:                           # the rows done so far are kept if one fails
            step(result[key])
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            result[f"{key}_failed"] = True
            torch.cuda.synchronize()
        save()
    if "forward" in result:
        table("forward, TFLOP/s eager/graph", result["forward"])
    if "training" in result:
        table("forward + backward, TFLOP/s eager/graph", result["training"])
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
