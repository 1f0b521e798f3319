"""Fill a cubin cache with the backward pass's kernels (attention.backward;
the dK/dV kernel with one and with two consumer warpgroups) and the
forward configurations ``config_for`` picks, and copy what bwd_run.py
needs on the GPU machine (no MLIR there): runtime.py, the MLIR-free parts
of examples/attention_parts, bwd_run.py and fa4_run.py (ours against
FlashAttention-4: every forward configuration is in the cache) and the
run.py, api_run.py they load.

    python -m bench.attention.bwd_build OUT_DIR
"""
from __future__ import annotations

import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from examples import attention  # the examples package (the repository root on the path)
from bench import harness
from examples.attention_parts import api, backward_api, schedule

MLIR_FREE = ("__init__.py", "api.py", "schedule.py", "shapes.py", "backward_api.py")


def main() -> None:
    out = os.path.abspath(sys.argv[1])
    fwd = api.Cache(os.path.join(out, "cache"), attention._compiler())
    bwd = api.Cache(os.path.join(out, "cache"), attention._compiler(attention.backward_kernel_for))
    jobs = [(fwd, {"head_dim": d, "causal": c, **f})
            for (d, c), rows in schedule.TABLE.items() for _, f in rows]
    jobs += [(bwd, backward_api.fields(kind, d, c, w)) for d in (64, 128) for c in (False, True)
             for kind in ("bwd_pre", "bwd", "bwd_dq") for w in (1, 2)
             if kind == "bwd" or (c is False and w == 1)]
    for cache, fields in jobs:
        t0 = time.perf_counter()
        _, launch = cache.entry(fields)
        print(f"{launch['entry']}: {time.perf_counter() - t0:.1f} s", flush=True)
    parts = os.path.join(out, "attention_parts")
    os.makedirs(parts, exist_ok=True)
    for name in MLIR_FREE:
        shutil.copy(os.path.join(ROOT, "examples", "attention_parts", name), parts)
    harness.copy_runtime(out)
    for name in ("bwd_run.py", "fa4_run.py", "run.py", "api_run.py"):
        shutil.copy(os.path.join(HERE, name), out)
    print(f"compiled {fwd.compiled + bwd.compiled} into {fwd.directory}")


if __name__ == "__main__":
    main()
