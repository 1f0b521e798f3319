"""Tensor cores, as the GEMM and attention examples use them: wgmma
shared-memory descriptors (128-byte swizzled, K-major or MN-major operands),
the m64nBNk16 bf16 wgmma (upstream ``nvvm.wgmma.mma_async``, its transpose
bits from the operands' majors; PTX ISA "Asynchronous Warpgroup Level Matrix
Multiply-Accumulate Instructions") and one 64-deep K block of it.

A stage of an operand is 64 K (BK) by `rows` M or N, in one of two
shared-memory layouts, each what the TMA writes with the 128-byte swizzle:

* K-major (``major="K"``): `rows` rows of 128 bytes (64 K each); the
  descriptor's stride byte offset 1024 steps 8 rows; a k16 step is +32
  bytes.
* MN-major (``major="MN"``): `rows / 64` chunks of 8 KiB, chunk j holding
  MN j*64 .. j*64+63 as 64 K-rows of 128 bytes (one TMA box each);
  CUTLASS's canonical ``Swizzle<3,4,3> o ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))``
  with LBO = 8 KiB (chunk to chunk along MN) and SBO = 1024 (8 K-rows);
  a k16 step is +2048 bytes (16 K-rows).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm, nvvm

from .values import Value, const, wrap

__all__ = ["BK", "MN_CHUNK", "MN_CHUNK_BYTES", "MAJORS", "smem_address", "wgmma_descriptor",
           "k16_step", "acc_type", "wgmma", "mma_k_tile"]

BK = 64                     # K per stage: 64 bf16 = one 128-byte swizzled row


def _i64(x: int) -> Value:
    return const(x, "i64")


def smem_address(ptr: ir.Value) -> Value:
    """The shared-window address of `ptr`, i32."""
    return wrap(llvm.PtrToIntOp(ir.IntegerType.get_signless(32), ptr).result)


#: wgmma shared-memory descriptor, 128-byte swizzle, K-major: leading byte
#: offset 16 (unused by the swizzled K-major layout), stride byte offset 1024
#: (8 rows of 128 B), layout type 1 (SWIZZLE_128B) in bits 62-63.
DESC_HI = (1 << 16) | ((1024 >> 4) << 32) | (1 << 62)
#: MN-major: 64 MN x BK K per 128-byte-swizzled chunk (one TMA box).
MN_CHUNK = 64
MN_CHUNK_BYTES = MN_CHUNK * BK * 2
#: ... leading byte offset 8 KiB (the next 64 MN), stride byte offset 1024
#: (the next 8 K-rows of 128 B).
DESC_HI_MN = ((MN_CHUNK_BYTES >> 4) << 16) | ((1024 >> 4) << 32) | (1 << 62)
#: Bytes one k16 step moves through a stage: 16 bf16 along a 128-byte row
#: (K-major), 16 rows of 128 bytes (MN-major).
K16_STEP_BYTES = {"K": 32, "MN": 16 * 128}
MAJORS = ("K", "MN")


def _major(major: str) -> str:
    if major not in MAJORS:
        raise ValueError(f"an operand's major is one of {MAJORS}, not {major!r}")
    return major


def wgmma_descriptor(addr: Value, major: str = "K") -> Value:
    """The 64-bit matrix descriptor of a 128-byte swizzled tile at shared
    address `addr` (i32, 1024-aligned at its tile start), K-major or
    MN-major (the layouts of this module's docstring)."""
    hi = {"K": DESC_HI, "MN": DESC_HI_MN}[_major(major)]
    return ((addr >> 4) & 0x3FFF).to("i64") | _i64(hi)


def k16_step(major: str) -> int:
    """What one k16 step adds to a descriptor (its address field: bytes / 16)."""
    return K16_STEP_BYTES[_major(major)] >> 4


def acc_type(bn: int) -> ir.Type:
    """The accumulator of one m64nBN wgmma: bn/2 f32 per thread."""
    return ir.Type.parse("!llvm.struct<(" + ", ".join(["f32"] * (bn // 2)) + ")>")


def wgmma(acc: ir.Value, desc_a: ir.Value, desc_b: ir.Value, bn: int, *,
          accumulate: bool = True, a_major: str = "K", b_major: str = "K") -> ir.Value:
    """``wgmma.mma_async.sync.aligned.m64nBNk16.f32.bf16.bf16`` D += A * B^T
    (`accumulate` False: D = A * B^T, scale-d 0, `acc` not read), A (M x K)
    and B (N x K) in shared memory, each K-major or MN-major: the
    instruction's imm-trans-a / imm-trans-b (upstream ``nvvm.wgmma.mma_async``'s
    layoutA ``col`` / layoutB ``row``, bf16 only). `accumulate` is the
    instruction's scale-d, which the op takes as an immediate: a Python bool,
    never an IR value (a run-time choice is two wgmmas under an ``if``)."""
    if not isinstance(accumulate, bool):
        raise TypeError(f"wgmma's accumulate is the immediate scale-d, a Python bool, not {type(accumulate).__name__}")
    return nvvm.WgmmaMmaAsyncOp(
        results_=acc.type, inouts=acc, descriptorA=desc_a, descriptorB=desc_b,
        shape=ir.Attribute.parse(f"#nvvm.shape<m = 64, n = {bn}, k = 16>"),
        typeA=nvvm.WGMMATypes.bf16, typeB=nvvm.WGMMATypes.bf16, typeD=nvvm.WGMMATypes.f32,
        scaleD=nvvm.WGMMAScaleOut.one if accumulate else nvvm.WGMMAScaleOut.zero,
        scaleA=nvvm.WGMMAScaleIn.one,
        scaleB=nvvm.WGMMAScaleIn.one,
        # A: row = K contiguous, col = M contiguous (transposed);
        # B: col = K contiguous, row = N contiguous (transposed).
        layoutA=nvvm.MMALayout.row if _major(a_major) == "K" else nvvm.MMALayout.col,
        layoutB=nvvm.MMALayout.col if _major(b_major) == "K" else nvvm.MMALayout.row,
    ).result


def mma_k_tile(acc: ir.Value, a_addr: Value, b_addr: Value, bn: int,
               a_major: str = "K", b_major: str = "K") -> ir.Value:
    """One 64-deep K tile of this warpgroup's product: ``wgmma.fence``, four
    ``m64nBNk16`` wgmmas (one k16 step along K each), ``commit_group``."""
    da, db = wgmma_descriptor(a_addr, a_major), wgmma_descriptor(b_addr, b_major)
    sa, sb = k16_step(a_major), k16_step(b_major)
    nvvm.WgmmaFenceAlignedOp()
    for kk in range(BK // 16):
        acc = wgmma(acc, da + sa * kk, db + sb * kk, bn, a_major=a_major, b_major=b_major)
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc
