#!/usr/bin/env python3
"""Run the fence-merging kernels on the GPU (bench/fence/build.py builds
them): per-arrive release.cluster vs merged, in one process, interleaved.
Needs only numpy, cuda-bindings and runtime.py.

    python3 -m bench.fence.run BENCH_DIR [--rounds 1000000] [--runs 3] [--json OUT]

Each kernel: one warm-up launch (1000 rounds), then `runs` launches of
`rounds` rounds, the variants of all rows interleaved launch by launch.
Cycles per round = CTA 0's clock64 cycles over its loop / rounds (median
over the launches); mismatches = the payload words every receiver (bcast) or
CTA 0 (gather) found wrong, summed over all launches (must be 0).
"""
from __future__ import annotations

import statistics

import numpy as np

from bench import harness

BASELINE = "release"


def launch(rt, function, row, rounds: int) -> tuple[float, int, list[int]]:
    n = row["cluster"]
    with rt.DeviceBuffer.empty((16,), np.int64) as out:
        out.fill_bytes(0xFF)  # poisoned: every CTA must write its slots
        rt.launch(function, [n, 1, 1], [1, 1, 1], [out, np.int32(rounds)], cluster=[n, 1, 1])
        values = out.to_numpy()
    cycles = [int(v) for v in values[:n]]
    bad = values[8:8 + n]
    if any(c <= 0 for c in cycles) or any(b < 0 for b in bad):
        raise RuntimeError(f"{row['name']}: a CTA did not write its results: {values.tolist()}")
    return cycles[0] / rounds, int(bad.sum()), cycles


def main() -> int:
    args, rt, manifest = harness.runner(__doc__, rounds=1_000_000, runs=3)
    rows = [r for r in manifest if r["kind"] in ("bcast", "gather")]
    modules, functions = {}, {}
    for row in rows:
        modules[row["name"]] = rt.Module.load((args.bench_dir / row["cubin"]).read_bytes())
        functions[row["name"]] = modules[row["name"]].function(row["name"])
        launch(rt, functions[row["name"]], row, 1000)  # warm-up
    results = {row["name"]: {**row, "cycles": [], "mismatches": 0, "rounds_checked": 0}
               for row in rows}
    for run in range(args.runs):
        for row in rows:
            per_round, bad, _ = launch(rt, functions[row["name"]], row, args.rounds)
            r = results[row["name"]]
            r["cycles"].append(per_round)
            r["mismatches"] += bad
            r["rounds_checked"] += args.rounds
        print(f"run {run + 1}/{args.runs} done", flush=True)
    for r in results.values():
        r["median"] = statistics.median(r["cycles"])
    by_key = {(r["kind"], r["k"], r["variant"]): r for r in results.values()}
    for r in results.values():
        base = by_key.get((r["kind"], r["k"], BASELINE))
        r["speedup"] = base["median"] / r["median"] if base else None
    harness.save_results(args, rt, rounds=args.rounds, runs=args.runs,
                         rows=list(results.values()))
    print(f"\n{'kernel':<24} {'CTAs':>4} {'cycles/round':>12} {'min-max':>13} "
          f"{'vs release':>10} {'mismatches':>10} {'rounds checked':>14}")
    for r in results.values():
        spread = f"{min(r['cycles']):.0f}-{max(r['cycles']):.0f}"
        print(f"{r['name']:<24} {r['cluster']:>4} {r['median']:>12.0f} {spread:>13} "
              f"{r['speedup']:>9.2f}x {r['mismatches']:>10} {r['rounds_checked']:>14}")
    return 1 if any(r["mismatches"] for r in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
