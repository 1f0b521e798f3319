"""The tensor-core part of examples/gemm.py: wgmma shared-memory
descriptors (128-byte swizzled, K-major operands), the m64nBNk16 bf16
wgmma (upstream ``nvvm.wgmma.mma_async``) and one 64-deep K block of it."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm, nvvm

from mbarrier_dialect import lang

BK = 64                     # K per stage: 64 bf16 = one 128-byte swizzled row


def _i64(x: int) -> lang.Value:
    return lang.const(x, "i64")


def smem_address(ptr: ir.Value) -> lang.Value:
    """The shared-window address of `ptr`, i32."""
    return lang.wrap(llvm.PtrToIntOp(ir.IntegerType.get_signless(32), ptr).result)


#: wgmma shared-memory descriptor, 128-byte swizzle, K-major: leading byte
#: offset 16 (unused by the swizzled K-major layout), stride byte offset 1024
#: (8 rows of 128 B), layout type 1 (SWIZZLE_128B) in bits 62-63.
DESC_HI = (1 << 16) | ((1024 >> 4) << 32) | (1 << 62)


def wgmma_descriptor(addr: lang.Value) -> lang.Value:
    """The 64-bit matrix descriptor of a 128-byte swizzled K-major tile at
    shared address `addr` (i32, 1024-aligned at its tile start)."""
    return ((addr >> 4) & 0x3FFF).to("i64") | _i64(DESC_HI)


def acc_type(bn: int) -> ir.Type:
    """The accumulator of one m64nBN wgmma: bn/2 f32 per thread."""
    return ir.Type.parse("!llvm.struct<(" + ", ".join(["f32"] * (bn // 2)) + ")>")


def wgmma(acc: ir.Value, desc_a: ir.Value, desc_b: ir.Value, bn: int, *,
          accumulate: bool = True) -> ir.Value:
    """``wgmma.mma_async.sync.aligned.m64nBNk16.f32.bf16.bf16`` D += A * B^T
    (`accumulate` False: D = A * B^T, scale-d 0, `acc` not read), A and B
    K-major in shared memory (upstream ``nvvm.wgmma.mma_async``)."""
    return nvvm.WgmmaMmaAsyncOp(
        results_=acc.type, inouts=acc, descriptorA=desc_a, descriptorB=desc_b,
        shape=ir.Attribute.parse(f"#nvvm.shape<m = 64, n = {bn}, k = 16>"),
        typeA=nvvm.WGMMATypes.bf16, typeB=nvvm.WGMMATypes.bf16, typeD=nvvm.WGMMATypes.f32,
        scaleD=nvvm.WGMMAScaleOut.one if accumulate else nvvm.WGMMAScaleOut.zero,
        scaleA=nvvm.WGMMAScaleIn.one,
        scaleB=nvvm.WGMMAScaleIn.one,
        layoutA=nvvm.MMALayout.row,       # A: M x K, K contiguous
        layoutB=nvvm.MMALayout.col,       # B: N x K, K contiguous (no transpose)
    ).result


def mma_k_tile(acc: ir.Value, a_addr: lang.Value, b_addr: lang.Value, bn: int) -> ir.Value:
    """One 64-deep K tile of this warpgroup's product: ``wgmma.fence``, four
    ``m64nBNk16`` wgmmas (+32 bytes along K each), ``commit_group``."""
    da, db = wgmma_descriptor(a_addr), wgmma_descriptor(b_addr)
    nvvm.WgmmaFenceAlignedOp()
    for kk in range(BK // 16):
        acc = wgmma(acc, da + 2 * kk, db + 2 * kk, bn)
    nvvm.WgmmaGroupSyncAlignedOp()
    return acc
