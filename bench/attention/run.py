#!/usr/bin/env python3
"""Run the attention benchmark on the GPU machine: correctness of every built
configuration against a float32 reference on random data, then TFLOP/s of
ours vs torch.nn.functional.scaled_dot_product_attention under each backend
(FLASH_ATTENTION, CUDNN_ATTENTION, EFFICIENT_ATTENTION), interleaved
round-robin in one process.

    python3 run.py DIR [--configs a,b] [--check-only] [--quick] [--triton] [--json FILE]

DIR holds what bench/attention/build.py wrote (manifest.json + cubins, and copies
of runtime.py and shapes.py). Needs numpy, cuda-bindings and torch; no MLIR.

Correctness: O (bf16) against the f32 math reference (q, k, v the same bf16
values, upcast; softmax(q k^T * scale) v in f32 with TF32 off), the relative
Frobenius error and the largest absolute error, next to the same numbers of
torch's bf16 backends on the same inputs. Tolerance: ours within 2x the
worst torch bf16 backend on both (and at most 1e-2 relative), no NaN; the
log-sum-exp within 1e-3 absolute of the reference's.

``--triton``: Triton's fused-attention tutorial kernel (triton_fa.py) in
the same round-robin (``triton`` column), checked the same way on the
benchmark's shapes first. Each row names ``default``: the built
configuration that ``attention.config_for`` (schedule.py) picks for it.

Speed: TFLOP/s = 4 b h s^2 d / t (halved for causal), t the median over 5
rounds of CUDA-event time of 10 calls, every implementation once per round.
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

CHECK_SHAPES = [(1, 1, 128), (1, 16, 1000), (4, 1, 1000), (4, 16, 128), (1, 16, 4096),
                (1, 1, 8192), (2, 16, 777), (1, 2, 1)]
QUICK_SHAPES = [(1, 1, 128), (1, 2, 1000), (2, 3, 300), (1, 2, 1)]
SEQS = [1024, 2048, 4096, 8192, 16384]
TOKENS = 16384
HEADS = 16
TORCH = ("flash", "cudnn", "efficient")
OTHERS = TORCH + ("triton",)


def load(name: str, here: Path, rel: str):
    """`name`.py next to this script (a device copy), else `rel` above it."""
    cand = here / f"{name}.py"
    if not cand.is_file():
        for parent in here.parents:
            if (parent / rel).is_file():
                cand = parent / rel
                break
    spec = importlib.util.spec_from_file_location(f"attn_{name}", cand)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HERE = Path(__file__).resolve().parent


class Ours:
    def __init__(self, rt, directory: Path, cfg: dict, shapes):
        self.rt, self.cfg, self.shapes = rt, cfg, shapes
        self.module = rt.Module.load((directory / cfg["cubin"]).read_bytes())
        self.function = self.module.function(cfg["entry"])
        rt.set_max_dynamic_shared_memory(self.function, cfg["smem_bytes"])
        self.maps = []

    def prepare(self, q, k, v, o, lse, scale):
        """The launch on torch tensors [b, h, s, d]: a closure."""
        import numpy as np
        rt, cfg = self.rt, self.cfg
        b, h, s, d = q.shape
        self.shapes.check_shape(b, h, s, d, cfg["head_dim"])   # before any CUDA call
        bf = np.dtype(np.uint16)
        maps = []
        for t, box_rows in ((q, cfg["block_m"]), (k, cfg["block_n"]), (v, cfg["block_n"])):
            assert t.is_contiguous()
            buf = rt.DeviceBuffer(t.data_ptr(), (b * h, s, d), bf)
            maps.append(rt.encode_tensor_map_tiled(buf, "bfloat16", (b * h, s, d),
                                                   (1, box_rows, 64), swizzle="128B"))
        self.maps += maps
        do = rt.DeviceBuffer(o.data_ptr(), tuple(o.shape), bf)
        dl = rt.DeviceBuffer(lse.data_ptr(), tuple(lse.shape), np.dtype(np.float32))
        o_map = []
        if cfg.get("epilogue") == "tma":
            o_map = [rt.encode_tensor_map_tiled(do, "bfloat16", (b * h, s, d), (1, 64, 64),
                                                swizzle="128B")]
            self.maps += o_map
        persistent = cfg.get("persistent", False)
        args = [*maps, do, *o_map, dl, np.int32(s), *[np.int32(b * h)] * persistent,
                np.float32(scale * math.log2(math.e))]
        grid = self.shapes.grid(b, h, s, cfg["block_m"], rt.sm_count() if persistent else None)
        # runtime.launch's checks and argument packing once; then only the
        # driver call per launch (the timing loop must not be launch-bound).
        return rt.prepare_launch(self.function, grid, cfg["threads"], args, None,
                                 cfg["smem_bytes"])

    def release(self):
        for m in self.maps:
            m.free()
        self.maps = []


def backends(torch):
    from torch.nn.attention import SDPBackend
    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def torch_fn(torch, backend, q, k, v, causal):
    from torch.nn.attention import sdpa_kernel
    F = torch.nn.functional

    def run():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return run


def reference(torch, q, k, v, causal, scale):
    """f32 math: O and lse, one (batch, head) at a time (s x s scores)."""
    b, h, s, d = q.shape
    o = torch.empty(b, h, s, d, device="cuda", dtype=torch.float32)
    lse = torch.empty(b, h, s, device="cuda", dtype=torch.float32)
    mask = torch.ones(s, s, device="cuda", dtype=torch.bool).tril() if causal else None
    for i in range(b):
        for j in range(h):
            sc = (q[i, j].float() @ k[i, j].float().t()) * scale
            if causal:
                sc = sc.masked_fill(~mask, float("-inf"))
            lse[i, j] = torch.logsumexp(sc, dim=-1)
            o[i, j] = torch.softmax(sc, dim=-1) @ v[i, j].float()
    return o, lse


def errors(torch, got, ref):
    g = got.float()
    nan = int(torch.isnan(g).sum())
    return {"rel_fro": float(torch.linalg.norm(g - ref) / torch.linalg.norm(ref)),
            "max_abs": float((g - ref).abs().max()), "nan": nan}


def check(torch, rt, ours: Ours, cfg, shapes) -> list:
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda")
    g.manual_seed(1234)
    out = []
    for b, h, s in shapes:
        d, causal = cfg["head_dim"], cfg["causal"]
        q, k, v = (torch.randn(b, h, s, d, device="cuda", generator=g).to(torch.bfloat16)
                   for _ in range(3))
        o = torch.full((b, h, s, d), float("nan"), device="cuda", dtype=torch.bfloat16)
        lse = torch.full((b, h, s), float("nan"), device="cuda", dtype=torch.float32)
        scale = 1.0 / math.sqrt(d)
        ours.prepare(q, k, v, o, lse, scale)()
        torch.cuda.synchronize()
        ref_o, ref_lse = reference(torch, q, k, v, causal, scale)
        row = {"shape": [b, h, s, d], "causal": causal, "ours": errors(torch, o, ref_o),
               "lse_max_abs": float((lse - ref_lse).abs().max())}
        worst = {"rel_fro": 0.0, "max_abs": 0.0}
        for name, be in backends(torch).items():
            try:
                t = torch_fn(torch, be, q, k, v, causal)()
                e = errors(torch, t, ref_o)
                row[name] = e
                worst = {m: max(worst[m], e[m]) for m in worst}
            except Exception as ex:  # a backend that does not take the shape
                row[name] = {"error": str(ex).splitlines()[0][:120]}
        ours_e = row["ours"]
        row["ok"] = (ours_e["nan"] == 0 and ours_e["rel_fro"] <= min(1e-2, 2 * worst["rel_fro"])
                     and ours_e["max_abs"] <= 2 * worst["max_abs"]
                     and row["lse_max_abs"] <= 1e-3)
        ours.release()
        print(f"  check {cfg['name']} {b}x{h}x{s}x{d} causal={causal}: ours rel {ours_e['rel_fro']:.2e} "
              f"max {ours_e['max_abs']:.2e} lse {row['lse_max_abs']:.1e} | torch worst rel "
              f"{worst['rel_fro']:.2e} max {worst['max_abs']:.2e} -> {'ok' if row['ok'] else 'FAIL'}",
              flush=True)
        out.append(row)
    return out


def check_triton(torch, tri, seqs) -> list:
    """The Triton tutorial kernel on random data of the benchmark's shapes
    (a few heads), by the same rule as ours against the worst torch bf16
    backend; its M (log2 units) against the reference lse / ln 2."""
    g = torch.Generator(device="cuda")
    g.manual_seed(99)
    out = []
    for d in (64, 128):
        for causal in (False, True):
            for s in seqs[:2]:
                q, k, v = (torch.randn(1, 2, s, d, device="cuda", generator=g).to(torch.bfloat16)
                           for _ in range(3))
                scale = 1.0 / math.sqrt(d)
                row = {"shape": [1, 2, s, d], "causal": causal}
                try:
                    o, m = tri.fwd(q, k, v, causal, scale)
                    torch.cuda.synchronize()
                except Exception as ex:
                    row.update(ok=False, error=f"{type(ex).__name__}: {str(ex)[:300]}")
                    print(f"  check triton {s}x{d} causal={causal}: {row['error']}", flush=True)
                    out.append(row)
                    continue
                ref_o, ref_lse = reference(torch, q, k, v, causal, scale)
                row["triton"] = errors(torch, o, ref_o)
                row["lse_max_abs"] = float((m * math.log(2) - ref_lse).abs().max())
                worst = {"rel_fro": 0.0, "max_abs": 0.0}
                for be in backends(torch).values():
                    e = errors(torch, torch_fn(torch, be, q, k, v, causal)(), ref_o)
                    worst = {x: max(worst[x], e[x]) for x in worst}
                t = row["triton"]
                row["ok"] = (t["nan"] == 0 and t["rel_fro"] <= min(1e-2, 2 * worst["rel_fro"])
                             and t["max_abs"] <= 2 * worst["max_abs"] and row["lse_max_abs"] <= 1e-3)
                print(f"  check triton 1x2x{s}x{d} causal={causal}: rel {t['rel_fro']:.2e} max "
                      f"{t['max_abs']:.2e} lse {row['lse_max_abs']:.1e} | torch worst rel "
                      f"{worst['rel_fro']:.2e} -> {'ok' if row['ok'] else 'FAIL'}", flush=True)
                out.append(row)
    return out


def time_round(torch, fn, iters=10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / iters


def bench(torch, rt, ours_by_name: dict, cfgs, seqs, rounds=5, tri=None, schedule=None,
          on_row=None) -> list:
    """Per (head dim, causal, seq): every config of that head dim/causality,
    the three torch backends and (`tri`) the Triton tutorial kernel,
    round-robin; ``default`` names the config schedule.choose picks."""
    rows = []
    groups = sorted({(c["head_dim"], c["causal"]) for c in cfgs})
    for d, causal in groups:
        mine = [c for c in cfgs if (c["head_dim"], c["causal"]) == (d, causal)]
        for s in seqs:
            b = max(1, TOKENS // s)
            q, k, v = (torch.randn(b, HEADS, s, d, device="cuda").to(torch.bfloat16)
                       for _ in range(3))
            o = torch.empty(b, HEADS, s, d, device="cuda", dtype=torch.bfloat16)
            lse = torch.empty(b, HEADS, s, device="cuda", dtype=torch.float32)
            fns = {c["name"]: ours_by_name[c["name"]].prepare(q, k, v, o, lse, 1 / math.sqrt(d))
                   for c in mine}
            for name, be in backends(torch).items():
                fn = torch_fn(torch, be, q, k, v, causal)
                try:
                    fn()
                    torch.cuda.synchronize()
                    fns[name] = fn
                except Exception as ex:
                    print(f"  {name} unavailable at d={d} s={s}: {str(ex).splitlines()[0][:100]}")
            if tri is not None:
                try:
                    tri.fwd(q, k, v, causal, 1 / math.sqrt(d))   # autotunes this shape
                    torch.cuda.synchronize()
                    fns["triton"] = (lambda q=q, k=k, v=v: tri.fwd(q, k, v, causal,
                                                                  1 / math.sqrt(d)))
                except Exception as ex:
                    print(f"  triton unavailable at d={d} s={s}: {type(ex).__name__}: "
                          f"{str(ex).splitlines()[0][:200] if str(ex) else ''}")
            for fn in fns.values():         # warm up
                fn()
            torch.cuda.synchronize()
            times = {n: [] for n in fns}
            for _ in range(rounds):
                for n, fn in fns.items():
                    times[n].append(time_round(torch, fn))
            flops = 4.0 * b * HEADS * s * s * d / (2 if causal else 1)
            row = {"head_dim": d, "causal": causal, "seq": s, "batch": b, "heads": HEADS,
                   "ms": {n: statistics.median(t) for n, t in times.items()},
                   "tflops": {n: flops / (statistics.median(t) * 1e-3) / 1e12
                              for n, t in times.items()}}
            if schedule is not None:
                pick = schedule.choose(d, s, causal)
                names = [c["name"] for c in mine if schedule.matches(pick, c)]
                row["default"] = names[0] if names else None
            if tri is not None and "triton" in fns:
                best = getattr(tri._attn_fwd, "best_config", None)
                row["triton_config"] = str(best) if best is not None else None
            rows.append(row)
            if on_row is not None:
                on_row(rows)                # a run cut short keeps the rows it timed
            print(f"  d={d} causal={causal} seq={s} b={b}: " +
                  " ".join(f"{n} {tf:.0f}" for n, tf in row["tflops"].items()), flush=True)
            for c in mine:
                ours_by_name[c["name"]].release()
            del q, k, v, o, lse
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--configs", default="")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--quick", action="store_true", help="small check shapes only")
    ap.add_argument("--seqs", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--triton", action="store_true",
                    help="Triton's fused-attention tutorial kernel (triton_fa.py) as well")
    ap.add_argument("--exact-log", default="", help="run_manifest.py's log: configs whose exact "
                    "case did not PASS are skipped (a hang there would hang here)")
    args = ap.parse_args()
    directory = Path(args.dir)
    import torch
    rt = load("runtime", directory, "python/mbarrier_dialect/runtime.py")
    shapes = load("shapes", directory, "examples/attention_parts/shapes.py")
    schedule = load("schedule", directory, "examples/attention_parts/schedule.py")
    torch.zeros(1, device="cuda")       # torch's primary context, shared with the runtime
    rt.init(0)
    cfgs = json.loads((directory / "manifest.json").read_text())["kernels"]
    if args.configs:
        cfgs = [c for c in cfgs if c["name"] in args.configs.split(",")]
    if args.exact_log and Path(args.exact_log).is_file():
        bad = set()
        for line in Path(args.exact_log).read_text().splitlines():
            words = line.split()             # "PASS  exact_<config>_<b>x<h>x<s> 0.26 ms"
            if len(words) > 1 and words[1].startswith("exact_") and words[0] != "PASS":
                bad.add(words[1][len("exact_"):].rsplit("_", 1)[0])
        if bad:
            print(f"skipping configs whose exact case failed: {sorted(bad)}")
        cfgs = [c for c in cfgs if c["name"] not in bad]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "configs": cfgs, "checks": {}, "bench": []}
    ours = {}
    for c in cfgs:
        t0 = time.perf_counter()
        ours[c["name"]] = Ours(rt, directory, c, shapes)
        result["checks"][c["name"]] = check(torch, rt, ours[c["name"]], c,
                                            QUICK_SHAPES if args.quick else CHECK_SHAPES)
        print(f"checked {c['name']} in {time.perf_counter() - t0:.1f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    seqs = [int(x) for x in args.seqs.split(",")] if args.seqs else SEQS
    tri = None
    if args.triton:
        try:
            import triton
            tri = load("triton_fa", directory, "bench/attention/triton_fa.py")
            result["triton"] = triton.__version__
        except Exception as ex:
            result["triton_error"] = f"{type(ex).__name__}: {ex}"
            print("triton unavailable:", result["triton_error"])
        if tri is not None:
            result["checks"]["triton"] = check_triton(torch, tri, seqs)
            if not all(r["ok"] for r in result["checks"]["triton"]):
                tri = None                  # not timed when wrong
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    if not args.check_only:
        good = [c for c in cfgs if all(r["ok"] for r in result["checks"][c["name"]])]
        def on_row(rows):
            if args.json:
                Path(args.json).write_text(json.dumps({**result, "bench": rows}, indent=1))
        result["bench"] = bench(torch, rt, ours, good, seqs, tri=tri, schedule=schedule,
                                on_row=on_row)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
        print("\n| d | causal | seq | batch | ours (best) | ours (default) | " +
              " | ".join(OTHERS) + " | default / best torch |")
        for r in result["bench"]:
            tf = r["tflops"]
            best = max((v, n) for n, v in tf.items() if n not in OTHERS)
            dflt = r.get("default")
            d_tf = tf.get(dflt, float("nan")) if dflt else float("nan")
            top = max(tf.get(n, 0.0) for n in TORCH) or float("nan")
            print(f"| {r['head_dim']} | {r['causal']} | {r['seq']} | {r['batch']} | "
                  f"{best[0]:.0f} ({best[1]}) | {d_tf:.0f} ({dflt}) | " +
                  " | ".join(f"{tf.get(n, float('nan')):.0f}" for n in OTHERS) +
                  f" | {d_tf / top:.2f} |")
    bad = [n for n, rows in result["checks"].items() if not all(r.get("ok") for r in rows)]
    print("checks:", "all ok" if not bad else f"FAILED: {bad}")


if __name__ == "__main__":
    main()
