#!/usr/bin/env python3
"""The cost of debug waits as one table, from the JSON that the runners
wrote for bench/debug_waits/build.py's kernels (standard library only):

    python3 -m bench.debug_waits.table --latency L.json --stream S.json --gemm G.json

Latency rows: cycles per round without / with debug waits (goal: <= 2
cycles more). Streaming: time with / time without at each shape's fastest
CTAs per SM, and the median over every shape and CTAs per SM (goal: <= 1%).
GEMM: TFLOP/s without / with at each shape of the interleaved run (goal:
<= 1%). Any part whose file is missing is left out.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

SUFFIX = "_dw"


def latency_rows(data: dict) -> list[list[str]]:
    rows = []
    for r in data["rows"]:
        off, on = r["reference_median"], r["ours_median"]
        rows.append([f"latency: {r['label']} (x{r['unroll']})", f"{off:.0f} cycles",
                     f"{on:.0f} cycles", f"{on - off:+.0f} cycles",
                     "ok" if on - off <= 2 else "over"])
    return rows


def stream_rows(data: dict) -> list[list[str]]:
    results = data["stream"]["rows"]
    rows = []
    for shape in sorted({(r["depth"], r["rows"]) for r in results}):
        mine = [r for r in results if (r["depth"], r["rows"]) == shape]
        best = min(mine, key=lambda r: r["ref_ms"])
        cost = best["ratio"] - 1
        rows.append([f"stream D={shape[0]} rows={shape[1]} ({best['ctas_per_sm']} CTA/SM)",
                     f"{best['ref_gbs']:.0f} GB/s", f"{best['ours_gbs']:.0f} GB/s",
                     f"{100 * cost:+.2f}% time", "ok" if cost <= 0.01 else "over"])
    median = statistics.median(r["ratio"] for r in results) - 1
    correct = all(r["correct"] for r in results)
    rows.append([f"stream, median of {len(results)} shapes x CTA/SM", "", "",
                 f"{100 * median:+.2f}% time",
                 ("ok" if median <= 0.01 else "over") + ("" if correct else ", MISMATCH")])
    return rows


def gemm_rows(data: dict) -> list[list[str]]:
    rows = []
    for shape in data["shapes"]:
        label = "x".join(str(n) for n in shape["shape"])
        for name in sorted(k for k in shape if k != "shape" and not k.endswith(SUFFIX)
                           and k + SUFFIX in shape):
            off, on = shape[name]["tflops"], shape[name + SUFFIX]["tflops"]
            cost = 1 - on / off
            rows.append([f"GEMM {name} {label}", f"{off:.0f} TFLOP/s", f"{on:.0f} TFLOP/s",
                         f"{-100 * cost:+.2f}%", "ok" if cost <= 0.01 else "over"])
    return rows


def table(rows: list[list[str]]) -> str:
    header = ["benchmark", "without", "with debug waits", "difference", "goal"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=Path)
    parser.add_argument("--stream", type=Path)
    parser.add_argument("--gemm", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for path, make in ((args.latency, latency_rows), (args.stream, stream_rows),
                       (args.gemm, gemm_rows)):
        if path is not None and path.is_file():
            rows += make(json.loads(path.read_text()))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
