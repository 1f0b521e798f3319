#!/usr/bin/env python3
"""Run the pipeline benchmarks that bench/stream/build.py built, on the GPU.
Needs only numpy, cuda-bindings and runtime.py (no MLIR).

    python3 -m bench.stream.run BENCH_DIR [--gib 4] [--runs 5] [--json OUT] [--only stream|multicast] [--once]

Streaming: a 4 GiB int32 array (0, 1, 2, ...) reduced by our TMA pipeline
and by the hand-written CUDA one, every shape at 1 to 5 CTAs per SM, both
interleaved launch by launch, and a device-to-device copy of the same size
(cuMemcpyDtoD). Bandwidth = bytes read / time for the reductions, 2 x bytes /
time for the copy (it reads and writes them). Each reduction's per-thread
sums must equal the reference's, element by element, and add up to
n(n-1)/2 mod 2^32. Multicast: each kernel's per-CTA sums checked exactly;
median time. `--once` launches each multicast kernel once (for ncu).
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

from bench import harness

COLS, CONSUMERS = 256, 128


def timed(rt, fn, grid, block, args, cluster=None) -> float:
    return rt.time_launch(fn, grid, block, args, cluster=cluster)


def copy_ms(rt, dst, src, nbytes: int) -> float:
    drv = rt._driver()
    start = rt.check(drv.cuEventCreate(0), "cuEventCreate")
    end = rt.check(drv.cuEventCreate(0), "cuEventCreate")
    rt.check(drv.cuEventRecord(start, 0), "cuEventRecord")
    rt.check(drv.cuMemcpyDtoD(dst.ptr, src.ptr, nbytes), "cuMemcpyDtoD")
    rt.check(drv.cuEventRecord(end, 0), "cuEventRecord")
    rt.check(drv.cuEventSynchronize(end), "cuEventSynchronize")
    ms = rt.check(drv.cuEventElapsedTime(start, end), "cuEventElapsedTime")
    drv.cuEventDestroy(start)
    drv.cuEventDestroy(end)
    return ms


def stream(rt, bench: Path, rows_meta: list[dict], gib: int, runs: int) -> dict:
    n = gib << 28                                      # int32 elements
    nbytes = n * 4
    sms = rt.sm_count()
    x = rt.DeviceBuffer.from_numpy(np.arange(n, dtype=np.int64).astype(np.int32))
    expect_total = (n * (n - 1) // 2) % 2**32
    copies = []
    with rt.DeviceBuffer.empty((n,), np.int32) as y:
        copy_ms(rt, y, x, nbytes)                      # warm-up
        copies = [copy_ms(rt, y, x, nbytes) for _ in range(runs)]
    copy_gbs = 2 * nbytes / statistics.median(copies) / 1e6
    print(f"device-to-device copy of {gib} GiB: {statistics.median(copies):.3f} ms, "
          f"{copy_gbs:.0f} GB/s (2 x bytes / time)")
    results = []
    for row in rows_meta:
        r = row["rows"]
        ntiles = n // (r * COLS)
        tmap = rt.encode_tensor_map_tiled(x, "int32", (n // COLS, COLS), (r, COLS))
        fns = {}
        mods = {}
        for side in ("ours", "ref"):
            mods[side] = rt.Module.load((bench / row[side]).read_bytes())
            fns[side] = mods[side].function(row[f"{side}_name"])
        smem = row["depth"] * r * COLS * 4
        max_per_sm = max(1, min(5, (227 * 1024) // (smem + 1024)))
        for per_sm in range(1, max_per_sm + 1):
            grid = sms * per_sm
            outs, times = {}, {"ours": [], "ref": []}
            for side in ("ours", "ref"):
                outs[side] = rt.DeviceBuffer.empty((grid * CONSUMERS,), np.int32)
                outs[side].fill_bytes(0xFF)
                rt.launch(fns[side], grid, 32 + CONSUMERS, [tmap, outs[side], np.int32(ntiles)])
            for _ in range(runs):
                for side in ("ours", "ref"):
                    times[side].append(timed(rt, fns[side], grid, 32 + CONSUMERS,
                                             [tmap, outs[side], np.int32(ntiles)]))
            got = {side: outs[side].to_numpy() for side in outs}
            total = int(got["ours"].astype(np.int64).sum()) % 2**32
            ok = bool((got["ours"] == got["ref"]).all()) and total == expect_total
            for buf in outs.values():
                buf.free()
            t_ours, t_ref = statistics.median(times["ours"]), statistics.median(times["ref"])
            res = {"depth": row["depth"], "rows": r, "ctas_per_sm": per_sm, "grid": grid,
                   "ours_ms": t_ours, "ref_ms": t_ref, "ours_gbs": nbytes / t_ours / 1e6,
                   "ref_gbs": nbytes / t_ref / 1e6, "ratio": t_ours / t_ref,
                   "of_copy": nbytes / t_ours / 1e6 / copy_gbs, "correct": ok,
                   "ours_runs": times["ours"], "ref_runs": times["ref"]}
            results.append(res)
            print(f"D={row['depth']:2d} rows={r:2d} {per_sm} CTA/SM: ours {res['ours_gbs']:6.0f} GB/s"
                  f"  ref {res['ref_gbs']:6.0f} GB/s  ours/ref time {res['ratio']:.3f}"
                  f"  {100 * res['of_copy']:5.1f}% of copy  {'OK' if ok else 'MISMATCH'}")
        tmap.free()
    x.free()
    best = max(results, key=lambda r: r["ours_gbs"])
    best_ref = max(results, key=lambda r: r["ref_gbs"])
    summary = {"gib": gib, "copy_gbs": copy_gbs, "copy_ms": copies, "rows": results,
               "best_ours": best, "best_ref": best_ref,
               "all_correct": all(r["correct"] for r in results)}
    print(f"best ours: D={best['depth']} rows={best['rows']} {best['ctas_per_sm']} CTA/SM "
          f"{best['ours_gbs']:.0f} GB/s = {100 * best['of_copy']:.1f}% of copy; "
          f"ref there {best['ref_gbs']:.0f} GB/s (time ratio {best['ratio']:.3f}); "
          f"best ref {best_ref['ref_gbs']:.0f} GB/s")
    return summary


def multicast(rt, bench: Path, rows_meta: list[dict], runs: int, once: bool) -> list[dict]:
    out = []
    for row in rows_meta:
        c, clusters, tiles = row["cluster"], row["clusters"], row["tiles"]
        r, cols, warps = row["rows"], row["cols"], row["warps"]
        wrap = row.get("wrap")
        shape = ((wrap or clusters * tiles) * r, cols)
        host = np.arange(shape[0] * shape[1], dtype=np.int64).astype(np.int32).reshape(shape)
        order = np.arange(clusters * tiles) % (wrap or clusters * tiles)   # tile of (cluster, t)
        per = host.reshape(-1, r * cols)[order].reshape(clusters, tiles, -1, 32 * warps)
        per = per.astype(np.int64).sum(axis=(1, 2))
        expect = np.repeat(((per + 2**31) % 2**32 - 2**31).astype(np.int32), c, axis=0)
        mod = rt.Module.load((bench / row["cubin"]).read_bytes())
        fn = mod.function(row["name"])
        ctas = c * clusters
        with rt.DeviceBuffer.from_numpy(host) as x, \
                rt.DeviceBuffer.empty((ctas, 32 * warps), np.int32) as res:
            tmap = rt.encode_tensor_map_tiled(x, "int32", shape, (row["box_rows"], cols))
            res.fill_bytes(0xFF)
            args = [x, tmap, res]
            block = 32 * (warps + 1)
            rt.launch(fn, ctas, block, args, cluster=(c, 1, 1))
            ok = bool((res.to_numpy() == expect).all())
            times = [] if once else [timed(rt, fn, ctas, block, args, (c, 1, 1))
                                     for _ in range(runs)]
            tmap.free()
        nbytes = clusters * tiles * r * cols * 4       # bytes each CTA of a cluster receives x clusters
        t = statistics.median(times) if times else float("nan")
        entry = {**row, "correct": ok, "ms": t, "runs": times, "input_bytes": nbytes,
                 "delivered_gbs": nbytes * c / t / 1e6 if times else None}
        out.append(entry)
        print(f"cluster {c} {row['share']:9s}{' L2' if wrap else '   '}: {t:.3f} ms, "
              f"{nbytes >> 20} MiB per CTA of a cluster x clusters, "
              f"{entry['delivered_gbs'] or 0:.0f} GB/s into shared memory, "
              f"{'OK' if ok else 'MISMATCH'}")
    return out


def main() -> int:
    args, rt, manifest = harness.runner(
        __doc__.split("\n\n")[0],
        (("--only",), dict(choices=["stream", "multicast"])),
        (("--once",), dict(action="store_true")), gib=4, runs=5)
    meta = manifest
    result = {}
    ok = True
    if args.only in (None, "stream"):
        result["stream"] = stream(rt, args.bench_dir, [m for m in meta if m["kind"] == "stream"],
                                  args.gib, args.runs)
        ok &= result["stream"]["all_correct"]
    if args.only in (None, "multicast"):
        result["multicast"] = multicast(rt, args.bench_dir,
                                        [m for m in meta if m["kind"] == "multicast"],
                                        args.runs, args.once)
        ok &= all(m["correct"] for m in result["multicast"])
    harness.save_results(args, rt, **result)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
