#!/usr/bin/env python3
"""Run the GEMM benchmark on the GPU machine: correctness of every built
configuration on random data (several shapes, tile multiples or not), then
TFLOP/s of ours vs torch.matmul (cuBLAS) and a Triton matmul, side by side.

    python3 run.py DIR [--configs c2_256,...] [--check-only] [--json FILE]

DIR holds what bench/gemm/build.py wrote (manifest.json + cubins). Needs numpy,
cuda-bindings and torch (Triton optional); no MLIR: our kernels are launched
through python/mbarrier_dialect/runtime.py, loaded by path. Each
configuration runs in a child process under a timeout, so a hang or a fault
is reported, not fatal.

C = A @ B^T with A (M x K) and B (N x K) bf16, both K-major; the same
tensors go to torch.matmul(A, B.t()) and to Triton. The launcher checks
the strides (gemm_parts/layouts.py): an operand in a layout its
configuration was not built for is a ValueError before any CUDA call.
The four layouts and the graph-timed comparison: graph_run.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import random
import sys
import time
from pathlib import Path

TAG = "GEMM_RESULT "
CHECK_SHAPES = [(128, 256, 64), (200, 328, 200), (1000, 1000, 1000), (777, 1234, 520),
                (130, 260, 8), (4096, 4096, 4096), (8192, 8192, 8192),
                # odd N, N and M below the tile, K below a stage (issue 23's bad input)
                (777, 1233, 520), (100, 37, 64), (1, 1, 8), (300, 129, 16)]
# Issue 23: 20 random shapes, M and N anywhere in [1, 4096] (odd ones
# included), K in [8, 4096] a multiple of 8 (TMA's 16-byte stride rule: the
# launcher refuses any other K with a ValueError, test_gemm.py).
# Seeded, so every run checks the same shapes.
_rng = random.Random(23)
RANDOM_SHAPES = [(_rng.randint(1, 4096), _rng.randint(1, 4096), 8 * _rng.randint(1, 512))
                 for _ in range(20)]
BENCH_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 11008, 4096),
                (4096, 14336, 4096), (4096, 4096, 11008)]


def find_runtime() -> Path:
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "python" / "mbarrier_dialect" / "runtime.py"
        if cand.is_file():
            return cand
    raise FileNotFoundError("python/mbarrier_dialect/runtime.py above " + str(here))


def _load_part(name: str):
    """examples/gemm_parts/<name>.py, MLIR-free, loaded by path: the copy
    next to this script (build.py writes one into its folder), else the
    repository's."""
    path = Path(__file__).resolve().parent / f"{name}.py"
    if not path.is_file():
        path = find_runtime().parents[2] / "examples" / "gemm_parts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"gemm_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def load_shapes():
    """examples/gemm_parts/shapes.py: the shapes the kernel can do."""
    return _load_part("shapes")


def load_layouts():
    """examples/gemm_parts/layouts.py: the operand layouts and their stride rules."""
    return _load_part("layouts")


def load_schedule():
    """examples/gemm_parts/schedule.py: the "auto" schedule's chooser."""
    return _load_part("schedule")


def load_runtime():
    spec = importlib.util.spec_from_file_location("mbarrier_runtime", find_runtime())
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def tflops(M, N, K, ms):
    return 2.0 * M * N * K / (ms * 1e-3) / 1e12


def best_triton(torch, configs, make, a, b, c, iters):
    """(ms, config) of the fastest of Triton's `configs` on this shape
    (each compiled and timed `iters` x 3 calls), or None if none ran."""
    best = None
    for tcfg in configs:
        try:
            ms, _, _ = time_fn(torch, make(a, b, c, tcfg), iters=iters, reps=3)
        except Exception as e:  # noqa: BLE001
            print(f"  triton {tcfg}: {e!r}"[:300], flush=True)
            continue
        if best is None or ms < best[0]:
            best = (ms, tcfg)
    return best


