#!/usr/bin/env python3
"""Run the latency benchmark on the GPU: ours vs the hand-written reference,
row by row, in one process. Needs only numpy, cuda-bindings and runtime.py.

    python3 bench/run_latency.py BENCH_DIR [--iters 100000] [--runs 7] [--json OUT]

Cycles per round = CTA 0's clock64 cycles over its loop / iters; each side
is run `runs` times (after a warm-up launch) and the median is reported.
Each row names its own reference: the rolled build for our rolled loops,
nvcc's default build (loops unrolled by 4) for our 4-rounds-per-trip loops.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
from pathlib import Path

import numpy as np

RUNTIME = Path(__file__).resolve().parents[1] / "python" / "mbarrier_dialect" / "runtime.py"


def load_runtime():
    spec = importlib.util.spec_from_file_location("mbarrier_runtime", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(rt, function, row, iters: int, runs: int, cluster) -> list[float]:
    per_round = []
    with rt.DeviceBuffer.empty((8,), np.int64) as out:
        for run in range(runs + 1):  # the first launch is the warm-up
            out.fill_bytes(0)
            rt.launch(function, row["grid"], row["block"], [out, np.int32(iters)],
                      cluster=cluster)
            if run:
                per_round.append(int(out.to_numpy()[0]) / iters)
    return per_round


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench_dir", type=Path)
    parser.add_argument("--iters", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rt = load_runtime()
    rt.init()
    manifest = json.loads((args.bench_dir / "latency.json").read_text())
    references = {}
    results = []
    for row in manifest["rows"]:
        if row["reference"] not in references:
            references[row["reference"]] = rt.Module.load(
                (args.bench_dir / row["reference"]).read_bytes())
        ours_module = rt.Module.load((args.bench_dir / row["ours"]).read_bytes())
        ours = measure(rt, ours_module.function(row["ours_entry"]), row, args.iters, args.runs,
                       row["cluster"])
        # The reference kernels carry __cluster_dims__: launched without the
        # attribute; a reference built by us (reference_cluster) in its cluster.
        ref = measure(rt, references[row["reference"]].function(row["reference_entry"]), row,
                      args.iters, args.runs,
                      row["cluster"] if row.get("reference_cluster") else None)
        ours_module.unload()
        result = {**row, "ours_cycles": ours, "reference_cycles": ref,
                  "ours_median": statistics.median(ours), "reference_median": statistics.median(ref)}
        result["ratio"] = result["ours_median"] / result["reference_median"]
        results.append(result)
        print(f"{row['name']}: ours {result['ours_median']:.0f} ref {result['reference_median']:.0f}",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps({"device": rt.device_name(), "iters": args.iters,
                                         "runs": args.runs, "rows": results}, indent=1))
    print(f"\n{'row':<46} {'unroll':>6} {'ours':>6} {'ref':>6} {'ratio':>6} {'anchor':>6}"
          "  spread ours/ref")
    for r in results:
        spread = (f"{min(r['ours_cycles']):.0f}-{max(r['ours_cycles']):.0f}/"
                  f"{min(r['reference_cycles']):.0f}-{max(r['reference_cycles']):.0f}")
        print(f"{r['label']:<46} {r['unroll']:>6} {r['ours_median']:>6.0f} "
              f"{r['reference_median']:>6.0f} {r['ratio']:>6.2f} {r['anchor'] or '':>6}  {spread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
