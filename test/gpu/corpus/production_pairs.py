#!/usr/bin/env python3
"""Three buggy twins of the production corpus (test/Analysis/SyncCheck/
production/) that fail every launch on the GPU, and their correct twins
passing with their data checked:

- deepep_tma_ring.bug-expect-tx-bytes: a hang, located by debug waits at
  the stage's full-barrier wait;
- cluster_handshake.bug-wait-cycle: a hang (a wait-for cycle across the two
  CTAs of the cluster), located by debug waits at the two waits;
- dsmem_exchange.bug-rank-leaves-cluster: a fault (CTA 3 stores to CTA rank
  4 of a 4-CTA cluster).

Build here (MLIR needed; every kernel with the checker off and debug waits
on, bound BOUND_NS), then run on the GPU machine (numpy, cuda-bindings and
runtime.py only):

    python test/gpu/corpus/production_pairs.py build DIR
    python3 test/gpu/suite/run_pairs.py DIR                  # on the GPU

DIR gets hangs/, twins/ (run_debug_waits.py's format) and faults/
(run_manifest.py's). run_pairs.py prints one table: a hang is OK when its launch
failed within the bound + 1 s with a line naming one of its stuck waits, a
fault when its launch failed with a CUDA error, a twin when it passed.
Exit status 0 when every row is OK.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "Analysis" / "SyncCheck" / "production"
BOUND_NS = 200_000_000

N_CHUNKS, ROUNDS = 8, 16
ring_words = 2 * N_CHUNKS * 256
ring = {"grid": [1, 1, 1], "block": [64, 1, 1],
        "args": [{"kind": "buffer", "name": "src", "dtype": "int32", "shape": [ring_words],
                  "init": {"arange": True}},
                 {"kind": "buffer", "name": "dst", "dtype": "int32", "shape": [ring_words],
                  "init": {"fill": -1}},
                 {"kind": "scalar", "dtype": "int32", "value": N_CHUNKS}],
        "expect": {"dst": {"values": list(range(ring_words))}}}
handshake = {"grid": [2, 1, 1], "block": [64, 1, 1], "cluster": [2, 1, 1],
             "args": [{"kind": "buffer", "name": "out", "dtype": "int32", "shape": [128],
                       "init": {"fill": -1}},
                      {"kind": "scalar", "dtype": "int32", "value": ROUNDS}],
             "expect": {"out": {"fill": ROUNDS}}}
exchange = {"grid": [4, 1, 1], "block": [128, 1, 1], "cluster": [4, 1, 1],
            "args": [{"kind": "buffer", "name": "out", "dtype": "int32", "shape": [512],
                      "init": {"fill": -1}}],
            "expect": {"out": {"values": [((r + 3) % 4) * 1000 + t
                                          for r in range(4) for t in range(128)]}}}
# (kernel, launch, the twin, what the twin does)
PAIRS = [("deepep_tma_ring", ring, "expect-tx-bytes", "hangs"),
         ("cluster_handshake", handshake, "wait-cycle", "hangs"),
         ("dsmem_exchange", exchange, "rank-leaves-cluster", "faults")]


def _waits(path: Path) -> list[str]:
    """``file.mlir:LINE`` of every mbarrier.wait of `path`."""
    return [f"{path.name}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1)
            if re.match(r"\s*mbarrier\.wait ", line)]


def build(out: Path) -> None:
    from mbarrier_dialect.compiler import compile as compile_mlir

    parts = {"hangs": [], "twins": [], "faults": []}
    for name, launch, bug, part in PAIRS:
        for path, where in ((CORPUS / f"{name}.mlir", "twins"),
                            (CORPUS / f"{name}.bug-{bug}.mlir", part)):
            entry = path.stem.replace(".", "_").replace("-", "_")
            (out / where).mkdir(parents=True, exist_ok=True)
            kernel = compile_mlir(path, chip="sm_90a", check_sync=False, debug_waits=BOUND_NS)
            (out / where / f"{entry}.cubin").write_bytes(kernel.cubin)
            item = dict(launch, name=entry, cubin=f"{entry}.cubin", entry=name,
                        timeout_s=30, bound_ns=BOUND_NS)
            if where == "hangs":
                item["stuck_at"] = _waits(path)
            parts[where].append(item)
    for where, kernels in parts.items():
        (out / where / "manifest.json").write_text(json.dumps({"kernels": kernels}, indent=1))
        print(f"{out / where}: {', '.join(k['name'] for k in kernels)}")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "build":
        print("usage: production_pairs.py build DIR  (then test/gpu/suite/run_pairs.py DIR on the GPU)",
              file=sys.stderr)
        return 2
    build(Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
