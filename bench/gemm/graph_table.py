#!/usr/bin/env python3
"""BENCHMARKS.md's tables of bench/gemm/graph_run.py's JSON: TFLOP/s of
ours (matmul's schedule, or each configuration), cuBLAS and Triton,
graph-timed and eager, and ours / cuBLAS.

    python -m bench.gemm.graph_table bench/results/gemm/matmul_run2_bench.json [--part bench]
"""
from __future__ import annotations

import argparse
import json


#: graph_run.py's layout keys (A's major, then B's).
LAYOUT_NAMES = {"KK": "aK bK", "KMN": "aK bMN", "MNK": "aMN bK", "MNMN": "aMN bMN"}


def impls(row: dict) -> list[str]:
    return [k[:-len("_graph_ms")] for k in row if k.endswith("_graph_ms")]


def table(rows: list, part: str, ratios_only: bool = False) -> str:
    """The markdown table; `ratios_only`: ours / cuBLAS (graph) per
    configuration and cuBLAS's TFLOP/s, no other figure (the variants)."""
    names = impls(rows[0])
    ours = [n for n in names if n not in ("cublas", "triton")]
    head = ["layout", "M x N x K"] + ([] if part == "variants" else ["schedule"])
    for n in (["cublas"] if ratios_only else names):
        head += [f"{n} graph", f"{n} eager"]
    head += [f"{n}/cuBLAS graph" for n in ours + (["triton"] if "triton" in names else [])]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [LAYOUT_NAMES[r["layout"]], "x".join(map(str, r["shape"]))]
        if part != "variants":
            cells.append(_short(r["auto"]))
        for n in (["cublas"] if ratios_only else names):
            g, e = r.get(f"{n}_graph_tflops"), r.get(f"{n}_eager_tflops")
            cells += [f"{g:.0f}" if g else "-", f"{e:.0f}" if e else "-"]
        for n in ours + (["triton"] if "triton" in names else []):
            ms = r.get(f"{n}_graph_ms")
            cells.append(f"{r['cublas_graph_ms'] / ms:.2f}" if ms else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _short(config: dict) -> str:
    """The schedule's pick, as bench/gemm/build.py names it."""
    kind = "pp" if config.get("consumers") == "pingpong" else "p1"
    bm = config.get("bm", 128)
    if config.get("split_k", 1) > 1:
        return f"sk_{config['bn']}_k{config['split_k']}"
    t = "_t" if config.get("store_transposed") else ""      # operands swapped, C^T stored
    return (f"{kind}_{bm}x{config['bn']}" if kind == "pp" else f"p1_{config['bn']}") + t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--part", default="bench", help="bench, layouts or variants (KEY/variants: "
                    "within KEY)")
    ap.add_argument("--ratios", action="store_true", help="only ours / cuBLAS per config")
    args = ap.parse_args()
    data = json.load(open(args.json))
    for key in args.part.split("/"):           # a nested run: "run4a_clusters/variants"
        data = data[key]
    print(table(data, args.part.split("/")[-1], args.ratios))


if __name__ == "__main__":
    main()
