"""The per-shape schedule of examples/gemm.py, MLIR-free (bench/gemm/run.py
loads it on the GPU machine): ``config_for(M, N, K)`` names the built
configuration (bench/gemm/build.py's CONFIGS) that the "auto" schedule
launches for a shape.

Every candidate is persistent (one CTA per SM walking the tiles; at K = 1024
persistence was worth 10-14%, BENCHMARKS.md run 9) with the TMA-store
epilogue (run 10). What differs is the tile (and the consumers: cooperative
or ping-pong, which pays where K is small), and with it the wave
quantization: a persistent CTA walks ``ceil(tiles / sms)`` or one fewer
tiles, so the kernel lasts ``ceil(tiles / sms)`` tile times while the work
is ``tiles / sms``; and a tile that overhangs M or N computes zeros. The
chooser scores each candidate

    wave efficiency x fill x per-tile speed

(wave efficiency = tiles / (ceil(tiles / sms) * sms); fill = M N / (tiles
bm bn); per-tile speed = the candidate's measured TFLOP/s relative to
128x256 where waves and fill are ~1) and takes the best; ties go to the
earlier, larger tile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    name: str        # bench/gemm/build.py's CONFIGS key
    bm: int          # tile rows
    bn: int          # tile columns
    speed: float     # per-tile speed relative to p1_256_ts (measured, see below)
    min_k: int = 0   # only from this K on (0: any)
    max_k: int = 0   # only up to this K (0: any)
    split: int = 1   # split-K slices (gemm_parts/splitk.py): work units = tiles x split
    max_m: int = 0   # only up to this M (0: any)


#: The candidates, best-first at equal score. Per-tile speeds, measured
#: (interleaved, H200) at shapes where waves and fill are ~1 for both:
#: p1_128_ts 0.92-1.00 of p1_256_ts (runs 10, 12a, 12b; 4096^3 0.96-0.99),
#: p1_192_ts 0.96-0.99 (run 12a at 8192^3, 8192x8192x1024, 16384x16384x1024);
#: the ping-pong pp_128x128_ts (run 12b) 1.10 and 1.12 at K = 1024
#: (8192x8192x1024, 16384x16384x1024: each tile's epilogue is a large share
#: of its 16 K blocks, and the other warpgroup's MMAs hide it), 0.96-1.02
#: at K = 2048 to 11008. Its K <= 2048 entry comes first: graph-timed
#: (matmul_run1_check.json, git history at c1d3c04; 8192 x 8192 x K) it is
#: 0.99, 1.03, 1.03 of p1_256_ts at K = 1024, 1536, 2048. The ping-pong
#: pp_64x128_ts is 0.79-0.81 of p1_256_ts there, and the best at M = 64 and
#: 128 (x 8192 x 8192: 1.01 and 0.99 of cuBLAS, graph-timed) and 1024^3
#: (0.97), where its 64-row tiles give twice the CTAs; pp_64x64_ts (0.55
#: of p1_128_ts at 2048^3) is the best where N = 64 (8192 x 64 x 8192: 1.05
#: of cuBLAS, matmul_run2_check.json, in git history at efda335). (pp_64x256_ts and
#: the 2x1-cluster ping-pong configs were below these at every shape of
#: run 12b.)
CANDIDATES = (
    Candidate("pp_128x128_ts", 128, 128, 1.08, max_k=2048),
    # M <= 256 at long K (one 128 x 128 tile per CTA: 2 x 64 of them at
    # 256 x 8192 x 8192), the cooperative consumers above the ping-pong
    # ones in three runs, graph-timed (BENCHMARKS.md run 4): 1.01, 1.00,
    # 1.01 of cuBLAS against 1.00, 0.98, 0.98; not at 8192 x 256 x 8192,
    # where the ping-pong tiles lead (0.92 / 0.91, 0.97 / 0.96, 0.99 / 0.95).
    Candidate("p1_128_ts", 128, 128, 0.99, min_k=4096, max_m=256),
    Candidate("p1_256_ts", 128, 256, 1.00),
    Candidate("pp_128x128_ts", 128, 128, 0.98),
    Candidate("p1_192_ts", 128, 192, 0.98),
    Candidate("p1_128_ts", 128, 128, 0.97),
    Candidate("pp_64x128_ts", 64, 128, 0.80),
    Candidate("pp_64x64_ts", 64, 64, 0.55),
    # Tiles whose count fills the last wave where 64-multiples do not
    # (1536^3: 12 x 11 = 132 tiles of 128 x 144; 5120^3: 40 x 23 = 920 of
    # 128 x 224, 6.97 waves): the columns past the last 64 stored directly.
    # Graph-timed (matmul_run3_check.json, git history at 702fe14): 1536^3 0.95
    # of cuBLAS (p1_192_ts 0.85), 5120^3 1.02 (pp_128x128_ts 0.97).
    Candidate("p1_224_ts", 128, 224, 0.97),
    Candidate("p1_144_ts", 128, 144, 0.94),
    # Split-K (gemm_parts/splitk.py), scored with its partials' traffic.
    # Measured (run 3, the same file): it wins only where the tiles are few
    # and K long: 256 x 1024 x 8192 0.78 of cuBLAS (sk_128_k4; the best
    # unsplit pp_64x64_ts 0.60), 128 x 2048 x 4096 0.81 (0.74); it loses
    # wherever K <= 2048 or MN gives 64 tiles or more (8192 x 256 x 8192:
    # 0.83 against pp_128x128_ts's 0.92; M <= 256 at K 1024-2048: 0.45-0.71
    # against the 64-row ping-pong tiles' 0.78-1.01).
    *(Candidate(f"sk_{bn}_k{k}", 128, bn, sp, split=k)
      for bn, sp in ((256, 0.98), (128, 0.95)) for k in (2, 3, 4)),
)

#: The candidates' configurations: examples/gemm.py's Config keyword
#: arguments (bench/gemm/build.py builds them under these names; matmul,
#: gemm_parts/api.py, adds the operands' layout).
CONFIG_KWARGS = {
    "p1_256_ts": dict(bn=256, stages=4, cluster=1, persistent=True, epilogue="tma"),
    "p1_128_ts": dict(bn=128, stages=6, cluster=1, persistent=True, epilogue="tma"),
    "p1_192_ts": dict(bn=192, stages=4, cluster=1, persistent=True, epilogue="tma"),
    "pp_128x128_ts": dict(bm=128, bn=128, stages=6, cluster=1, persistent=True,
                          epilogue="tma", consumers="pingpong"),
    # 64-row tiles (one m64 wgmma per warpgroup and k16 step): more CTAs
    # where M or N is small (M <= 128, 1024^3).
    "pp_64x256_ts": dict(bm=64, bn=256, stages=4, cluster=1, persistent=True, epilogue="tma",
                         consumers="pingpong", group_m=32),
    "pp_64x128_ts": dict(bm=64, bn=128, stages=8, cluster=1, persistent=True, epilogue="tma",
                         consumers="pingpong", group_m=32),
    "pp_64x64_ts": dict(bm=64, bn=64, stages=8, cluster=1, persistent=True, epilogue="tma",
                        consumers="pingpong", group_m=32),
    "p1_224_ts": dict(bn=224, stages=4, cluster=1, persistent=True, epilogue="tma"),
    "p1_144_ts": dict(bn=144, stages=5, cluster=1, persistent=True, epilogue="tma"),
}
# Operands swapped (C^T = B A^T, stored transposed: Config.store_transposed):
# a small N becomes the kernel's small M. Measured (BENCHMARKS.md runs 3-4,
# graph-timed against cuBLAS), the same kernels are 2-6 % faster with M the
# small side than with N: 128 x 8192 x 8192 1.01, 1.01, 0.99 against
# 8192 x 128 x 8192 0.94, 0.94, 0.97 (pp_64x128_ts); 256 x 8192 x 8192
# (p1_128_ts) 1.01, 1.00, 1.01 against 8192 x 256 x 8192 (its best,
# pp_128x128_ts) 0.92, 0.97, 0.99.
TRANSPOSED = ("pp_64x64_ts", "pp_64x128_ts", "p1_128_ts", "pp_128x128_ts")
for _name in TRANSPOSED:
    CONFIG_KWARGS[_name + "_t"] = {**CONFIG_KWARGS[_name], "store_transposed": True}
#: config_for swaps the operands where N <= SWAP_MAX_N and M >= SWAP_MIN_M.
SWAP_MAX_N, SWAP_MIN_M = 256, 1024
# Split-K (gemm_parts/splitk.py): the cooperative persistent kernel, each
# tile's K loop in S work units, f32 partials and a second kernel's sum.
for _bn, _stages in ((256, 4), (128, 6)):
    for _split in (2, 3, 4):
        CONFIG_KWARGS[f"sk_{_bn}_k{_split}"] = dict(bn=_bn, stages=_stages, cluster=1,
                                                    persistent=True, epilogue="direct",
                                                    split_k=_split)


def tiles(M: int, N: int, bm: int, bn: int) -> int:
    return math.ceil(M / bm) * math.ceil(N / bn)


def wave_efficiency(n_tiles: int, sms: int) -> float:
    """The busy fraction of `sms` persistent CTAs walking `n_tiles` tiles."""
    return n_tiles / (math.ceil(n_tiles / sms) * sms)


#: split-K's cost model: the tensor cores' rate (FLOP/s, the H200's bf16
#: dense at the clock it holds), the bandwidth the partials move at (bytes/s)
#: and the launch of the reduction (s); the direct f32 epilogue of a work
#: unit costs about EPILOGUE_BLOCKS K blocks of its mainloop.
#: (PARTIAL_BYTES_PER_S: the partials of these shapes, a few MiB, stay in
#: L2; 6e12 and the speeds below pick the best of run 3 on all 18 shapes
#: of its variants, within its 1-2 % noise, and split no shape of the grid.)
PEAK_FLOPS = 800e12
PARTIAL_BYTES_PER_S = 6.0e12
REDUCE_LAUNCH_S = 2e-6
EPILOGUE_BLOCKS = 2.0


def score(c: Candidate, M: int, N: int, K: int, sms: int = 132) -> float:
    """The candidate's expected share of the peak rate on M x N x K."""
    n = tiles(M, N, c.bm, c.bn)
    fill = M * N / (n * c.bm * c.bn)
    base = wave_efficiency(n * c.split, sms) * fill * c.speed
    if c.split == 1:
        return base
    # A unit of kb / split K blocks and its direct epilogue; then the
    # reduction reads split f32 partials per element and writes bf16.
    kb = math.ceil(K / 64) / c.split
    base *= kb / (kb + EPILOGUE_BLOCKS)
    t_gemm = 2.0 * M * N * K / (PEAK_FLOPS * base)
    t_reduce = (2 * c.split * 4 + 2) * M * N / PARTIAL_BYTES_PER_S + REDUCE_LAUNCH_S
    return base * t_gemm / (t_gemm + t_reduce)


