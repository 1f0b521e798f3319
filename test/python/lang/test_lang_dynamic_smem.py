"""lang's dynamic shared memory (``pool.dynamic``), views at a pointer
(``pool.view``), pointer offsets (``lang.byte_offset``) and the warpgroup
role split (``lang.WarpgroupRoles``): what they emit, and the errors for
what they refuse."""
import pytest

from mbarrier_dialect import lang
from mbarrier_dialect.lang import Kernel, WarpgroupRoles, byte_offset, if_then


def test_dynamic_shared_memory_is_an_aligned_extern_array():
    with Kernel("dyn", block=32, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        pool.commit()
        base = pool.dynamic(align=256)
        buf = pool.view(byte_offset(base, k.thread_rank() * 4), 1, "i32")
        buf.store(5, 0)
        k.store(buf.load(0), k.param("out"), k.thread_rank())
    ptx = k.compile().ptx
    assert ".extern .shared .align 256 .b8 __dynamic_smem_" in ptx
    # the view at base + 4 * tid (LLVM folds the run-time rounding: the
    # array's declared alignment already is 256)
    assert "mul.wide.u32" in ptx and "st.shared.b32" in ptx
    assert buf.shape == (1,) and buf.align == 16


def test_a_view_takes_a_shared_pointer():
    with Kernel("view_bad", block=32, params=[("out", "ptr")]) as k:
        pool = k.smem_pool()
        pool.commit()
        with pytest.raises(TypeError, match="a shared-memory view's ptr is an !llvm.ptr<3>"):
            pool.view(k.param("out"), 4, "i32")
        with pytest.raises(ValueError, match="align must be a power of two"):
            pool.dynamic(align=48)


def test_a_byte_offset_is_not_a_bool():
    with Kernel("offset_bad", block=32) as k:
        pool = k.smem_pool()
        pool.commit()
        with pytest.raises(TypeError):
            byte_offset(pool.dynamic(), True)


def test_the_roles_move_registers_each_way():
    with Kernel("roles", block=256, chip="sm_90a", params=[("out", "ptr")]) as k:
        roles = WarpgroupRoles(k, producer_regs=24, consumer_regs=240)
        with roles.producer():
            with if_then(roles.tid == 0):
                k.store(1, k.param("out"), 0)
        with roles.consumers():
            with if_then(roles.tid == lang.WARPGROUP):
                k.store(roles.warpgroup, k.param("out"), 1)
    ptx = k.compile().ptx
    assert "setmaxnreg.dec.sync.aligned.u32 \t24" in ptx
    assert "setmaxnreg.inc.sync.aligned.u32 \t240" in ptx
