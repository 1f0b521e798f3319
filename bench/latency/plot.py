#!/usr/bin/env python3
"""Plot the benchmark results: latency ours vs reference (H200) and pass
scaling ours vs upstream nvgpu. Writes bench/results/latency/benchmarks.png.

    python -m bench.latency.plot [--latency bench/results/latency/latency.json] [--cpu bench/results/compile/cpu.json]
"""
from __future__ import annotations

import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", default=os.path.join(HERE, "results", "latency", "latency.json"))
    parser.add_argument("--cpu", default=os.path.join(HERE, "results", "compile", "cpu.json"))
    parser.add_argument("-o", default=os.path.join(HERE, "results", "latency", "benchmarks.png"))
    args = parser.parse_args()
    latency = json.load(open(args.latency))
    cpu = json.load(open(args.cpu))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1.6]})
    rows = latency["rows"]
    labels = [r["label"].replace("remote ", "").replace("cluster-4 ", "bcast4 ")
              + (f"  [x{r['unroll']}]" if r["unroll"] > 1 else "") for r in rows]
    x = range(len(rows))
    ax1.bar([i - 0.2 for i in x], [r["ours_median"] for r in rows], 0.4, label="ours (mbarrier dialect)")
    ax1.bar([i + 0.2 for i in x], [r["reference_median"] for r in rows], 0.4,
            label="hand-written CUDA (nvcc -O3; rolled for x1 rows)")
    for i, r in enumerate(rows):
        ax1.text(i, max(r["ours_median"], r["reference_median"]) + 20, f"{r['ratio']:.2f}",
                 ha="center", fontsize=8)
    ax1.set_xticks(list(x))
    ax1.set_xticklabels(labels, rotation=40, ha="right", fontsize=7)
    ax1.set_ylabel("cycles per round (median)")
    ax1.set_title(f"mbarrier round trips on {latency['device']} (ratio ours/ref above bars)")
    ax1.legend()

    tp = cpu["throughput"]
    ops = [r["ops"] for r in tp]
    ax2.loglog(ops, [r["mbarrier"] for r in tp], "o-", label="convert-mbarrier-to-nvvm")
    ax2.loglog(ops, [r["nvgpu"] for r in tp], "s--", label="convert-nvgpu-to-nvvm (upstream)")
    ax2.loglog(ops, [tp[0]["mbarrier"] * o / ops[0] for o in ops], ":", color="gray", label="linear")
    ax2.set_xlabel("barrier ops in the module")
    ax2.set_ylabel("pass wall time (s)")
    ax2.set_title("pass scaling (2-core x86-64)")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(args.o, dpi=110)
    print("wrote", args.o)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
