"""Build the GEMM benchmark: compile each GEMM configuration of
examples/gemm.py to a cubin and write ``manifest.json`` (bench/harness.py's
one format; what run.py needs to
launch them: entry, tile, stages, cluster, dynamic shared memory) plus an
exact-check manifest (``exact/``) for test/gpu/suite/run_manifest.py.

    python -m bench.gemm.build OUT_DIR [--configs NAME,...]

The device side (run.py, tools/device/run.sh gemm) needs no MLIR.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

from examples import gemm
from bench import harness
from bench.gemm.raw_ring import RawConfig
from examples.gemm_parts import schedule, splitk
from examples.gemm_parts.layouts import MN_CHUNK, layout_suffix
from mbarrier_dialect import manifest

#: The run-5 kernel's defaults (a CTA per tile, direct stores, a 2x1 cluster:
#: gemm.Config()'s before issue 32), under the configurations named after them.
RUN5 = dict(cluster=2, persistent=False, epilogue="direct")


def run5(**kw) -> gemm.Config:
    """gemm.Config with the run-5 kernel's defaults under `kw`."""
    return gemm.Config(**{**RUN5, **kw})


CONFIGS = {
    # The ring as an mbarrier.pipe (lang.Pipeline):
    "c1_128": run5(bn=128, stages=4, cluster=1),
    "c1_256": run5(bn=256, stages=4, cluster=1),
    "c1_256_u2": run5(bn=256, stages=4, cluster=1, unroll=2),
    "c1_256_f32": run5(bn=256, stages=4, cluster=1, out="f32"),
    # 2x1 cluster, B multicast along the row, releases to both CTAs:
    "c2_128": run5(bn=128, stages=6, cluster=2),
    "c2_256": run5(bn=256, stages=4, cluster=2),
    "c2_256_u2": run5(bn=256, stages=4, cluster=2, unroll=2),
    "c1_256_lag": run5(bn=256, stages=4, cluster=1, lag=True),
    "c2_256_lag": run5(bn=256, stages=4, cluster=2, lag=True),
    "c2_256_f32": run5(bn=256, stages=4, cluster=2, out="f32"),
    # Persistent: one CTA per SM walks the tiles, the ring carried across them.
    "p1_256": run5(bn=256, stages=4, cluster=1, persistent=True),
    "p2_256": run5(bn=256, stages=4, cluster=2, persistent=True),
    "p1_128": run5(bn=128, stages=6, cluster=1, persistent=True),
    "p1_256_f32": run5(bn=256, stages=4, cluster=1, out="f32", persistent=True),
    # ... with the TMA-store epilogue (shared staging, 128-byte swizzle):
    "p1_256_ts": gemm.Config(**schedule.CONFIG_KWARGS["p1_256_ts"]),
    "p2_256_ts": run5(bn=256, stages=4, cluster=2, persistent=True, epilogue="tma"),
    "p1_128_ts": gemm.Config(**schedule.CONFIG_KWARGS["p1_128_ts"]),
    "c1_256_ts": run5(bn=256, stages=4, cluster=1, epilogue="tma"),
    # 128x192 tiles (wave quantization: 3072^3 is 384 of them, 2.91 waves
    # of 132, against 288 = 2.18 waves of 128x256); 4 stages of 40 KiB.
    "p1_192_ts": gemm.Config(**schedule.CONFIG_KWARGS["p1_192_ts"]),
    # Ping-pong consumers (gemm_parts/pingpong.py): each warpgroup a whole
    # tile, the two on alternate tiles, in turn through an ordered sequence.
    "pp_64x256_ts": gemm.Config(**schedule.CONFIG_KWARGS["pp_64x256_ts"]),
    "pp_128x128_ts": gemm.Config(**schedule.CONFIG_KWARGS["pp_128x128_ts"]),
    # ... in a 2x1 cluster: B (256 of the 320 rows a stage loads) multicast
    "pp2_64x256_ts": run5(bm=64, bn=256, stages=4, cluster=2, persistent=True,
                          epilogue="tma", consumers="pingpong", group_m=32),
    "pp2_128x128_ts": run5(bm=128, bn=128, stages=6, cluster=2, persistent=True,
                           epilogue="tma", consumers="pingpong"),
    "pp_64x256": run5(bm=64, bn=256, stages=4, cluster=1, persistent=True,
                      consumers="pingpong", group_m=32),
    # The first version's raw TMABar/MBarrier ring, for the comparison in one
    # run (its c1_256 and c2_256_r; the latter's relaxed release orders
    # nothing before the arrival: not correct by the PTX memory model).
    "c1_256_raw": RawConfig(bn=256, stages=4, cluster=1),
    "c2_256_raw_r": RawConfig(bn=256, stages=4, cluster=2, release_sem="relaxed"),
}
# The schedule's configurations (matmul's, gemm_parts/api.py) in the four
# layouts (A M-major and/or B N-major: gemm_parts/layouts.py).
for _name, _kwargs in schedule.CONFIG_KWARGS.items():
    CONFIGS.setdefault(_name, gemm.Config(**_kwargs))
    for _a, _b in (("K", "MN"), ("MN", "K"), ("MN", "MN")):
        if _b == "MN" and _kwargs["bn"] % MN_CHUNK:
            continue                            # an N-major B loads 64-row chunks
        CONFIGS[_name + layout_suffix(_a, _b)] = gemm.Config(**_kwargs, a_major=_a, b_major=_b)