def config_for(M: int, N: int, K: int, sms: int = 132, available=None,
               b_major: str = "K", a_major: str = "K") -> str:
    """The name of the configuration the "auto" schedule runs M x N x K
    with on `sms` SMs: the best-scoring candidate (of those in `available`,
    if given; an N-major B takes tiles of whole 64-row chunks). A small N
    (N <= SWAP_MAX_N, M >= SWAP_MIN_M) swaps the operands: the best of the
    candidates with a transposed twin on N x M x K (A, the kernel's B now,
    M-major: whole 64-row chunks), its ``_t`` twin."""
    if N <= SWAP_MAX_N and M >= SWAP_MIN_M:
        twins = {n for n in TRANSPOSED if available is None or n + "_t" in available}
        if twins:
            return _best(N, M, K, sms, twins, a_major) + "_t"
    return _best(M, N, K, sms, available, b_major)


def _best(M, N, K, sms, available, b_major) -> str:
    best, best_score = None, -1.0
    for c in CANDIDATES:
        if available is not None and c.name not in available:
            continue
        if b_major == "MN" and c.bn % 64:
            continue
        if (c.min_k and K < c.min_k) or (c.max_k and K > c.max_k) or (c.max_m and M > c.max_m):
            continue
        s = score(c, M, N, K, sms)
        if s > best_score + 1e-9:
            best, best_score = c.name, s
    if best is None:
        raise ValueError(f"no schedule candidate is available for {M}x{N}x{K} "
                         f"(candidates: {[c.name for c in CANDIDATES]})")
    return best
