"""Split-K for examples/gemm.py (``Config(split_k=S)``): the K loop of each
output tile cut into S slices, each slice a work unit of its own, so that a
shape with fewer tiles than SMs still fills the machine.

* **Work units**: unit ``u`` is slice ``u % S`` of tile ``u // S`` (the
  raster's tile order; the S slices of a tile on neighbouring CTAs). Slice
  s covers K blocks ``[kt s / S, kt (s + 1) / S)`` of the ``kt`` blocks of
  64: the slices differ by at most one block. The kernel is persistent
  (one CTA per SM walking the units, the pipe's states carried across
  them) with the cooperative consumers, so a slice of zero blocks (K below
  S blocks) is a loop of no trips whose accumulator, zeros, is stored.
* **Partials**: each unit stores its f32 accumulator (the direct epilogue)
  into slice s of a workspace ``ws``: S row-major M x N f32 matrices,
  ``shapes.slice_elements(M, N)`` apart (M N rounded up to 8, so every slice is
  16-byte aligned). Every element of every slice is written by exactly one
  unit.
* **The reduction**: a second kernel (``build_reduce``), launched after the
  GEMM on the same stream, sums the S slices in slice order (f32, so the
  result does not depend on which CTA ran which slice) and writes bf16 C.
  Ordering needs no flag: the two are kernels of one stream, the second
  starts after the first completed and its writes are visible (a kernel
  boundary), in a CUDA graph as in an eager launch.
"""
from __future__ import annotations

import dataclasses

from mlir import ir
from mlir.dialects import arith, llvm

import numpy as np

from mbarrier_dialect import lang, manifest
from mbarrier_dialect.lang import Kernel, if_else, if_then

from .shapes import (MAX_SPLIT, REDUCE_THREADS, REDUCE_VEC, reduce_grid, reduce_name,
                     slice_elements)


def check_split(cfg) -> None:
    """Config's rules for split_k (a ValueError / TypeError)."""
    s = cfg.split_k
    if isinstance(s, bool) or not isinstance(s, int):
        raise TypeError(f"split_k is an int (a build-time choice), got {type(s).__name__}")
    if not 1 <= s <= MAX_SPLIT:
        raise ValueError(f"split_k is 1 to {MAX_SPLIT}, got {s}")
    if s == 1:
        return
    if not cfg.persistent or cfg.consumers != "cooperative" or cfg.epilogue != "direct" \
            or cfg.lag or cfg.unroll != 1 or cfg.barriers != "pipe":
        raise ValueError("split_k > 1 takes persistent=True, consumers='cooperative', "
                         "epilogue='direct' (f32 partials), unroll=1 and lag=False")
    if cfg.cluster != 1:
        # a cluster's CTAs share the B tile of neighbouring M tiles; the
        # units of neighbouring CTAs are slices of one tile (other K ranges)
        raise ValueError("split_k > 1 takes cluster=1 (the 2x1 cluster multicasts one K "
                         "range of B to both CTAs)")
    if cfg.out != "bf16":
        raise ValueError("split_k > 1 stores f32 partials and its reduction writes bf16 C: "
                         "out='bf16'")


def units(cfg, n_tiles):
    """Work units of `n_tiles` output tiles (a lang value)."""
    return n_tiles * cfg.split_k if cfg.split_k > 1 else n_tiles


def unit(cfg, vb, raster, k_tiles):
    """(tile_m, tile_n, k_first, k_count, split) of work unit `vb`:
    without split-K its tile, every K block (k_first and split None)."""
    S = cfg.split_k
    if S == 1:
        tile_m, tile_n = raster(vb)
        return tile_m, tile_n, None, k_tiles, None
    split = vb % S
    tile_m, tile_n = raster(vb // S)
    first = k_tiles * split // S
    return tile_m, tile_n, first, k_tiles * (split + 1) // S - first, split


def partial_config(cfg):
    """The configuration the partials are stored with: f32 output."""
    return dataclasses.replace(cfg, out="f32", split_k=1, persistent=True)


def partial_ptr(k, split, Mp, Np) -> ir.Value:
    """The first element of slice `split` of the workspace (param ``c``)."""
    total = Mp.to("i64") * Np.to("i64")
    stride = (total + 7) // 8 * 8
    return k.element_ptr(k.param("c"), split.to("i64") * stride, "f32")


def build_reduce(split_k: int, grid: int = 1, name: str | None = None) -> Kernel:
    """``reduce(ws, c, M, N)``: C[i] = bf16(ws[0][i] + ... + ws[S-1][i])
    over the M N elements (row-major), REDUCE_VEC per thread: one 16-byte
    load per slice and one 8-byte store where all four are inside C, else
    one element at a time (the last, partial group). `grid`: the CTAs it
    declares (a launch passes shapes.reduce_grid(M, N))."""
    if isinstance(split_k, bool) or not isinstance(split_k, int) or \
            not 2 <= split_k <= MAX_SPLIT:
        raise ValueError(f"the reduction sums 2 to {MAX_SPLIT} slices, got {split_k!r}")
    f32, bf16 = ir.F32Type.get, ir.BF16Type.get
    with Kernel(name or reduce_name(split_k), block=REDUCE_THREADS, grid=grid, chip="sm_90a",
                params=[("ws", "ptr"), ("c", "ptr"), ("M", "i32"), ("N", "i32")]) as k:
        total = k.param("M").to("i64") * k.param("N").to("i64")
        stride = (total + 7) // 8 * 8
        first = (k.block_rank().to("i64") * REDUCE_THREADS + k.thread_rank().to("i64")) \
            * REDUCE_VEC
        vec_f32 = ir.VectorType.get([REDUCE_VEC], f32())
        vec_bf16 = ir.VectorType.get([REDUCE_VEC], bf16())
        whole = if_else(first + REDUCE_VEC <= total)
        with whole.then():
            acc = None
            for s in range(split_k):
                v = llvm.LoadOp(vec_f32, k.element_ptr(k.param("ws"), first + s * stride, "f32"),
                                alignment=16).result
                acc = v if acc is None else arith.AddFOp(acc, v).result
            llvm.StoreOp(arith.TruncFOp(vec_bf16, acc).result,
                         k.element_ptr(k.param("c"), first, "bf16"), alignment=8)
        with whole.otherwise():
            for j in range(REDUCE_VEC):
                with if_then(first + j < total):
                    acc = None
                    for s in range(split_k):
                        v = lang.wrap(llvm.LoadOp(
                            f32(), k.element_ptr(k.param("ws"), first + j + s * stride, "f32"),
                            alignment=4).result)
                        acc = v if acc is None else acc + v
                    llvm.StoreOp(arith.TruncFOp(bf16(), acc).result,
                                 k.element_ptr(k.param("c"), first + j, "bf16"), alignment=2)
    return k


def partials(a: np.ndarray, b: np.ndarray, split_k: int, gap: float = -1.0) -> np.ndarray:
    """The workspace a split-K GEMM of ``a @ b.T`` (M x K, N x K, f32
    values) writes: slice s is the product over slice s's K blocks, the
    slices ``slice_elements(M, N)`` apart (the gaps never written: `gap`,
    the manifest buffer's fill, expected there)."""
    (M, K), N = a.shape, b.shape[0]
    kt = -(-K // 64)
    out = np.full(split_k * slice_elements(M, N), gap, np.float32)
    for s in range(split_k):
        k0, k1 = kt * s // split_k * 64, kt * (s + 1) // split_k * 64
        base = s * slice_elements(M, N)
        out[base:base + M * N] = (a[:, k0:k1] @ b[:, k0:k1].T).ravel()
    return out


def reduce_case(M: int, N: int, split_k: int, seed: int | None = None,
                name: str | None = None) -> manifest.Case:
    """The reduction on integer-valued f32 slices (every sum exact, and a
    bf16 after rounding), C checked bit for bit; M N not a multiple of
    REDUCE_VEC, so the last thread takes the element-wise path."""
    rng = np.random.default_rng(seed)
    ws = rng.integers(-40, 41, split_k * slice_elements(M, N)).astype(np.float32)
    total = sum(ws[s * slice_elements(M, N):][:M * N] for s in range(split_k))
    k = build_reduce(split_k, grid=reduce_grid(M, N), name=name)
    return manifest.Case(
        k, [manifest.buffer("ws", ws),
            manifest.buffer("c", fill=0xFFFF, shape=[M, N], dtype="uint16"),
            manifest.scalar(M), manifest.scalar(N)],
        {"c": manifest.to_bf16_bits(total.reshape(M, N))}, inputs={"ws": ws})
