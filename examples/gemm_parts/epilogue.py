"""The epilogue of examples/gemm.py: one consumer warpgroup's 64 x bn
accumulator (``wgmma`` m64nBN fragment: value j of thread t is row
16*(t/32) + t%32/4 + 8*(j/2%2), column 8*(j/4) + 2*(t%4) + j%2) to C,
row-major M x N, either straight from registers (``store_tile``) or through
shared staging buffers and the TMA store (``store_tile_tma``)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, vector

from mbarrier_dialect import lang
from mbarrier_dialect.lang import byte_offset, if_else, if_then

#: C's TMA box: 64 rows x 64 bf16 columns (128-byte rows, 128-byte swizzle).
STORE_BOX = (64, 64)
#: staging buffers per consumer warpgroup (each the source of one store).
STORE_DEPTH = 2
STORE_BUFFER_BYTES = STORE_BOX[0] * STORE_BOX[1] * 2


def check_store(cfg) -> None:
    """Config's rules for ``store_transposed`` (a TypeError / ValueError)."""
    if not isinstance(cfg.store_transposed, bool):
        raise TypeError(f"store_transposed is a bool (a build-time choice), got "
                        f"{type(cfg.store_transposed).__name__}")
    if cfg.store_transposed and cfg.split_k > 1:
        raise ValueError("store_transposed takes split_k=1 (the partials and their "
                         "reduction are row-major M x N)")


def store_tile(k: Kernel, acc: ir.Value, cfg: Config, row0, col0, wtid, Mp, Np,
               c: ir.Value | None = None, first_col: int = 0) -> None:
    """Write one warpgroup's 64 x bn accumulator, its columns from
    `first_col` (a multiple of 8) on, to C (row-major, N columns; `c` its
    first element, default the kernel's param ``c``):
    value j of thread t is row 16*(t/32) + t%32/4 + 8*(j/2%2), column
    8*(j/4) + 2*(t%4) + j%2. With N even each pair of columns is one 4- or
    8-byte store (aligned: the row start r * N is even); with N odd a row
    may start at an odd element, so each value is stored on its own."""
    if cfg.store_transposed:
        _store_tile_transposed(k, acc, cfg, row0, col0, wtid, Mp, Np, c, first_col)
        return
    even = if_else(Np % 2 == 0)
    with even.then():
        _store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np, c, first_col, paired=True)
    with even.otherwise():
        _store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np, c, first_col, paired=False)


def _fragment(k, cfg, row0, col0, wtid, c_ptr):
    """(C's element type, its size, the thread's first row and column of
    the fragment, C's first element) of a direct store."""
    out_ty = ir.Type.parse("bf16" if cfg.out == "bf16" else "f32")
    warp, lane = wtid // 32, wtid % 32
    return (out_ty, 2 if cfg.out == "bf16" else 4, row0 + warp * 16 + lane // 4,
            col0 + (lane % 4) * 2, k.param("c") if c_ptr is None else c_ptr)


def _store_tile(k: Kernel, acc: ir.Value, cfg: Config, row0, col0, wtid, Mp, Np, c_ptr,
                first_col: int, *, paired: bool) -> None:
    f32 = ir.F32Type.get()
    out_ty, size, r_base, c_base, c_ptr = _fragment(k, cfg, row0, col0, wtid, c_ptr)
    pair = ir.VectorType.get([2], out_ty)
    pair_f32 = ir.VectorType.get([2], f32)
    for half in range(2):
        r = r_base + 8 * half
        row_ok = r < Mp
        row_ptr = k.element_ptr(c_ptr, r.to("i64") * Np.to("i64"), out_ty)
        for j8 in range(first_col // 8, cfg.bn // 8):
            c = c_base + 8 * j8
            vals = [llvm.ExtractValueOp(f32, acc, [4 * j8 + 2 * half + e]).result for e in (0, 1)]
            if paired:
                v = vector.from_elements(pair_f32, vals)
                if cfg.out == "bf16":
                    v = arith.TruncFOp(pair, v).result
                with if_then(row_ok & (c < Np)):
                    llvm.StoreOp(v, k.element_ptr(row_ptr, c, out_ty), alignment=2 * size)
                continue
            for e, val in enumerate(vals):
                if cfg.out == "bf16":
                    val = arith.TruncFOp(out_ty, val).result
                with if_then(row_ok & (c + e < Np)):
                    llvm.StoreOp(val, k.element_ptr(row_ptr, c + e, out_ty), alignment=size)


def reads_left(j: int, chunks: int, depth: int = STORE_DEPTH) -> int:
    """The TMA stores (bulk groups) that may still be reading shared memory
    when chunk `j` of a tile of `chunks` 64-column chunks is written into
    staging buffer ``j % depth``: those issued since that buffer's last
    store. Within a tile that is chunk j - depth, so depth - 1 may stay in
    flight; the first chunks of a tile reuse the buffers of the previous
    tile's last chunks: with an odd count (128 x 192, 128 x 224, 64 x 64)
    chunk 0's buffer is the one the previous tile's last store reads, so
    none may."""
    if j >= depth:
        return depth - 1
    last = chunks - 1 - (chunks - 1 - j) % depth   # the previous tile's last chunk in it
    return min(depth - 1, chunks - 1 - last + j)


def _store_tile_transposed(k: Kernel, acc: ir.Value, cfg: Config, row0, col0, wtid, Mp, Np,
                           c_ptr, first_col: int) -> None:
    """``store_tile`` of a ``store_transposed`` kernel: value (r, c) of the
    M x N product to element c * M + r of C (row-major N x M), each value
    on its own (the two of a pair are in different rows of C)."""
    f32 = ir.F32Type.get()
    out_ty, size, r_base, c_base, c_ptr = _fragment(k, cfg, row0, col0, wtid, c_ptr)
    for half in range(2):
        r = r_base + 8 * half
        row_ok = r < Mp
        for j8 in range(first_col // 8, cfg.bn // 8):
            for e in (0, 1):
                c = c_base + 8 * j8 + e
                val = llvm.ExtractValueOp(f32, acc, [4 * j8 + 2 * half + e]).result
                if cfg.out == "bf16":
                    val = arith.TruncFOp(out_ty, val).result
                with if_then(row_ok & (c < Np)):
                    at = c.to("i64") * Mp.to("i64") + r.to("i64")
                    llvm.StoreOp(val, k.element_ptr(c_ptr, at, out_ty), alignment=size)


def _staging_offset(rr, jj, swz, lane, transposed: bool, e: int = 0):
    """Byte offset in a 128-byte swizzled 64 x 64 bf16 staging box (16-byte
    chunk q of box row b at chunk ``q ^ (b % 8)``) of the value pair j8 = 8 j
    + jj of accumulator row `rr` (``swz`` = rr % 8, the lane's row in its
    8-row block); `transposed`: of value `e` of the pair alone, at box row
    = its column, box column = `rr` (C^T's box)."""
    if not transposed:
        return rr * 128 + ((swz ^ jj) * 16) + (lane % 4) * 4
    col = jj * 8 + (lane % 4) * 2 + e              # the box row (C's row)
    return col * 128 + (((rr // 8) ^ (col % 8)) * 16) + (rr % 8) * 2


def store_tile_tma(acc: ir.Value, bn: int, staging: ir.Value, tmap_c: ir.Value, row0, col0,
                   wtid, meet, transposed: bool = False) -> None:
    """Store one warpgroup's 64 x bn bf16 tile through shared memory: per
    64-column chunk j, the warpgroup's thread 0 waits until the last store
    from the staging buffer of chunk j was read (``wait_group.read``, with
    ``reads_left``: chunk j - STORE_DEPTH's, or the previous tile's), the
    warpgroup meets (``bar.sync``), every thread writes its values into the
    buffer in the TMA's 128-byte swizzled layout (16-byte chunk c of row r
    at chunk ``c ^ (r % 8)``: the 8 rows a warp writes at once fall on
    different banks), fences its writes for the async proxy
    (``fence.proxy.async.shared::cta``), the warpgroup meets again, and
    thread 0 issues the TMA store of the 64 x 64 box and commits it as a
    bulk group. The TMA clips the box at C's edges. `staging` is this
    warpgroup's STORE_DEPTH buffers (1024-aligned); the warpgroup's thread
    0 waits ``wait_group.read 0`` before the CTA exits (``store_drain``).
    `meet()` emits the warpgroup's barrier (``bar.sync`` of its 128
    threads: ``warpgroup_barrier``). `transposed` (``store_transposed``):
    each chunk is written into its buffer transposed, one value at a time,
    and stored as the 64 x 64 box of C (N x M) at (col0 + 64 j, row0)."""
    bf16 = ir.BF16Type.get()
    f32 = ir.F32Type.get()
    pair = ir.VectorType.get([2], bf16)
    pair_f32 = ir.VectorType.get([2], f32)
    warp, lane = wtid // 32, wtid % 32
    leader = wtid == 0
    swz = lane // 4                               # the row's index within its 8-row block
    for j in range(bn // 64):
        buf = byte_offset(staging, (j % STORE_DEPTH) * STORE_BUFFER_BYTES)
        with if_then(leader):
            lang.bulk_wait_group_read(reads_left(j, bn // 64))   # buf's last store read it
        meet()
        for half in range(2):
            rr = warp * 16 + swz + 8 * half       # row within the warpgroup's 64
            for jj in range(8):                   # 16-byte chunk of the 128-byte row
                j8 = 8 * j + jj
                vals = [llvm.ExtractValueOp(f32, acc, [4 * j8 + 2 * half + e]).result
                        for e in (0, 1)]
                if transposed:
                    for e, val in enumerate(vals):
                        off = _staging_offset(rr, jj, swz, lane, True, e)
                        llvm.StoreOp(arith.TruncFOp(bf16, val).result, byte_offset(buf, off),
                                     alignment=2)
                    continue
                v = arith.TruncFOp(pair, vector.from_elements(pair_f32, vals)).result
                llvm.StoreOp(v, byte_offset(buf, _staging_offset(rr, jj, swz, lane, False)),
                             alignment=4)
        lang.fence_proxy_async()                  # my writes, before the async proxy reads
        meet()
        with if_then(leader):
            at = [col0 + 64 * j, row0] if transposed else [row0, col0 + 64 * j]
            lang.cp_async_bulk_tensor_store(buf, tmap_c, at)
            lang.bulk_commit_group()


def store_tile_any(k, acc, cfg, staging, row0, col0, wtid, meet, Mp, Np) -> None:
    """The TMA-store epilogue of one warpgroup's tile where C's rows are
    16-byte aligned (N % 8 == 0), else ``store_tile``; the TMA stores whole
    64-column boxes, so a tile of bn % 64 more columns (128 x 144, 128 x
    224: tiles that fill the last wave) stores those from registers."""
    transposed = cfg.store_transposed
    tma_ok = if_else((Mp if transposed else Np) % 8 == 0)     # C's row: M or N values
    with tma_ok.then():
        store_tile_tma(acc, cfg.bn, staging, k.param("tmap_c"), row0, col0, wtid, meet,
                       transposed)
        if cfg.bn % 64:
            store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np, first_col=cfg.bn // 64 * 64)
    with tma_ok.otherwise():
        store_tile(k, acc, cfg, row0, col0, wtid, Mp, Np)


def warpgroup_barrier(k, cw):
    """A ``meet()`` for ``store_tile_tma``: one named barrier of 128 threads
    per consumer warpgroup (``mbarrier.named_barrier``, ids assigned by the
    compiler), warpgroup `cw` (0 or 1, a value) syncing on its own."""
    bars = [k.named_barrier(threads=128), k.named_barrier(threads=128)]

    def meet():
        which = if_else(cw == 0)
        with which.then():
            bars[0].sync()
        with which.otherwise():
            bars[1].sync()
    return meet


def store_drain(wtid) -> None:
    """Thread 0 of the warpgroup: every TMA store has read its staging
    buffer (``wait_group.read 0``) before the CTA exits."""
    with if_then(wtid == 0):
        lang.bulk_wait_group_read(0)


