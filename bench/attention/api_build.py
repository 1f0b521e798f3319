"""Fill a cubin cache of attention.forward (examples/attention_parts/api.py)
with every configuration ``config_for`` can pick, and copy what
api_run.py needs on the GPU machine (no MLIR there): runtime.py, the
MLIR-free parts (api, schedule, shapes) and api_run.py itself.

    python -m bench.attention.api_build OUT_DIR [HEAD_DIMS, e.g. 256]
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
from examples.attention_parts import api, schedule


def main() -> None:
    out = os.path.abspath(sys.argv[1])
    dims = {int(x) for x in sys.argv[2].split(",")} if len(sys.argv) > 2 else None
    cache = api.Cache(os.path.join(out, "cache"), attention._compiler())
    for (head_dim, causal), rows in schedule.TABLE.items():
        if dims is not None and head_dim not in dims:
            continue
        for _, fields in rows:
            t0 = time.perf_counter()
            _, launch = cache.entry({"head_dim": head_dim, "causal": causal, **fields})
            print(f"{launch['entry']}: {time.perf_counter() - t0:.1f} s", flush=True)
    parts = os.path.join(out, "attention_parts")
    os.makedirs(parts, exist_ok=True)
    for name in ("__init__.py", "api.py", "schedule.py", "shapes.py"):
        shutil.copy(os.path.join(ROOT, "examples", "attention_parts", name), parts)
    harness.copy_runtime(out)
    shutil.copy(os.path.join(HERE, "api_run.py"), out)
    shutil.copy(os.path.join(HERE, "run.py"), out)
    print(f"compiled {cache.compiled} into {cache.directory}")


if __name__ == "__main__":
    main()