# Exact checks (integer-valued inputs, f32 output): shapes off the tile; K
# tiles 3 and 5 give the unrolled loops a trip and a remainder.
EXACT = [("c1_128", 200, 328, 200), ("c2_256", 328, 520, 136), ("c2_256_u2", 256, 264, 136),
         ("c2_256_lag", 328, 520, 136), ("c1_256_lag", 130, 260, 8),
         ("c2_128", 256, 256, 64), ("c1_256_u2", 136, 512, 264), ("c1_256", 130, 260, 8),
         ("c2_256_raw_r", 328, 520, 136),
         # persistent: more tiles than the CTAs the exact run launches
         # (its grid is the declared one), odd N
         ("p1_256", 520, 1031, 136), ("p2_256", 1040, 520, 200), ("p1_128", 130, 777, 8),
         # the TMA epilogue (bf16 C, rounded as the kernel rounds): N % 8 == 0
         # through the staging buffers, an odd N through the direct fallback
         ("p1_256_ts", 520, 1032, 136), ("p2_256_ts", 1040, 520, 200),
         ("p1_128_ts", 130, 776, 8), ("p1_256_ts", 264, 261, 72), ("c1_256_ts", 200, 328, 200),
         # 128x192 tiles: a partial last N tile (776 = 4 x 192 + 8)
         ("p1_192_ts", 520, 776, 200),
         # ping-pong: 4 CTAs walking 45 / 15 tiles (odd and even per CTA,
         # so each warpgroup ends on either parity), K of 1 and 3 blocks,
         # an odd N through the direct fallback; f32 C through the direct
         # store with K below a stage
         ("pp_64x256_ts", 520, 1032, 136), ("pp_128x128_ts", 264, 648, 72),
         ("pp_128x128_ts", 264, 261, 200), ("pp_64x256", 130, 777, 8),
         ("pp2_64x256_ts", 1040, 520, 200), ("pp2_128x128_ts", 520, 648, 136),
         # the other layouts (an M- or N-major extent a multiple of 8, the
         # TMA's row-stride rule; a K-major one odd)
         ("p1_256_ts_aK_bMN", 264, 1032, 136), ("p1_256_ts_aMN_bK", 520, 261, 200),
         ("p1_256_ts_aMN_bMN", 136, 520, 72), ("pp_128x128_ts_aK_bMN", 131, 648, 200),
         ("pp_128x128_ts_aMN_bK", 264, 777, 136), ("pp_128x128_ts_aMN_bMN", 520, 264, 8),
         ("p1_192_ts_aMN_bMN", 264, 776, 136), ("p1_128_ts_aMN_bK", 136, 776, 200),
         # 64-row ping-pong tiles, 64 or 128 wide
         ("pp_64x128_ts", 130, 1032, 136), ("pp_64x128_ts_aMN_bMN", 264, 776, 200),
         ("pp_64x64_ts", 130, 261, 200), ("pp_64x64_ts_aMN_bK", 520, 1032, 72),
         ("pp_64x64_ts_aK_bMN", 131, 264, 8),
         # tiles of bn % 64 more columns (stored directly past the last TMA
         # box): the TMA path with a partial last tile, the odd-N fallback
         ("p1_144_ts", 264, 1032, 136), ("p1_224_ts", 264, 1000, 72),
         ("p1_224_ts", 520, 777, 200), ("p1_144_ts_aMN_bK", 136, 1032, 200),
         # split-K: the f32 partials of every slice checked (K of 17 blocks
         # in 2, 4 blocks in 3, 3 blocks in 4: a slice of no block), odd N
         ("sk_256_k2", 520, 1031, 1032), ("sk_128_k3", 130, 777, 200),
         ("sk_128_k4", 264, 136, 136), ("sk_256_k3_aMN_bMN", 136, 520, 520),
         # an odd count of 64-column chunks (3, 3, 1) on short K, 4 CTAs
         # walking 15 to 68 tiles: a tile's first chunk reuses the staging
         # buffer of the previous tile's last store (epilogue.reads_left;
         # p1_192_ts 520 x 776 x 136 showed the race, run 4)
         ("p1_192_ts", 520, 776, 136), ("p1_224_ts", 1040, 448, 136),
         ("pp_64x64_ts", 520, 136, 72),
         # the operands swapped, C^T stored (C N x M): M % 8 == 0 through the
         # transposed staging and C's TMA map, else value by value; odd N
         ("pp_64x128_ts_t", 136, 1032, 200), ("p1_128_ts_t", 264, 777, 136),
         ("pp_64x64_ts_t", 130, 264, 72), ("pp_128x128_ts_t", 520, 264, 1032),
         ("p1_128_ts_t_aMN_bK", 264, 520, 136), ("pp_64x128_ts_t_aK_bMN", 200, 1032, 72)]
