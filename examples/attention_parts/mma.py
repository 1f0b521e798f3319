"""The wgmma forms of examples/attention.py.

* S = Q K^T: both operands K-major (d contiguous) in shared memory, 128-byte
  swizzled: upstream ``nvvm.wgmma.mma_async`` (the SS form),
  ``mbarrier_dialect.lang.wgmma.wgmma``, as in examples/gemm.py.
* O += P V: P comes from registers (the S accumulator converted to bf16:
  the m64nNk16 accumulator fragment of 16 columns is exactly the A fragment
  of one k16 step, FA2/FA3's observation), V is [kv, d] with d contiguous,
  i.e. an MN-major B. MLIR 22's ``nvvm.wgmma.mma_async`` has only the SS
  form (``descriptorA`` is an i64 descriptor), so the RS form is
  ``llvm.inline_asm`` of ``wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16``
  with ``imm-trans-b = 1`` (this is an MMA, not a barrier: every barrier of
  the kernel is a dialect op).

Fragment of an m64nN f32 accumulator (PTX ISA, "wgmma .m64nNk16 register
fragment D"): value j of thread t (warp w = t / 32 of the warpgroup, lane
l = t % 32) is row 16 w + l / 4 + 8 ((j / 2) % 2), column 8 (j / 4) +
2 (l % 4) + j % 2. The A fragment of k16 step kk (four b32 registers, each a
bf16 pair, the lower half the first) is values 8 kk .. 8 kk + 7 of it.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, nvvm, vector

from mbarrier_dialect import lang

def mn_major_descriptor(addr: lang.Value, chunk_bytes: int) -> lang.Value:
    """The descriptor of a 128-byte swizzled MN-major tile at shared address
    `addr` (i32): 64-element column chunks `chunk_bytes` apart. The 8-row x
    128-byte swizzle atom holds 64 MN elements (bf16) x 8 K rows; the
    leading byte offset is the stride of the next 64 MN elements (the next
    64-column chunk of the tile), the stride byte offset that of the next 8
    K rows (1024 bytes), layout type 1 (128B) in bits 62-63."""
    hi = ((chunk_bytes >> 4) << 16) | ((1024 >> 4) << 32) | (1 << 62)
    return ((addr >> 4) & 0x3FFF).to("i64") | lang.const(hi, "i64")


def acc_type(n: int) -> ir.Type:
    """The accumulator of one m64nN wgmma: n/2 f32 per thread."""
    return ir.Type.parse("!llvm.struct<(" + ", ".join(["f32"] * (n // 2)) + ")>")


def wgmma_ss(acc: ir.Value, desc_a: ir.Value, desc_b: ir.Value, n: int, *,
             zero: bool = False) -> ir.Value:
    """D (+)= A B^T, A (M x K) and B (N x K) K-major in shared memory
    (upstream ``nvvm.wgmma.mma_async``); `zero`: D = A B^T (scale-d 0)."""
    return nvvm.WgmmaMmaAsyncOp(
        results_=acc.type, inouts=acc, descriptorA=desc_a, descriptorB=desc_b,
        shape=ir.Attribute.parse(f"#nvvm.shape<m = 64, n = {n}, k = 16>"),
        typeA=nvvm.WGMMATypes.bf16, typeB=nvvm.WGMMATypes.bf16, typeD=nvvm.WGMMATypes.f32,
        scaleD=nvvm.WGMMAScaleOut.zero if zero else nvvm.WGMMAScaleOut.one,
        scaleA=nvvm.WGMMAScaleIn.one, scaleB=nvvm.WGMMAScaleIn.one,
        layoutA=nvvm.MMALayout.row, layoutB=nvvm.MMALayout.col,
    ).result


def wgmma_rs_tn(acc: ir.Value, a_regs: list, desc_b: ir.Value, n: int) -> ir.Value:
    """D += A B, A (64 x 16) from registers (four b32: bf16 pairs), B (16 x N)
    MN-major in shared memory (``imm-trans-b = 1``): the RS form of
    ``wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16``, inline PTX."""
    nd = n // 2
    d = ", ".join(f"${i}" for i in range(nd))
    a = ", ".join(f"${nd + i}" for i in range(4))
    asm = ("{\n.reg .pred p;\nsetp.ne.b32 p, $" + str(nd + 5) + ", 0;\n"
           f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 "
           f"{{{d}}}, {{{a}}}, ${nd + 4}, p, 1, 1, 1;\n}}")
    constraints = ",".join(["=f"] * nd + ["r"] * 4 + ["l", "r"] + [str(i) for i in range(nd)])
    f32 = ir.F32Type.get()
    vals = [llvm.ExtractValueOp(f32, acc, [i]).result for i in range(nd)]
    one = lang.const(1)
    return llvm.InlineAsmOp(acc.type, [*a_regs, desc_b, one, *vals], asm, constraints,
                            has_side_effects=True).res


def unpack(acc: ir.Value, n: int) -> list:
    """The n/2 f32 values of an m64nN accumulator."""
    f32 = ir.F32Type.get()
    return [llvm.ExtractValueOp(f32, acc, [i]).result for i in range(n // 2)]


def pack(vals: list, ty: ir.Type) -> ir.Value:
    """An accumulator struct of `vals`."""
    acc = llvm.UndefOp(ty).res
    for i, v in enumerate(vals):
        acc = llvm.InsertValueOp(acc, v, [i]).result
    return acc


def bf16x2(lo: ir.Value, hi: ir.Value) -> ir.Value:
    """Two f32 as one b32 of two bf16 (round to nearest even; `lo` in the
    lower half): ``cvt.rn.bf16x2.f32``."""
    f32, bf16 = ir.F32Type.get(), ir.BF16Type.get()
    v = vector.from_elements(ir.VectorType.get([2], f32), [lo, hi])
    v = arith.TruncFOp(ir.VectorType.get([2], bf16), v).result
    return llvm.BitcastOp(ir.IntegerType.get_signless(32), v).res


def a_fragments(p: list) -> list:
    """The A fragments (four b32 per k16 step) of the f32 values `p` of an
    m64nN accumulator, converted to bf16."""
    regs = [bf16x2(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)]
    return [regs[4 * kk:4 * kk + 4] for kk in range(len(regs) // 4)]