def time_fn(torch, fn, iters=10, reps=7, warmup=3):
    """Median milliseconds of one call: events around `iters` calls, `reps` times."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / iters)
    return statistics.median(times), min(times), max(times)


# -- our kernel ---------------------------------------------------------------

class Ours:
    def __init__(self, rt, directory: Path, cfg: dict):
        self.rt, self.cfg = rt, cfg
        self.module = rt.Module.load((directory / cfg["cubin"]).read_bytes())
        self.function = self.module.function(cfg["entry"])
        rt.set_max_dynamic_shared_memory(self.function, cfg["smem_bytes"])
        self.maps = []

    def grid(self, M, N):
        """examples/gemm.py's Config.grid (gemm_parts/shapes.py's grid): a
        CTA per tile, or (persistent) one per SM in whole clusters, at most
        one per tile."""
        persistent = bool(self.cfg.get("persistent"))
        sms = self.rt.sm_count() if persistent else 0
        return load_shapes().grid(M, N, self.cfg["bm"], self.cfg["bn"], self.cfg["cluster"],
                                  persistent, sms)

    def prepare(self, a, b, c):
        """The launch of C = A @ B^T on torch tensors (A: M x K, B: N x K,
        each in the layout the configuration was built for: K-major, or
        MN-major where its a_major / b_major says so): a closure. A stride
        the configuration cannot take is a ValueError before any CUDA call
        (gemm_parts/layouts.py), never a wrong product."""
        import numpy as np
        rt, cfg = self.rt, self.cfg
        M, K = a.shape
        N = b.shape[0]
        load_shapes().check_shape(M, N, K)     # a ValueError before any CUDA call
        lay = load_layouts()
        ops = [lay.operand(n, tuple(t.shape), tuple(t.stride()), t.data_ptr(), k_dim=1)
               for n, t in (("a", a), ("b", b))]
        for op, built in zip(ops, (cfg.get("a_major", "K"), cfg.get("b_major", "K"))):
            if op.major != built:
                raise ValueError(f"{cfg['name']} takes a {built}-major {op.name}, got a "
                                 f"{op.major}-major one (strides {op.ld} apart)")
        if tuple(c.shape) != (M, N) or (N > 1 and c.stride()[1] != 1) or \
                (M > 1 and c.stride()[0] != N):
            raise ValueError(f"C must be a dense row-major {M} x {N} tensor, got shape "
                             f"{tuple(c.shape)} strides {tuple(c.stride())}")
        A, B = ops
        da = rt.DeviceBuffer(A.ptr, (A.extent_bytes() // 2,), np.dtype(np.uint16))
        db = rt.DeviceBuffer(B.ptr, (B.extent_bytes() // 2,), np.dtype(np.uint16))
        dc = rt.DeviceBuffer(c.data_ptr(), tuple(c.shape), np.dtype(np.uint16 if c.element_size() == 2 else np.float32))
        ta = rt.encode_tensor_map_tiled(da, "bfloat16", A.map_shape(), A.box(cfg["bm"]),
                                        strides=A.map_strides(), swizzle="128B")
        tb = rt.encode_tensor_map_tiled(db, "bfloat16", B.map_shape(), B.box(cfg["b_box_rows"]),
                                        strides=B.map_strides(), swizzle="128B")
        self.maps += [ta, tb]
        tc = []
        if cfg.get("epilogue") == "tma":     # C's map (rows 16-byte aligned), else A's, unused
            tc = [rt.encode_tensor_map_tiled(dc, "bfloat16", (M, N), (64, 64), swizzle="128B")
                  if N % 8 == 0 else ta]
            self.maps += tc[:1] if N % 8 == 0 else []
        args = [ta, tb, dc, *tc, np.int32(M), np.int32(N), np.int32(K)]
        grid = self.grid(M, N)
        cluster = cfg["cluster"] if cfg["cluster"] > 1 else None
        # runtime.launch's checks and argument packing once; then only the
        # driver call per launch (the timing loop must not be launch-bound).
        return rt.prepare_launch(self.function, grid, cfg["threads"], args, cluster,
                                 cfg["smem_bytes"])

    def release(self):
        for m in self.maps:
            m.free()
        self.maps = []


def check(torch, out, ref, out_dtype):
    """(ok, stats): relative Frobenius error and worst element against the
    float64 reference; NaN (the poison) anywhere fails."""
    got = out.double()
    nan = int(torch.isnan(got).sum())
    diff = (got - ref).abs()
    rms = float(ref.square().mean().sqrt())
    fro = float(torch.linalg.norm(got - ref) / torch.linalg.norm(ref)) if nan == 0 else float("nan")
    # bf16 output: half an ulp of bf16 is 2^-9 relative; f32: accumulation order only.
    # f32: f32 accumulation over K terms (about 1e-5 of the rms at K = 8192).
    rtol, atol = (2 ** -8, 1e-3 * rms) if out_dtype == "bf16" else (1e-4, 1e-4 * rms)
    worst = float((diff - rtol * ref.abs() - atol).max())
    ok = nan == 0 and worst <= 0 and fro < (5e-3 if out_dtype == "bf16" else 1e-4)
    return ok, {"rel_fro": fro, "nan": nan, "max_abs_err": float(diff.max()), "rms_ref": rms,
                "rtol": rtol, "atol_over_rms": atol / rms if rms else 0.0}


def child(directory: Path, name: str, mode: str, shapes, bench_shapes,
          profile_shape=(8192, 8192, 8192)) -> dict:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    rt = load_runtime()
    torch.zeros(1, device="cuda")   # torch's primary context, shared with the runtime
    rt.init(0)
    cfgs = {c["name"]: c for c in json.loads((directory / "manifest.json").read_text())["kernels"]}
    cfg = cfgs[name]
    ours = Ours(rt, directory, cfg)
    out_t = torch.bfloat16 if cfg["out"] == "bf16" else torch.float32
    result = {"config": name, "checks": [], "bench": []}
    g = torch.Generator(device="cuda")
    g.manual_seed(int(time.time()))
    if mode in ("check", "all"):
        for M, N, K in shapes:
            a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
            b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=out_t)   # poison
            run = ours.prepare(a, b, c)
            run()
            torch.cuda.synchronize()
            ref = a.double() @ b.double().t()
            ok, stats = check(torch, c, ref, cfg["out"])
            cu_ok, cu = check(torch, (a @ b.t()).to(out_t), ref, cfg["out"])
            result["checks"].append({"shape": [M, N, K], "ok": ok, **stats,
                                     "torch_rel_fro": cu["rel_fro"]})
            print(f"  {name} {M}x{N}x{K}: {'PASS' if ok else 'FAIL'} rel_fro {stats['rel_fro']:.2e} "
                  f"(torch {cu['rel_fro']:.2e}) max_abs {stats['max_abs_err']:.3g} nan {stats['nan']}",
                  flush=True)
            ours.release()
            del a, b, c, ref
    if mode == "profile":   # one product (default 8192^3), launched twice (ncu profiles the second)
        M, N, K = profile_shape
        a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
        b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
        c = torch.empty((M, N), device="cuda", dtype=out_t)
        run = ours.prepare(a, b, c)
        run()
        run()
        torch.cuda.synchronize()
        ours.release()
    if mode in ("bench", "all"):
        for M, N, K in bench_shapes:
            a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
            b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
            c = torch.empty((M, N), device="cuda", dtype=out_t)
            run = ours.prepare(a, b, c)
            ms, lo, hi = time_fn(torch, run)
            result["bench"].append({"shape": [M, N, K], "ms": ms, "ms_min": lo, "ms_max": hi,
                                    "tflops": tflops(M, N, K, ms)})
            print(f"  {name} {M}x{N}x{K}: {ms:.3f} ms {tflops(M, N, K, ms):.0f} TFLOP/s", flush=True)
            ours.release()
            del a, b, c
    return result


# -- baselines -----------------------------------------------------------------

def triton_matmul():
    """The Triton tutorial's matmul (C = A @ B^T for K-major B), grouped raster."""
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        num_m, num_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = GROUP * num_n
        first = (pid // group) * GROUP
        size = min(num_m - first, GROUP)
        pm = first + (pid % group) % size
        pn = (pid % group) // size
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * K + rk[None, :]
        b = b_ptr + rn[None, :] * K + rk[:, None]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            av = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
            bv = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(av, bv, acc)
            a += BK
            b += BK
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        tl.store(c_ptr + cm[:, None] * N + cn[None, :], acc.to(c_ptr.dtype.element_ty),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))

    configs = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3)]

    def make(a, b, c, cfg):
        BM, BN, BK, warps, stages = cfg
        M, K = a.shape
        N = b.shape[0]
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        return lambda: kernel[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=8,
                                    num_warps=warps, num_stages=stages)
    return configs, make


