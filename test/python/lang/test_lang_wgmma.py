"""lang.wgmma, the tensor-core helpers the GEMM and attention examples share:
the descriptors' fields and transpose bits in the PTX, and what it refuses
(an IR value for the immediate scale-d, an unknown operand major)."""
import re

import pytest
from mlir.dialects import llvm, nvvm

from mbarrier_dialect.lang import Kernel, wgmma


def _one_block(a_major="K", b_major="K", bn=64):
    with Kernel("wg", block=128, chip="sm_90a") as k:
        pool = k.smem_pool()
        a = pool.alloc((64, wgmma.BK), "bf16", align=1024)
        b = pool.alloc((bn, wgmma.BK), "bf16", align=1024)
        pool.commit()
        acc = llvm.mlir_zero(wgmma.acc_type(bn))
        wgmma.mma_k_tile(acc, wgmma.smem_address(a.ptr), wgmma.smem_address(b.ptr), bn,
                         a_major=a_major, b_major=b_major)
        nvvm.WgmmaWaitGroupSyncOp(0)
    return k.compile().ptx


def _trans_bits(ptx):
    return set(re.findall(r"wgmma\.mma_async[^;]*, p, 1,\s+1, ([01]),\s+([01]);", ptx))


def test_one_k_block_is_fence_four_k16_steps_commit():
    ptx = _one_block()
    body = ptx[ptx.index("wgmma.fence"):]
    assert body.count("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") == 4
    assert body.index("wgmma.commit_group") > body.rindex("wgmma.mma_async")
    # K-major both: imm-trans-a = imm-trans-b = 0 (the immediates after
    # scale-d's predicate and imm-scale-a / imm-scale-b)
    assert _trans_bits(ptx) == {("0", "0")}


def test_mn_major_operands_set_the_transpose_bits():
    ptx = _one_block(a_major="MN", b_major="MN")
    assert _trans_bits(ptx) == {("1", "1")}


def test_accumulate_is_a_python_bool_not_an_ir_value():
    with Kernel("wg_bad", block=128, chip="sm_90a") as k:
        pool = k.smem_pool()
        a = pool.alloc((64, wgmma.BK), "bf16", align=1024)
        pool.commit()
        desc = wgmma.wgmma_descriptor(wgmma.smem_address(a.ptr))
        acc = llvm.mlir_zero(wgmma.acc_type(64))
        with pytest.raises(TypeError, match="immediate scale-d"):
            wgmma.wgmma(acc, desc, desc, 64, accumulate=k.thread_rank() == 0)


def test_an_unknown_major_is_a_value_error():
    with pytest.raises(ValueError, match="major is one of"):
        wgmma.k16_step("k")
