#!/usr/bin/env python3
"""The torch entry ``matmul`` (examples/gemm_parts/api.py) on the GPU
machine: correctness in the four layouts against float64, then ours,
cuBLAS (``torch.matmul``) and Triton's tutorial matmul timed eager and as
CUDA-graph replays, interleaved round-robin in one process.

    python3 graph_run.py PARTS CACHE [--check] [--bench] [--layouts] [--variants]
                         [--rounds N] [--triton] [--json FILE]

PARTS: a folder holding gemm.py and gemm_parts/ (the source the cache was
built from); CACHE: ``python -m gemm_parts.api --fill CACHE`` of it (no MLIR
here). Eager: CUDA events around 10 calls (the host's launch cost counts);
graph: 10 calls captured into one CUDA graph, its replay timed the same way
(kernel time only). Build and commands: bench/gemm/README.md.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAYOUTS = [("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN")]
# The issue-32 grid: decode and skinny shapes and their transposes, cubes,
# the LLM shapes and their K-major twins, K from 1024 to 2048 at 8192^2.
GRID = ([(m, 8192, 8192) for m in (64, 128, 256)] + [(8192, n, 8192) for n in (64, 128, 256)]
        + [(s, s, s) for s in (1024, 1536, 2048, 3072, 4096, 5120, 6144, 8192)]
        + [(4096, n, 4096) for n in (6144, 11008, 14336)]
        + [(4096, 4096, k) for k in (6144, 11008, 14336)]
        + [(8192, 8192, k) for k in (1024, 1536, 2048)] + [(16384, 16384, 1024)])
LAYOUT_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (1536, 1536, 1536), (128, 8192, 8192),
                 (4096, 11008, 4096)]
VARIANT_SHAPES = ([(m, 8192, 8192) for m in (64, 128, 256)] + [(8192, 8192, k) for k in
                  (1024, 1536, 2048)] + [(1024, 1024, 1024), (1536, 1536, 1536)])
VARIANTS = ["p1_256_ts", "pp_128x128_ts", "p1_192_ts", "p1_128_ts", "pp_64x256_ts",
            "pp_64x128_ts"]
# Each forced configuration's own checks (split-K: the GEMM and its reduction
# through matmul; tiles of bn % 64 more columns; the operands swapped, C
# stored transposed, "_t"): odd M and N, K not a
# multiple of 64, a K split into slices of unequal and of no blocks.
FORCED = ["sk_256_k2", "sk_128_k3", "sk_256_k4", "sk_128_k4", "p1_144_ts", "p1_224_ts",
          "pp_64x64_ts_t", "pp_64x128_ts_t", "p1_128_ts_t", "pp_128x128_ts_t"]
FORCED_SHAPES = [(257, 1031, 1032), (64, 777, 8192), (1000, 264, 24), (129, 67, 2056),
                 (4096, 200, 520)]


def shape_list(text: str):
    return [tuple(int(x) for x in s.split("x")) for s in text.split(",") if s]


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_api(parts: Path):
    """PARTS/gemm_parts/api.py, its package loaded by path as ``gemm_parts``
    (as run.py loads runtime.py: nothing on sys.path)."""
    init = parts.resolve() / "gemm_parts" / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        "gemm_parts", init, submodule_search_locations=[str(init.parent)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["gemm_parts"] = package
    spec.loader.exec_module(package)
    return importlib.import_module("gemm_parts.api")


def operands(torch, M, N, K, a_major, b_major, g):
    """a (M x K) and b (K x N) in torch's sense, in the given layouts; an
    MN-major extent that is not a multiple of 8 gets a padded leading
    dimension (the TMA's 16-byte row stride)."""
    def rnd(*shape):
        return torch.randn(*shape, device="cuda", generator=g).to(torch.bfloat16)
    pad = lambda n: -(-n // 8) * 8  # noqa: E731
    a = rnd(M, K) if a_major == "K" else rnd(K, pad(M))[:, :M].t()
    b = rnd(N, K).t() if b_major == "K" else rnd(K, pad(N))[:, :N]
    return a, b


def timed(torch, fn, graph, iters=10):
    """Milliseconds of one call: `iters` calls (or one replay of `graph`,
    which holds `iters`) between two events."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    if graph is not None:
        graph.replay()
    else:
        for _ in range(iters):
            fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / iters


def capture(torch, fn, iters=10):
    """`iters` calls of `fn` as one CUDA graph, warmed up and captured on
    one side stream (matmul's tensor maps are made on the warm-up)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
        fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(iters):
            fn()
    torch.cuda.synchronize()
    return g


def check_layouts(torch, api, run, g, n_random=12) -> list:
    """Random shapes (M, N odd included, K a multiple of 8) in every layout
    against float64, plus a graph replay's product equal to the eager one."""
    rng = random.Random(32)
    shapes = [(rng.randint(1, 3000), rng.randint(1, 3000), 8 * rng.randint(1, 300))
              for _ in range(n_random)] + [(1, 1, 8), (129, 67, 72), (64, 8192, 1024)]
    rows = []
    for a_major, b_major in LAYOUTS:
        for M, N, K in shapes:
            a, b = operands(torch, M, N, K, a_major, b_major, g)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            api.matmul(a, b, c)
            torch.cuda.synchronize()
            ok, stats = run.check(torch, c, a.double() @ b.double(), "bf16")
            rows.append({"layout": a_major + b_major, "shape": [M, N, K], "ok": ok, **stats})
            print(f"  check a{a_major} b{b_major} {M}x{N}x{K}: {'PASS' if ok else 'FAIL'} "
                  f"rel_fro {stats['rel_fro']:.2e}", flush=True)
        for name in FORCED:
            if not api.builds(name, a_major, b_major):
                continue                    # not a build: an MN-major B loads 64-row chunks
            for M, N, K in FORCED_SHAPES:
                a, b = operands(torch, M, N, K, a_major, b_major, g)
                c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                api.matmul(a, b, c, config=name)
                torch.cuda.synchronize()
                ok, stats = run.check(torch, c, a.double() @ b.double(), "bf16")
                rows.append({"layout": a_major + b_major, "shape": [M, N, K], "config": name,
                             "ok": ok, **stats})
                print(f"  check {name} a{a_major} b{b_major} {M}x{N}x{K}: "
                      f"{'PASS' if ok else 'FAIL'} rel_fro {stats['rel_fro']:.2e}", flush=True)
        # the graph replay writes what the eager call wrote (split-K: both kernels)
        for cfg in (None, "sk_128_k3"):
            a, b = operands(torch, 1000, 1032, 1024, a_major, b_major, g)
            c = torch.empty((1000, 1032), device="cuda", dtype=torch.bfloat16)
            graph = capture(torch, lambda: api.matmul(a, b, c, config=cfg), iters=1)
            eager = c.clone()
            c.zero_()
            graph.replay()
            torch.cuda.synchronize()
            same = bool(torch.equal(c, eager))
            rows.append({"layout": a_major + b_major, "config": cfg, "graph_equals_eager": same})
            print(f"  graph replay {cfg or 'auto'} a{a_major} b{b_major}: "
                  f"{'PASS' if same else 'FAIL'}", flush=True)
    # a stride the kernel cannot take: ValueError, nothing launched
    a = torch.randn(64, 128, device="cuda").to(torch.bfloat16)[:, ::2]
    try:
        api.matmul(a, torch.randn(64, 64, device="cuda").to(torch.bfloat16))
        rows.append({"refused_strided": False})
    except ValueError as exc:
        rows.append({"refused_strided": True, "message": str(exc)})
    print(f"  strided a refused: {rows[-1]['refused_strided']}", flush=True)
    return rows


def bench(torch, api, run, shapes, layouts, ours, g, rounds, with_triton) -> list:
    """Per shape and layout: every implementation eager and graph, round-robin."""
    triton = None
    if with_triton:
        try:
            triton = run.triton_matmul()
        except Exception as exc:  # noqa: BLE001
            print(f"  triton unavailable: {exc!r}", flush=True)
    out = []
    for a_major, b_major in layouts:
        for M, N, K in shapes:
            a, b = operands(torch, M, N, K, a_major, b_major, g)
            impls = {}
            for name in ours:
                c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
                cfg = None if name == "auto" else name
                impls[name] = (lambda c=c, cfg=cfg: api.matmul(a, b, c, config=cfg))
            ct = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
            impls["cublas"] = lambda: torch.matmul(a, b, out=ct)
            chosen = {"auto": api.config_for_layout(M, N, K, a_major, b_major,
                                                    api.runtime().sm_count())}
            if triton and (a_major, b_major) == ("K", "K"):
                configs, make = triton
                bt = b.t()                  # N x K, contiguous
                ctr = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
                best = run.best_triton(torch, configs, make, a, bt, ctr, iters=3)
                if best:
                    impls["triton"] = make(a, bt, ctr, best[1])
                    chosen["triton"] = list(best[1])
            graphs = {n: capture(torch, fn) for n, fn in impls.items()}
            times = {(n, m): [] for n in impls for m in ("eager", "graph")}
            for _ in range(rounds):
                for n, fn in impls.items():
                    times[(n, "eager")].append(timed(torch, fn, None))
                    times[(n, "graph")].append(timed(torch, fn, graphs[n]))
            row = {"layout": a_major + b_major, "shape": [M, N, K],
                   "auto": chosen["auto"], "triton_config": chosen.get("triton")}
            for (n, m), ts in times.items():
                row[f"{n}_{m}_ms"] = statistics.median(ts)
                row[f"{n}_{m}_tflops"] = 2.0 * M * N * K / (statistics.median(ts) * 1e9)
            out.append(row)
            cb = row["cublas_graph_ms"]
            print(f"  a{a_major} b{b_major} {M}x{N}x{K}: " + "  ".join(
                f"{n} {row[f'{n}_graph_tflops']:.0f}/{row[f'{n}_eager_tflops']:.0f}"
                f" ({cb / row[f'{n}_graph_ms']:.2f}x)" for n in impls), flush=True)
            del graphs, impls, a, b
            api.clear()
            torch.cuda.empty_cache()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parts")
    ap.add_argument("cache")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bench", action="store_true", help="the grid, K-major A and B")
    ap.add_argument("--layouts", action="store_true", help="a few shapes in the four layouts")
    ap.add_argument("--variants", action="store_true", help="each configuration on the "
                    "small and K 1024-2048 shapes")
    ap.add_argument("--variant-configs", default=",".join(VARIANTS))
    ap.add_argument("--variant-shapes", default="", help="MxNxK,... (default VARIANT_SHAPES)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--triton", action="store_true")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    api = load_api(Path(args.parts))
    run = load(HERE / "run.py", "gemm_run")
    torch.zeros(1, device="cuda")               # torch's primary context, shared
    api.runtime().init(0)
    api._cache = api.KernelCache(args.cache)
    g = torch.Generator(device="cuda")
    g.manual_seed(int(time.time()))
    res = {"versions": {"torch": torch.__version__}}
    t0 = time.time()
    if args.check:
        res["check"] = check_layouts(torch, api, run, g)
    if args.variants:
        res["variants"] = bench(torch, api, run,
                                shape_list(args.variant_shapes) or VARIANT_SHAPES, LAYOUTS[:1],
                                args.variant_configs.split(","), g, args.rounds, False)
    if args.bench:
        res["bench"] = bench(torch, api, run, GRID, LAYOUTS[:1], ["auto"], g, args.rounds,
                             args.triton)
    if args.layouts:
        res["layouts"] = bench(torch, api, run, LAYOUT_SHAPES, LAYOUTS, ["auto"], g,
                               args.rounds, False)
    res["seconds"] = time.time() - t0
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    checks = [r for r in res.get("check", []) if "ok" in r]
    print(f"checks: {sum(r['ok'] for r in checks)}/{len(checks)} pass; graph==eager "
          f"{[r['graph_equals_eager'] for r in res.get('check', []) if 'graph_equals_eager' in r]}")


if __name__ == "__main__":
    main()
