"""k.sync_threads() in IR that outlives nvvm.barrier0 (removed upstream after
MLIR 22, llvm-project#195608; issue 19): lang builds ``gpu.barrier``, which
upstream lowers to its CTA barrier (``bar.sync 0``), and which the checker
counts as a CTA barrier as it counts ``nvvm.barrier0``."""
import re
import warnings

import pytest

from mbarrier_dialect import SyncCheckWarning, compile
from mbarrier_dialect.lang import Kernel, MBarrier

BAR_SYNC_0 = re.compile(r"\bbar(rier)?\.sync(\.aligned)?\s+0;")


def _entry(ptx: str) -> str:
    return ptx[ptx.index(".entry"):]


def _sync_op_text() -> str:
    """The op lang builds for k.sync_threads(), as printed."""
    with Kernel("k", block=64) as k:
        k.sync_threads()
    body = str(k.module).split("kernel attributes")[1]
    (line,) = [line.strip() for line in body.splitlines()[1:] if line.strip() != "gpu.return"
               and line.strip() != "}"]
    return line


def test_sync_threads_builds_gpu_barrier_and_lowers_to_bar_sync_0():
    assert _sync_op_text() == "gpu.barrier"
    with Kernel("k", block=64, params=[("out", "ptr")]) as k:
        k.store(k.thread_rank(), k.param("out"), k.thread_rank())
        k.sync_threads()
        k.store(0, k.param("out"), k.thread_rank())
    assert "barrier0" not in str(k.module)
    compiled = k.compile()
    assert "gpu.barrier" in compiled.nvvm  # through the checker, to upstream's lowering:
    assert re.search(r"\bnvvm\.barrier0?\b", compiled.llvm) and "gpu.barrier" not in compiled.llvm
    ptx = _entry(compiled.ptx)
    assert len(BAR_SYNC_0.findall(ptx)) == 1


def test_the_prologue_of_a_kernel_without_a_cluster_uses_it():
    with Kernel("k", block=64) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 64})
    text = str(k.module)
    assert text.index("mbarrier.fence_init") < text.index("gpu.barrier")
    assert "nvvm.cluster" not in text and "barrier0" not in text
    assert BAR_SYNC_0.search(_entry(k.compile().ptx))


# Warp 0 arrives in every trip of a loop that never waits on an mbarrier;
# warp 1 waits phase after phase (test/Analysis/SyncCheck/parity.mlir's shape). Without a
# CTA barrier in the producer loop the checker warns that the producer may
# run phases ahead; a CTA barrier there is synchronization it accepts.
RUN_AHEAD = """
gpu.module @m {{
  gpu.func @k(%n: index) kernel attributes {{known_block_size = array<i32: 64, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {{
      mbarrier.init %full[%c0], %c32 : !mbarrier.group<1>
    }}
    nvvm.barrier0
    scf.if %producer {{
      scf.for %i = %c0 to %n step %c1 {{
        mbarrier.arrive %full[%c0] : !mbarrier.group<1>
        {sync}
      }}
    }} else {{
      %p = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {{
        mbarrier.wait %full[%c0], %phase : !mbarrier.group<1>
        %next = arith.xori %phase, %one : i32
        scf.yield %next : i32
      }}
    }}
    gpu.return
  }}
}}
"""


def _run_ahead_warnings(sync: str) -> list[str]:
    text = RUN_AHEAD.format(sync=sync)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyncCheckWarning)
        return [w for w in compile(text, emit="nvvm").warnings if "never waits" in w]


@pytest.mark.parametrize("sync", ["nvvm.barrier0", "lang"])
def test_the_checker_counts_it_as_a_cta_barrier(sync):
    assert len(_run_ahead_warnings("")) == 1
    assert _run_ahead_warnings(_sync_op_text() if sync == "lang" else sync) == []
