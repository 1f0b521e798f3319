"""Build the attention benchmark: compile each configuration of
examples/attention.py to a cubin and write ``manifest.json`` (bench/harness.py's
one format; what run.py needs
to launch them), and copy run.py, runtime.py and shapes.py next to them, so
that the directory runs on its own on the GPU machine (no MLIR there),
with schedule.py (attention.config_for's table) and triton_fa.py (the
Triton tutorial's kernel, run.py --triton).

    python -m bench.attention.build OUT_DIR [--configs NAME,...] [--debug-waits NS]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

from examples import attention
from bench import harness

C = attention.Config
CONFIGS = {
    # FA3's intra-warpgroup overlap (the default of attention.Config), two
    # consumer warpgroups of 64 rows, 128-row kv blocks, 2 stages per ring:
    "d128": C(head_dim=128),
    "d128_pp": C(head_dim=128, pingpong=True),
    "d128_n176": C(head_dim=128, block_n=176),
    "d128_n176_pp": C(head_dim=128, block_n=176, pingpong=True),
    "d128_causal": C(head_dim=128, causal=True),
    "d128_causal_pp": C(head_dim=128, causal=True, pingpong=True),
    "d64": C(head_dim=64),
    "d64_pp": C(head_dim=64, pingpong=True),
    "d64_causal_pp": C(head_dim=64, causal=True, pingpong=True),
    # three stages per ring:
    "d128_s3_pp": C(head_dim=128, stages=3, pingpong=True),
    "d128_causal_s3_pp": C(head_dim=128, causal=True, stages=3, pingpong=True),
    # three consumer warpgroups (192 query rows) at head dim 64, the turn
    # going round the three with pingpong:
    "d64_m192": C(head_dim=64, block_m=192),
    "d64_m192_causal": C(head_dim=64, block_m=192, causal=True),
    "d64_m192_pp": C(head_dim=64, block_m=192, pingpong=True),
    "d64_m192_causal_pp": C(head_dim=64, block_m=192, causal=True, pingpong=True),
    "d64_m192_s3_pp": C(head_dim=64, block_m=192, stages=3, pingpong=True),
    "d64_m192_causal_s3_pp": C(head_dim=64, block_m=192, causal=True, stages=3, pingpong=True),
    # the O epilogue through the TMA store:
    "d128_pp_ts": C(head_dim=128, pingpong=True, epilogue="tma"),
    "d128_causal_pp_ts": C(head_dim=128, causal=True, pingpong=True, epilogue="tma"),
    "d64_m192_pp_ts": C(head_dim=64, block_m=192, pingpong=True, epilogue="tma"),
    "d64_m192_causal_pp_ts": C(head_dim=64, block_m=192, causal=True, pingpong=True,
                               epilogue="tma"),
    # persistent (one CTA per SM walks the tiles; Q through a ring of two):
    "d64_pp_ts_p": C(head_dim=64, pingpong=True, epilogue="tma", persistent=True),
    "d64_causal_pp_ts_p": C(head_dim=64, causal=True, pingpong=True, epilogue="tma",
                            persistent=True),
    "d64_m192_pp_ts_p": C(head_dim=64, block_m=192, pingpong=True, epilogue="tma",
                          persistent=True),
    "d64_m192_causal_pp_ts_p": C(head_dim=64, block_m=192, causal=True, pingpong=True,
                                 epilogue="tma", persistent=True),
    "d64_m192_causal_pp_p": C(head_dim=64, block_m=192, causal=True, pingpong=True,
                              persistent=True),
    "d128_pp_ts_p": C(head_dim=128, pingpong=True, epilogue="tma", persistent=True),
    "d128_causal_pp_ts_p": C(head_dim=128, causal=True, pingpong=True, epilogue="tma",
                             persistent=True),
    # head dim 256: FA3's 128 x 80 tile, 2 stages (Q 64 KiB, K and V 2 x 40 KiB)
    "d256_pp": C(head_dim=256, block_n=80, pingpong=True),
    "d256_causal_pp": C(head_dim=256, block_n=80, causal=True, pingpong=True),
    "d256_pp_ts": C(head_dim=256, block_n=80, pingpong=True, epilogue="tma"),
    "d256_causal_pp_ts": C(head_dim=256, block_n=80, causal=True, pingpong=True,
                           epilogue="tma"),
    # the serial schedule (no overlap), for the comparison:
    "d128_serial": C(head_dim=128, overlap=False),
    "d128_causal_serial": C(head_dim=128, causal=True, overlap=False),
}

# Exact checks (attention.exact_data: one-hot attention, O and lse bit for
# bit): seq off the tile (a masked tail), several kv blocks, causal tiles.
EXACT = [("d128", 2, 2, 300), ("d128_causal", 1, 2, 300), ("d128_pp", 1, 2, 300),
         ("d128_causal_pp", 2, 1, 257), ("d128_n176", 1, 2, 400), ("d128_n176_pp", 1, 1, 500),
         ("d64", 1, 3, 200), ("d64_pp", 1, 2, 130), ("d64_causal_pp", 2, 1, 257),
         ("d64_m192", 1, 2, 300), ("d64_m192_causal", 1, 2, 400),
         ("d128_serial", 1, 2, 300), ("d128_causal_serial", 2, 1, 257), ("d128", 1, 1, 1),
         ("d128_causal_pp", 1, 1, 129), ("d128_s3_pp", 1, 2, 700),
         ("d128_causal_s3_pp", 2, 1, 700), ("d64_m192_pp", 1, 2, 500),
         ("d64_m192_causal_pp", 2, 1, 450), ("d64_m192_s3_pp", 1, 1, 1000),
         ("d64_m192_causal_s3_pp", 1, 2, 1000), ("d128_pp_ts", 2, 2, 300),
         ("d128_causal_pp_ts", 2, 1, 257), ("d64_m192_pp_ts", 1, 2, 500),
         ("d64_m192_causal_pp_ts", 2, 1, 450), ("d128_pp_ts", 1, 1, 1),
         # persistent, built for EXACT_SMS CTAs: each walks several tiles,
         # round the Q ring of two and the K/V rings across tiles
         ("d64_pp_ts_p", 2, 2, 500), ("d64_causal_pp_ts_p", 2, 3, 700),
         ("d64_m192_pp_ts_p", 1, 3, 1000), ("d64_m192_causal_pp_ts_p", 2, 2, 1000),
         ("d64_m192_causal_pp_p", 2, 1, 450), ("d128_pp_ts_p", 2, 2, 300),
         ("d128_causal_pp_ts_p", 2, 1, 700), ("d128_causal_pp_ts_p", 1, 1, 1),
         ("d256_pp", 2, 2, 300), ("d256_causal_pp", 2, 1, 257), ("d256_pp_ts", 1, 2, 500),
         ("d256_causal_pp_ts", 1, 1, 1)]
EXACT_SMS = 3


def build(out_dir: str, names=None, debug_waits: int = 0) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name, cfg in CONFIGS.items():
        if names and name not in names:
            continue
        t0 = time.perf_counter()
        compiled = attention.build(cfg=cfg).compile(debug_waits=debug_waits)
        for w in compiled.warnings:
            print(f"{name}: checker warning: {w}")
        cubin = harness.write_kernel(out_dir, name, compiled.cubin, compiled.ptx)
        rows.append(config_row(name, cfg, cubin, debug_waits, len(compiled.warnings)))
        print(f"built {name} ({cfg.name}) in {time.perf_counter() - t0:.1f} s")
    cases = []
    for name, b, h, s in EXACT:
        if names and name not in names:
            continue
        cfg = CONFIGS[name]
        cases.append((attention.case(b, h, s, cfg, seed=b * h + s,
                                     name=f"exact_{name}_{b}x{h}x{s}", sms=EXACT_SMS), cfg))
    if cases:
        from mbarrier_dialect import manifest
        exact_dir = os.path.join(out_dir, "exact")
        written = manifest.write([c for c, _ in cases], exact_dir)
        for entry, (_, cfg) in zip(written["kernels"], cases):
            entry["shared_mem"] = cfg.smem_bytes
            entry["timeout_s"] = 30
        with open(os.path.join(exact_dir, "manifest.json"), "w") as f:
            json.dump(written, f, indent=1)
    manifest = harness.write_manifest(out_dir, rows)
    copy_runner(out_dir)
    return manifest


def config_row(name: str, cfg, cubin: str, debug_waits: int, warnings: int) -> dict:
    """The manifest row run.py launches configuration `cfg` by."""
    return {"name": name, "cubin": cubin, "entry": cfg.name,
            "head_dim": cfg.head_dim, "causal": cfg.causal, "block_m": cfg.block_m,
            "block_n": cfg.block_n, "stages": cfg.stages, "pingpong": cfg.pingpong,
            "epilogue": cfg.epilogue, "persistent": cfg.persistent, "overlap": cfg.overlap,
            "threads": cfg.threads, "smem_bytes": cfg.smem_bytes,
            "debug_waits": debug_waits, "checker_warnings": warnings}


def copy_runner(out_dir: str) -> None:
    """run.py and what it loads by path, next to the cubins."""
    harness.copy_runtime(out_dir)
    for src in (os.path.join(HERE, "run.py"),
                os.path.join(ROOT, "examples", "attention_parts", "shapes.py"),
                os.path.join(ROOT, "examples", "attention_parts", "schedule.py"),
                os.path.join(HERE, "triton_fa.py")):
        shutil.copy(src, out_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    parser.add_argument("--configs", default="")
    parser.add_argument("--debug-waits", type=int, default=0)
    args = parser.parse_args()
    build(args.out_dir, [n for n in args.configs.split(",") if n], args.debug_waits)
