#!/usr/bin/env python3
"""Run the latency benchmark on the GPU: ours vs the hand-written reference,
row by row, in one process. Needs only numpy, cuda-bindings and runtime.py.

    python3 -m bench.latency.run BENCH_DIR [--iters 100000] [--runs 7] [--json OUT]

Cycles per round = CTA 0's clock64 cycles over its loop / iters; each side
is run `runs` times (after a warm-up launch) and the median is reported.
Each row names its own reference: the rolled build for our rolled loops,
nvcc's default build (loops unrolled by 4) for our 4-rounds-per-trip loops.
"""
from __future__ import annotations

import statistics

import numpy as np

from bench import harness


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
    args, rt, manifest = harness.runner(__doc__, iters=100_000, runs=7)
    references = {}
    results = []
    for row in manifest:
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
    harness.save_results(args, rt, iters=args.iters, runs=args.runs, rows=results)
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