def baselines(bench_shapes, check_shapes) -> dict:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    out = {"torch": [], "triton": [], "triton_checks": [], "versions": {"torch": torch.__version__}}
    try:
        import triton
        out["versions"]["triton"] = triton.__version__
        configs, make = triton_matmul()
    except Exception as e:  # noqa: BLE001
        out["versions"]["triton"] = f"unavailable: {e!r}"
        configs = None
    g = torch.Generator(device="cuda")
    g.manual_seed(1)
    if configs:
        for M, N, K in check_shapes[:4]:
            a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
            b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            make(a, b, c, configs[0])()
            ref = a.double() @ b.double().t()
            ok, stats = check(torch, c, ref, "bf16")
            out["triton_checks"].append({"shape": [M, N, K], "ok": ok, **stats})
    for M, N, K in bench_shapes:
        a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
        b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
        c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
        bt = b.t()
        ms, lo, hi = time_fn(torch, lambda: torch.matmul(a, bt, out=c))
        out["torch"].append({"shape": [M, N, K], "ms": ms, "tflops": tflops(M, N, K, ms)})
        print(f"  torch {M}x{N}x{K}: {ms:.3f} ms {tflops(M, N, K, ms):.0f} TFLOP/s", flush=True)
        if configs:
            best = None
            for cfg in configs:
                try:
                    ms, lo, hi = time_fn(torch, make(a, b, c, cfg), iters=5, reps=5)
                except Exception as e:  # noqa: BLE001
                    print(f"  triton {cfg}: {e!r}"[:300])
                    continue
                if best is None or ms < best[0]:
                    best = (ms, cfg)
            if best:
                out["triton"].append({"shape": [M, N, K], "ms": best[0], "config": best[1],
                                      "tflops": tflops(M, N, K, best[0])})
                print(f"  triton {M}x{N}x{K}: {best[0]:.3f} ms {tflops(M, N, K, best[0]):.0f} "
                      f"TFLOP/s {best[1]}", flush=True)
    return out


