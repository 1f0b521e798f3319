#!/usr/bin/env python3
"""Build the cost benchmark of debug waits (issue 21): our own kernels with
and without ``debug_waits``, side by side in the existing runners, so that
both are timed in the same run. No GPU and no nvcc needed here.

    python -m bench.debug_waits.build OUT_DIR [--bound-ns 200000000]
        [--parts latency,stream,gemm,attention] [--suffix _dw] [--debug-only]

- OUT_DIR/latency: every row of the latency table (bench/latency/kernels.py);
  bench/latency/run.py's "ours" is the kernel with debug waits, its "reference"
  the same kernel without (``reference_cluster``: launched in its cluster).
- OUT_DIR/stream: the TMA streaming kernel in every shape
  (bench/stream/build.py); bench/stream/run.py --only stream: "ours" with,
  "ref" without.
- OUT_DIR/gemm: the GEMM configs c1_256 and c2_256 of bench/gemm/build.py,
  each also as NAME_dw with debug waits; run.py --child interleave times
  them round-robin (and torch.matmul).
- OUT_DIR/attention: the attention configs d128_pp_ts and
  d128_causal_pp_ts of bench/attention/build.py, each also as NAME_dw;
  bench/attention/run.py times them round-robin (and torch's SDPA).

``--suffix S --debug-only`` adds only the debug-wait builds, as NAME+S, to
the manifests already in OUT_DIR: the same kernels built by another
compiler (the one before a change) beside them in one run.

bench/debug_waits/table.py turns the three runners' JSON into one table.
"""
from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from bench import harness
from bench.attention import build as attention_build
from bench.gemm import build as gemm_build
from bench.latency import kernels as latency_kernels
from bench.stream import build as stream_kernels

BOUND_NS = 200_000_000
GEMM_CONFIGS = ("c1_256", "c2_256")
ATTENTION_CONFIGS = ("d128_pp_ts", "d128_causal_pp_ts")
SUFFIX = "_dw"
PARTS = ("latency", "stream", "gemm", "attention")


def _both(kernel, out: Path, stem: str, bound_ns: int, suffix: str = SUFFIX,
          plain: bool = True, **kwargs) -> list:
    """`stem`.cubin without (unless not `plain`) and `stem``suffix`.cubin
    with debug waits; (name, debug_waits, compiled) of each."""
    built = []
    for name, bound in ((stem, 0), (stem + suffix, bound_ns))[0 if plain else 1:]:
        compiled = kernel.compile(debug_waits=bound, **kwargs)
        (out / f"{name}.cubin").write_bytes(compiled.cubin)
        (out / f"{name}.ptx").write_text(compiled.ptx)
        built.append((name, bound, compiled))
    return built


def _write_rows(out: Path, rows: list) -> None:
    """`rows` into `out`'s manifest.json, after the rows already there whose
    names they do not repeat."""
    names = {r["name"] for r in rows}
    kept = harness.read_manifest(out) if (out / harness.MANIFEST).is_file() else []
    harness.write_manifest(out, [r for r in kept if r["name"] not in names] + rows)


def build_latency(out: Path, bound_ns: int) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for bench in latency_kernels.all_benches():
        _both(bench.kernel, out, bench.name, bound_ns)
        k = bench.kernel
        rows.append({"name": bench.name, "label": bench.label, "anchor": None,
                     "unroll": bench.unroll,
                     "ours": f"{bench.name}{SUFFIX}.cubin", "ours_entry": bench.name,
                     "reference": f"{bench.name}.cubin", "reference_entry": bench.name,
                     "reference_cluster": True,
                     "grid": list(k.grid), "block": list(k.block),
                     "cluster": list(k.cluster) if k.cluster else None})
    harness.write_manifest(out, rows)
    return rows


def build_stream(out: Path, bound_ns: int) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for depth, r in stream_kernels.SHAPES:
        kernel = stream_kernels.stream_kernel(depth, r)
        _both(kernel, out, kernel.name, bound_ns)
        rows.append({"kind": "stream", "depth": depth, "rows": r,
                     "ours": f"{kernel.name}{SUFFIX}.cubin", "ours_name": kernel.name,
                     "ref": f"{kernel.name}.cubin", "ref_name": kernel.name})
    harness.write_manifest(out, rows)
    return rows


def build_gemm(out: Path, bound_ns: int, suffix: str = SUFFIX, plain: bool = True) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    gb = gemm_build
    rows = []
    for name in GEMM_CONFIGS:
        cfg = gb.CONFIGS[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = _both(gb.gemm.build(cfg=cfg), out, name, bound_ns, suffix, plain)
        for label, bound, _ in built:
            rows.append({"name": label, "cubin": f"{label}.cubin", "entry": cfg.name,
                         "bm": gb.gemm.BM, "bn": cfg.bn, "bk": gb.gemm.BK,
                         "stages": cfg.stages, "cluster": cfg.cluster, "out": cfg.out,
                         "group_m": cfg.group_m, "barriers": cfg.barriers,
                         "unroll": cfg.unroll, "b_box_rows": cfg.b_box_rows,
                         "threads": gb.gemm.THREADS, "smem_bytes": cfg.smem_bytes,
                         "debug_waits": bound})
    _write_rows(out, rows)
    return rows


def build_attention(out: Path, bound_ns: int, suffix: str = SUFFIX,
                    plain: bool = True) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    ab = attention_build
    rows = []
    for name in ATTENTION_CONFIGS:
        cfg = ab.CONFIGS[name]
        for label, bound, compiled in _both(ab.attention.build(cfg=cfg), out, name, bound_ns,
                                            suffix, plain):
            rows.append(ab.config_row(label, cfg, f"{label}.cubin", bound,
                                      len(compiled.warnings)))
    _write_rows(out, rows)
    ab.copy_runner(str(out))
    return rows


def build(out_dir: str, bound_ns: int = BOUND_NS, parts=PARTS, suffix: str = SUFFIX,
          plain: bool = True) -> dict:
    out = Path(out_dir)
    built = {}
    if "latency" in parts:
        built["latency"] = build_latency(out / "latency", bound_ns)
    if "stream" in parts:
        built["stream"] = build_stream(out / "stream", bound_ns)
    if "gemm" in parts:
        built["gemm"] = build_gemm(out / "gemm", bound_ns, suffix, plain)
    if "attention" in parts:
        built["attention"] = build_attention(out / "attention", bound_ns, suffix, plain)
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--bound-ns", type=int, default=BOUND_NS)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--suffix", default=SUFFIX)
    parser.add_argument("--debug-only", action="store_true",
                        help="only the debug-wait builds (gemm, attention), added to OUT_DIR's")
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    if args.debug_only and not set(parts) <= {"gemm", "attention"}:
        parser.error("--debug-only adds to the gemm and attention manifests only")
    for part, rows in build(args.out_dir, args.bound_ns, parts, args.suffix,
                            not args.debug_only).items():
        print(f"{part}: {len(rows)} rows")


if __name__ == "__main__":
    main()
