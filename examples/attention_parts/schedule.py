"""Which configuration of examples/attention.py to run for a problem: the
measured-fastest on the H200 (bench/attention/results/, BENCHMARKS.md
"Attention"), MLIR-free so that bench/attention/run.py can ask it on the
GPU machine. ``choose`` gives the fields of ``attention.Config``;
``attention.config_for(head_dim, seq, causal)`` builds the Config.

The table (bench/attention/results/5_persistent, 16 heads, 16k tokens):
head dim 64: persistent with two consumer warpgroups (128 rows) below seq
2048 (non-causal; 427 vs 386 TFLOP/s at 1k) and 4096 (causal; 312 vs 246
at 1k, 362 vs 351 at 2k), else three warpgroups (192 rows), not
persistent (502-535 vs 475-484 from 4k); head dim 128: persistent below
seq 8192 non-causal (645-706 vs 595-689), the direct store from 8192 (707
and 716 vs 698 and 659), and causal not persistent (433-722 vs 384-599).
Every choice takes ping-pong; the TMA store where not said otherwise.
"""
from __future__ import annotations

_PP = dict(pingpong=True, epilogue="tma")
# (head_dim, causal) -> [(seq below which, fields), ...], the last for the rest.
TABLE = {
    (128, False): [(8192, dict(_PP, persistent=True)), (None, dict(pingpong=True))],
    (128, True): [(None, _PP)],
    (64, False): [(2048, dict(_PP, persistent=True)), (None, dict(_PP, block_m=192))],
    (64, True): [(4096, dict(_PP, persistent=True)), (None, dict(_PP, block_m=192))],
}


def choose(head_dim: int, seq: int, causal: bool) -> dict:
    """The Config fields (head_dim and causal included) for the problem."""
    if not isinstance(causal, bool):
        raise TypeError(f"causal is a bool, got {type(causal).__name__}")
    if (head_dim, causal) not in TABLE:
        raise ValueError(f"head_dim is 64 or 128, got {head_dim!r}")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise ValueError(f"seq must be a positive int, got {seq!r}")
    for below, fields in TABLE[(head_dim, causal)]:
        if below is None or seq < below:
            return {"head_dim": head_dim, "causal": causal, **fields}
    raise AssertionError("every TABLE row ends with a catch-all")  # pragma: no cover


def matches(fields: dict, cfg: dict) -> bool:
    """Whether a built configuration (build.py's attn.json row, or a
    Config's fields) is the chosen one: the chosen fields equal, the others
    at Config's defaults."""
    defaults = {"block_m": 128, "block_n": 128, "stages": 2, "pingpong": False,
                "epilogue": "direct", "persistent": False, "overlap": True}
    want = {**defaults, **fields}
    return all(cfg.get(key, defaults.get(key)) == value for key, value in want.items())
