"""The BENCHMARKS.md table of an attention run (run.py --json): per row the
configuration ``attention.config_for`` picks (attention_parts/schedule.py,
as it is now) and its TFLOP/s in that run, the best of ours, each torch
backend, Triton's tutorial kernel, and the pick over the best torch backend.

    python -m bench.attention.table [bench/results/attention/6_final/attn.json]

The configurations' fields come from the run's ``configs`` (run.py writes
them) or from ``configs.json`` beside it (a copy of build.py's manifest.json).
"""
from __future__ import annotations

import argparse
import json
import os

from examples.attention_parts import schedule

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT = os.path.join(HERE, "..", "results", "attention", "6_final", "attn.json")
TORCH = ("flash", "cudnn", "efficient")
OTHERS = TORCH + ("triton",)


def load(path: str) -> tuple[dict, list]:
    with open(path) as f:
        data = json.load(f)
    cfgs = data.get("configs")
    if cfgs is None:
        with open(os.path.join(os.path.dirname(path), "configs.json")) as f:
            cfgs = json.load(f)["kernels"]
    return data, cfgs


def chosen(row: dict, cfgs: list) -> str | None:
    """The configuration of the run that config_for picks for `row`."""
    pick = schedule.choose(row["head_dim"], row["seq"], row["causal"])
    names = [c["name"] for c in cfgs if schedule.matches(pick, c) and c["name"] in row["tflops"]]
    return names[0] if names else None


def table(data: dict, cfgs: list) -> str:
    out = ["| head dim | causal | seq | batch | ours: config_for | TFLOP/s | best of ours | "
           "flash (FA2) | cuDNN | efficient | Triton tutorial | config_for / best torch |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = sorted(data["bench"], key=lambda r: (-r["head_dim"], r["causal"], r["seq"]))
    for r in rows:
        tf = r["tflops"]
        name = chosen(r, cfgs)
        mine = tf.get(name, float("nan")) if name else float("nan")
        best = max(v for n, v in tf.items() if n not in OTHERS)
        top = max(tf.get(n, 0.0) for n in TORCH) or float("nan")
        out.append(f"| {r['head_dim']} | {'yes' if r['causal'] else 'no'} | {r['seq']} | "
                   f"{r['batch']} | `{name}` | {mine:.0f} | {best:.0f} | " +
                   " | ".join(f"{tf[n]:.0f}" if n in tf else "-" for n in OTHERS) +
                   f" | {mine / top:.2f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="?", default=DEFAULT)
    args = ap.parse_args()
    print(table(*load(args.json)))


if __name__ == "__main__":
    main()
