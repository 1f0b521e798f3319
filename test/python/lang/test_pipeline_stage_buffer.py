"""lang.pipeline.StageBuffer: stage buffers at an address no pool lays out
(the GEMM's ring in dynamic shared memory) work wherever a pool buffer does
for a pipe slot: stage_ptr, cp_async_bulk_tensor, cp_async_bulk."""
import pytest
from mlir import ir
from mlir.dialects import llvm

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, Pipeline, if_then
from mbarrier_dialect.lang.pipeline import StageBuffer


def _dynamic_smem(k):
    """The launch's dynamic shared memory (extern .shared), an !llvm.ptr<3>."""
    name = k.unique_symbol("dyn")
    with ir.InsertionPoint.at_block_begin(k.gpu_module_body):
        llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), name,
                      ir.Attribute.parse("#llvm.linkage<external>"), alignment=128, addr_space=3)
    return llvm.AddressOfOp(ir.Type.parse("!llvm.ptr<3>"), name).result


def test_a_ring_in_dynamic_shared_memory():
    with Kernel("dyn_ring", block=64, params=[("x", "ptr"), ("tmap", "ptr")]) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, 2, kind="tma")
        pool.commit()
        stages = StageBuffer(_dynamic_smem(k), (2, 32, 64), "i32")
        assert stages.nbytes == 2 * 32 * 64 * 4 and stages.shape == (2, 32, 64)
        k.prologue(pipes=[pipe])
        tid = k.thread_rank()
        with if_then(tid == 0):
            producer = pipe.producer()
            for t in lang.range(4, carry=[producer]):
                slot = producer.acquire()
                slot.cp_async_bulk_tensor(stages, k.param("tmap"), [t * 32, 0],
                                          box_bytes=32 * 64 * 4)
                slot.commit(bytes=32 * 64 * 4)
            producer.tail()
        with if_then(tid >= 32):
            consumer = pipe.consumer()
            for _ in lang.range(4, carry=[consumer]):
                slot = consumer.wait()
                assert slot.stage_ptr(stages).type == ir.Type.parse("!llvm.ptr<3>")
                k.sync_warp()
                slot.release(pred=tid == 32)
    compiled = k.compile()
    assert compiled.warnings == []
    assert ".extern .shared .align 128 .b8" in compiled.ptx
    assert "cp.async.bulk.tensor.2d" in compiled.ptx


def test_stage_buffer_rules():
    with Kernel("rules", block=32) as k:
        pool = k.smem_pool()
        pipe = Pipeline(pool, 2, kind="arrive")
        other = pool.alloc((4, 8), "i32")
        pool.commit()
        with pytest.raises(TypeError, match="ptr<3>"):
            StageBuffer(lang.const(0), (2, 8), "i32")
        with pytest.raises(ValueError, match="positive"):
            StageBuffer(other.ptr, (2, 0), "i32")
        k.prologue(pipes=[pipe])
        consumer = pipe.consumer()
        slot = consumer.wait()
        with pytest.raises(ValueError, match="first dimension is the stage"):
            slot.stage_ptr(StageBuffer(other.ptr, (4, 8), "i32"))   # depth 2, 4 stages
        slot.release()
