"""Which configuration of examples/attention.py to run for a problem: the
measured-fastest on the H200 (bench/results/attention/, BENCHMARKS.md
"Attention"), MLIR-free so that bench/attention/run.py can ask it on the
GPU machine. ``choose`` gives the fields of ``attention.Config``;
``attention.config_for(head_dim, seq, causal)`` builds the Config.

The table (bench/results/attention/6_final, the last run; 16 heads, 16k
tokens, TFLOP/s of the chosen vs the best other configuration there):
head dim 64 non-causal: persistent with two consumer warpgroups (128
rows) at seq 1k (429 vs 386), three warpgroups (192 rows) not persistent
from 2k (473-534 vs 452-468); head dim 64 causal: persistent, 128 rows
below 8k (331, 397, 440 vs 285, 392, 439), persistent 192 rows with the
direct store at 8k (473 vs 465), 192 rows not persistent from 16k (506
vs 483); head dim 128 non-causal: persistent below 4k (641, 668 vs 576,
637), the TMA store at 4k (700 vs 677), the direct store from 8k (706,
713 vs 692, 653); head dim 128 causal: not persistent (431-726 vs
388-614). Every choice takes ping-pong. Neighbouring seqs were within a
few percent of each other in runs 5 and 6 (the run-to-run noise), so a
boundary is where one run measured the switch, not a sharp threshold.
Head dim 256 (run api_d256, BENCHMARKS.md "Head dim 256"): FA3's 128 x 80
tile with ping-pong, the direct store (the only configuration timed).
"""
from __future__ import annotations

_PP = dict(pingpong=True, epilogue="tma")
# (head_dim, causal) -> [(seq below which, fields), ...], the last for the rest.
TABLE = {
    (128, False): [(4096, dict(_PP, persistent=True)), (8192, _PP),
                   (None, dict(pingpong=True))],
    (128, True): [(None, _PP)],
    (64, False): [(2048, dict(_PP, persistent=True)), (None, dict(_PP, block_m=192))],
    (64, True): [(8192, dict(_PP, persistent=True)),
                 (16384, dict(pingpong=True, block_m=192, persistent=True)),
                 (None, dict(_PP, block_m=192))],
    # head dim 256: FA3's hopper tile (tile_size.h: 128 x 80, 2 stages, two
    # consumer warpgroups); the persistent Q ring does not fit 227 KiB.
    (256, False): [(None, dict(pingpong=True, block_n=80))],
    (256, True): [(None, dict(pingpong=True, block_n=80))],
}


def choose(head_dim: int, seq: int, causal: bool) -> dict:
    """The Config fields (head_dim and causal included) for the problem."""
    if not isinstance(causal, bool):
        raise TypeError(f"causal is a bool, got {type(causal).__name__}")
    if (head_dim, causal) not in TABLE:
        raise ValueError(f"head_dim is 64, 128 or 256, got {head_dim!r}")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise ValueError(f"seq must be a positive int, got {seq!r}")
    for below, fields in TABLE[(head_dim, causal)]:
        if below is None or seq < below:
            return {"head_dim": head_dim, "causal": causal, **fields}
    raise AssertionError("every TABLE row ends with a catch-all")  # pragma: no cover


def matches(fields: dict, cfg: dict) -> bool:
    """Whether a built configuration (an entry of build.py's manifest.json, or a
    Config's fields) is the chosen one: the chosen fields equal, the others
    at Config's defaults."""
    defaults = {"block_m": 128, "block_n": 128, "stages": 2, "pingpong": False,
                "epilogue": "direct", "persistent": False, "overlap": True}
    want = {**defaults, **fields}
    return all(cfg.get(key, defaults.get(key)) == value for key, value in want.items())