def interleaved(directory: Path, names, shapes, rounds: int = 9, with_triton: bool = False) -> dict:
    """Ours (each config of `names`; "auto": the configuration
    gemm_parts/schedule.py chooses for the shape, its name recorded) and
    torch.matmul (and, `with_triton`, the Triton tutorial matmul at its best
    of the configs tried on the shape first) timed round-robin in one
    process, so that every implementation sees the same clock and power
    state (the H200's clocks move with power; a sequential comparison
    favours whichever runs on a cooler GPU)."""
    import torch
    rt = load_runtime()
    torch.zeros(1, device="cuda")
    rt.init(0)
    cfgs = {c["name"]: c for c in json.loads((directory / "manifest.json").read_text())["kernels"]}
    schedule = load_schedule() if "auto" in names else None
    triton = None
    if with_triton:
        try:
            triton = triton_matmul()
        except Exception as e:  # noqa: BLE001
            print(f"  triton unavailable: {e!r}", flush=True)
    g = torch.Generator(device="cuda")
    g.manual_seed(int(time.time()))
    out = {"rounds": rounds, "shapes": []}
    for M, N, K in shapes:
        a = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
        b = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
        bt = b.t()
        impls, keep, chosen = {}, [], {}
        for name in names:
            cfg_name = name
            if name == "auto":
                cfg_name = schedule.config_for(M, N, K, sms=rt.sm_count(), available=cfgs)
                chosen["auto"] = cfg_name
            ours = Ours(rt, directory, cfgs[cfg_name])
            c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
            impls[name] = ours.prepare(a, b, c)
            keep.append((ours, c))
        ct = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
        impls["torch"] = lambda: torch.matmul(a, bt, out=ct)
        if triton:
            configs, make = triton
            ctr = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
            best = best_triton(torch, configs, make, a, b, ctr, iters=5)
            if best:
                impls["triton"] = make(a, b, ctr, best[1])
                chosen["triton"] = list(best[1])
        times = {n: [] for n in impls}
        for fn in impls.values():
            fn()
        torch.cuda.synchronize()
        for _ in range(rounds):
            for n, fn in impls.items():
                ms, _, _ = time_fn(torch, fn, iters=10, reps=1, warmup=1)
                times[n].append(ms)
        row = {"shape": [M, N, K]}
        for n, ts in times.items():
            med = statistics.median(ts)
            row[n] = {"ms": med, "ms_min": min(ts), "ms_max": max(ts), "tflops": tflops(M, N, K, med),
                      "tflops_best": tflops(M, N, K, min(ts))}
            if n in chosen:
                row[n]["schedule"] = chosen[n]
        out["shapes"].append(row)
        print(f"  {M}x{N}x{K}: " + "  ".join(
            f"{n}{'=' + str(r['schedule']) if 'schedule' in r else ''} {r['tflops']:.0f} "
            f"(best {r['tflops_best']:.0f})" for n, r in row.items() if n != "shape"), flush=True)
        for ours, _ in keep:
            ours.release()
        del a, b, bt, ct, keep, impls
        torch.cuda.empty_cache()
    return out


# -- parent ----------------------------------------------------------------------