#: split-K's reduction, checked bit for bit: (slices, M, N), M N not a multiple of 4
REDUCE_EXACT = [(2, 37, 51), (4, 64, 64), (3, 130, 777)]


def build(out_dir: str, names=None) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name, cfg in CONFIGS.items():
        if names and name not in names:
            continue
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            compiled = gemm.build(cfg=cfg).compile()
        for w in compiled.warnings:
            print(f"{name}: checker warning: {w}")
        cubin = harness.write_kernel(out_dir, name, compiled.cubin, compiled.ptx)
        rows.append({"name": name, "cubin": cubin, "entry": cfg.name,
                     "bm": cfg.bm, "bn": cfg.bn, "consumers": cfg.consumers, "bk": gemm.BK, "stages": cfg.stages,
                     "cluster": cfg.cluster, "out": cfg.out, "group_m": cfg.group_m,
                     "barriers": cfg.barriers, "unroll": cfg.unroll,
                     "persistent": cfg.persistent, "epilogue": cfg.epilogue,
                     "b_box_rows": cfg.b_box_rows, "threads": gemm.THREADS,
                     "a_major": cfg.a_major, "b_major": cfg.b_major,
                     "smem_bytes": cfg.smem_bytes, "checker_warnings": len(compiled.warnings)})
        print(f"built {name} ({cfg.name}) in {time.perf_counter() - t0:.1f} s")
    # The MLIR-free parts run.py loads (the shapes' rules, the "auto"
    # schedule), next to it, so that it runs on another checkout's tree.
    for part in ("shapes.py", "schedule.py", "layouts.py"):
        shutil.copy(os.path.join(ROOT, "examples", "gemm_parts", part), out_dir)
    harness.write_manifest(out_dir, rows)
    # The exact manifest: the suite's format; dynamic shared memory patched in.
    cases = []
    for name, M, N, K in EXACT:
        if names and name not in names:
            continue
        cfg = CONFIGS[name]
        if cfg.epilogue != "tma" and cfg.split_k == 1:   # f32 C, compared bit for bit
            cfg = gemm.dataclasses.replace(cfg, out="f32")
        label = f"exact_{name}_{M}x{N}x{K}"
        # A persistent kernel on 4 "SMs": each CTA walks several tiles.
        cases.append((gemm.case(M, N, K, cfg, seed=M + N + K, name=label, sms=4),
                      cfg.smem_bytes))
    if not names or any(n.startswith("sk_") for n in names):
        cases += [(splitk.reduce_case(M, N, S, seed=M + N, name=f"exact_reduce_s{S}_{M}x{N}"), 0)
                  for S, M, N in REDUCE_EXACT]
    if cases:
        exact_dir = os.path.join(out_dir, "exact")
        written = manifest.write([c for c, _ in cases], exact_dir)
        for entry, (_, smem) in zip(written["kernels"], cases):
            entry["shared_mem"] = smem
            entry["timeout_s"] = 30
        with open(os.path.join(exact_dir, "manifest.json"), "w") as f:
            json.dump(written, f, indent=1)
    return {"kernels": rows}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--configs", default="")
    args = parser.parse_args()
    build(args.out_dir, [n for n in args.configs.split(",") if n])
