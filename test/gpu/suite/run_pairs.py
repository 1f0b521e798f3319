#!/usr/bin/env python3
"""Run what test/gpu/corpus/production_pairs.py built, on the GPU machine
(numpy, cuda-bindings and runtime.py only):

    python3 test/gpu/suite/run_pairs.py DIR

One table: a hang is OK when its launch failed within the bound + 1 s with a
line naming one of its stuck waits, a fault when its launch failed with a
CUDA error, a twin when it passed. Exit status 0 when every row is OK.
"""
from __future__ import annotations

import sys
from pathlib import Path

import run_debug_waits as rdw  # this script's own folder, first on sys.path
import run_manifest as rm


def run(out: Path) -> int:
    status = rm.probe_gpu(out / "twins", print)
    if status is not None:
        return status
    rows = []
    for part in ("hangs", "twins"):
        for kernel in rm.load_manifest(out / part):
            result = rdw.run_child(out, part, kernel)
            ok, what = rdw.judge(part, kernel, result)
            rows.append((kernel["name"], part, ok, what))
            for line in result.get("lines") or []:
                print(f"    {kernel['name']}: {line}")
    for kernel in rm.load_manifest(out / "faults"):
        result, _ = rm.run_child(out / "faults", kernel, 1)
        ok = result["result"] == "ERROR"
        rows.append((kernel["name"], "faults", ok, f"{result['result']}: {result['detail']}"))
    print()
    print("| kernel | part | verdict | what happened |")
    print("|---|---|---|---|")
    for name, part, ok, what in rows:
        print(f"| {name} | {part} | {'OK' if ok else 'BAD'} | {what} |")
    return 0 if rows and all(r[2] for r in rows) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: run_pairs.py DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(run(Path(sys.argv[1])))