def spawn(args_list, timeout):
    cmd = [sys.executable, os.path.abspath(__file__)] + args_list
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out + f"\nHANG: timed out after {timeout} s"
    res = None
    for line in p.stdout.splitlines():
        if line.startswith(TAG):
            res = json.loads(line[len(TAG):])
    text = "\n".join(l for l in p.stdout.splitlines() if not l.startswith(TAG)) + p.stderr[-3000:]
    if p.returncode:
        text += f"\nexit status {p.returncode}"
    return res, text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--configs", default="")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--random-shapes", action="store_true",
                    help="check: the 20 seeded random shapes (RANDOM_SHAPES) after the fixed ones")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--bench-configs", default="", help="configs to time (default: all)")
    ap.add_argument("--json", default="")
    ap.add_argument("--child", default="")
    ap.add_argument("--mode", default="all")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--shapes", default="", help="interleave: MxNxK,... (default 8192^3, 4096^3, "
                    "4096x14336x4096)")
    ap.add_argument("--rounds", type=int, default=9, help="interleave: rounds of 10 launches")
    ap.add_argument("--shape", default="8192x8192x8192", help="--mode profile: MxNxK")
    ap.add_argument("--triton", action="store_true",
                    help="interleave: the Triton tutorial matmul in the round-robin too")
    args = ap.parse_args()
    directory = Path(args.dir).resolve()
    if args.child == "interleave":
        shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 14336, 4096)]
        if args.shapes:
            shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
        res = interleaved(directory, args.configs.split(","), shapes, args.rounds, args.triton)
        print(TAG + json.dumps(res), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=1))
        return
    if args.child == "baselines":
        print(TAG + json.dumps(baselines(BENCH_SHAPES, CHECK_SHAPES)), flush=True)
        return
    if args.child:
        profile_shape = tuple(int(x) for x in args.shape.split("x"))
        shapes = CHECK_SHAPES + (RANDOM_SHAPES if args.random_shapes else [])
        print(TAG + json.dumps(child(directory, args.child, args.mode, shapes, BENCH_SHAPES,
                                     profile_shape)), flush=True)
        return

    names = [c["name"] for c in json.loads((directory / "manifest.json").read_text())["kernels"]]
    if args.configs:
        names = [n for n in names if n in args.configs.split(",")]
    bench_names = args.bench_configs.split(",") if args.bench_configs else names
    results, summary = {}, {}
    for name in names:
        mode = "check" if args.check_only or name not in bench_names else "all"
        print(f"== {name} ({mode})", flush=True)
        res, text = spawn([args.dir, "--child", name, "--mode", mode]
                          + (["--random-shapes"] if args.random_shapes else []),
                          args.timeout)
        print(text.strip(), flush=True)
        results[name] = res or {"config": name, "error": text[-2000:]}
    if not args.check_only and not args.no_baselines:
        print("== baselines", flush=True)
        res, text = spawn([args.dir, "--child", "baselines"], max(args.timeout, 300))
        print(text.strip(), flush=True)
        results["baselines"] = res or {"error": text[-2000:]}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))

    # The table, last.
    print("\n== correctness (relative Frobenius error vs float64; PASS = no NaN/unwritten, every "
          "element within rtol*|ref| + atol)")
    for name in names:
        r = results[name]
        if "error" in r:
            print(f"{name:12s} ERROR/HANG")
            continue
        cells = [f"{'x'.join(map(str, c['shape']))}:{'PASS' if c['ok'] else 'FAIL'}({c['rel_fro']:.1e})"
                 for c in r["checks"]]
        print(f"{name:12s} " + " ".join(cells))
    if not args.check_only:
        base = results.get("baselines", {})
        cols = [n for n in names if results[n].get("bench")]
        print("\n== TFLOP/s (median of 7 x 10 launches)")
        print(f"{'shape':20s}" + "".join(f"{n:>12s}" for n in cols) + f"{'torch':>10s}{'triton':>10s}"
              + f"{'best/torch':>12s}")
        for i, (M, N, K) in enumerate(BENCH_SHAPES):
            row = f"{M}x{N}x{K}".ljust(20)
            best = 0.0
            for n in cols:
                v = results[n]["bench"][i]["tflops"] if i < len(results[n]["bench"]) else 0
                best = max(best, v)
                row += f"{v:12.0f}"
            t = base.get("torch", [])
            tv = t[i]["tflops"] if i < len(t) else 0
            tr = base.get("triton", [])
            trv = next((x["tflops"] for x in tr if x["shape"] == [M, N, K]), 0)
            row += f"{tv:10.0f}{trv:10.0f}" + (f"{best / tv:12.2f}" if tv else "")
            print(row)
        print("versions:", base.get("versions"))


if __name__ == "__main__":
    main()
