"""mbarrier-check-sync (docs/checker.md) on the project's own kernels: every
kernel of the GPU suite (its functional, sanitizer and stress shapes), every
example and every benchmark kernel compiles with the checker on and gets no
diagnostic at all. And the switches: compile(check_sync=False),
mbarrier-compile --no-check-sync; warnings land in CompiledKernel.warnings
and are issued as SyncCheckWarning. The buggy kernels of each class are the
lit tests of test/Analysis/SyncCheck/ and test/gpu/corpus/buggy.py."""
import os
import subprocess
import sys
import warnings

import pytest

from mbarrier_dialect import CompileError, SyncCheckWarning, compile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

import kernels  # noqa: E402
from bench.latency import kernels as latency_kernels  # noqa: E402


def _suite_kernels():
    """(id, builder) of every kernel of every suite, examples included."""
    seen = []
    for suite, builders in kernels.SUITES.items():
        for i, build in enumerate(builders):
            seen.append((f"{suite}-{i}", build))
    return seen


def _silent(kernel, raise_nvgpu=False):
    """Compiles to NVVM (the checker runs first) and returns the warnings;
    an error raises CompileError. `raise_nvgpu` for kernels written in
    nvgpu (the pipeline refuses nvgpu ops otherwise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyncCheckWarning)
        if hasattr(kernel, "module"):
            return kernel.compile(emit="nvvm").warnings
        return compile(kernel, emit="nvvm", raise_nvgpu=raise_nvgpu).warnings


@pytest.mark.parametrize("name,build", _suite_kernels(), ids=[n for n, _ in _suite_kernels()])
def test_every_suite_kernel_passes_the_checker(name, build):
    kernel = build().kernel
    if hasattr(kernel, "path"):  # an .mlir file of examples/
        from pathlib import Path
        assert _silent(Path(kernel.path), kernel.options.get("raise_nvgpu", False)) == []
    else:
        assert _silent(kernel) == []


def test_every_benchmark_kernel_passes_the_checker():
    benches = latency_kernels.all_benches()
    assert len(benches) >= 8
    for bench in benches:
        assert _silent(bench.kernel) == [], bench.name


def test_every_fence_benchmark_kernel_passes_the_checker():
    from bench.fence import kernels as fence_kernels
    kernels_ = fence_kernels.all_kernels()
    assert len(kernels_) >= 10
    for fk in kernels_:
        assert _silent(fk.text) == [], fk.name


def test_every_example_file_passes_the_checker():
    examples = os.path.join(ROOT, "examples")
    from pathlib import Path
    for name in sorted(os.listdir(examples)):
        if name.endswith(".mlir"):
            text = Path(examples, name).read_text()
            assert _silent(Path(examples, name), "nvgpu." in text) == [], name
        elif name.endswith(".py") and name != "__init__.py":
            module = kernels.example(name[:-3])
            assert _silent(module.build()) == [], name


# A whole warp arrives on a count-1 barrier (an error), and on some path a
# barrier is invalidated before an arrival (a warning).
ERROR_KERNEL = """
gpu.module @m {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    nvvm.barrier0
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
}
"""
WARNING_KERNEL = """
gpu.module @m {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %c32 : !mbarrier.group<1>
    }
    nvvm.barrier0
    scf.if %flag {
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
    }
    mbarrier.arrive %g[%c0] : !mbarrier.group<1>
    gpu.return
  }
}
"""


def test_errors_stop_compile_unless_the_checker_is_off():
    with pytest.raises(CompileError, match="arrives 32 times on a barrier initialized with "
                                           "arrival count 1"):
        compile(ERROR_KERNEL, emit="ptx")
    assert ".entry k" in compile(ERROR_KERNEL, emit="ptx", check_sync=False).ptx
    with pytest.raises(TypeError, match="check_sync must be a bool"):
        compile(ERROR_KERNEL, check_sync="no")


def test_warnings_are_kept_and_issued():
    with pytest.warns(SyncCheckWarning, match="may use a barrier after mbarrier.inval"):
        result = compile(WARNING_KERNEL, emit="ptx")
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("<stdin>:") or ": warning: may use" in result.warnings[0]
    assert result.ptx
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyncCheckWarning)
        assert compile(WARNING_KERNEL, emit="ptx", check_sync=False).warnings == []


def test_cli_prints_warnings_and_can_turn_the_checker_off(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(WARNING_KERNEL)
    cli = [sys.executable, "-m", "mbarrier_dialect"]
    proc = subprocess.run([*cli, str(src), "--emit", "ptx", "-o", str(tmp_path / "k.ptx")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"{src}:16:5: warning: may use a barrier after mbarrier.inval" in proc.stderr
    bad = tmp_path / "bad.mlir"
    bad.write_text(ERROR_KERNEL)
    proc = subprocess.run([*cli, str(bad), "--emit", "ptx"], capture_output=True, text=True)
    assert proc.returncode == 1 and "arrives 32 times" in proc.stderr
    proc = subprocess.run([*cli, str(bad), "--emit", "ptx", "--no-check-sync"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and ".entry k" in proc.stdout and proc.stderr == ""


# The runtime-evidence kernels of test/gpu/corpus/buggy.py: the checker reports each
# buggy kernel (its class's diagnostic, with its severity) and none of the
# fixed twins; with the checker off both build to cubins and a manifest.
import buggy  # noqa: E402


@pytest.mark.parametrize("bug", buggy.BUGS, ids=[f"class{b.cls}" for b in buggy.BUGS])
def test_each_buggy_kernel_is_reported_and_its_fix_is_silent(bug):
    kernel = bug.build(False).kernel.kernel
    if bug.severity == "error":
        with pytest.raises(CompileError, match=r"error: .*" + bug.diagnostic):
            kernel.compile(emit="nvvm")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyncCheckWarning)
            found = kernel.compile(emit="nvvm").warnings
        assert any(bug.diagnostic in w for w in found), found
    assert _silent(bug.build(True).kernel.kernel) == []


def test_the_buggy_manifest_builds_with_the_checker_off(tmp_path):
    written = buggy.build(str(tmp_path))
    names = [k["name"] for k in written["kernels"]]
    assert len(names) == 2 * len(buggy.BUGS) == 16
    assert sorted({b.cls for b in buggy.BUGS}) == list(range(1, 9))
    for entry in written["kernels"]:
        assert (tmp_path / entry["cubin"]).read_bytes()[:4] == b"\x7fELF"
        assert entry["timeout_s"] <= 30


# An error does not drop the warnings reported with it (repro s2j): the
# CompileError carries them and prints them after the error; mbarrier-compile
# prints them on stderr before the error.
WARN_AND_ERROR_KERNEL = """
gpu.module @m {
  gpu.func @k(%flag: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<2>
      mbarrier.init %g[%c1], %c32 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %flag {
      mbarrier.inval %g[%c1] : !mbarrier.group<2>
    }
    mbarrier.arrive %g[%c1] : !mbarrier.group<2>
    mbarrier.arrive %g[%c0] : !mbarrier.group<2>
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<2>
    gpu.return
  }
}
"""


def test_an_error_keeps_the_warnings():
    with pytest.raises(CompileError) as err:
        compile(WARN_AND_ERROR_KERNEL, emit="nvvm")
    e = err.value
    assert "arrives 32 times on a barrier initialized with arrival count 1" in e.message
    assert len(e.warnings) == 1, e.warnings
    assert ":20:5: warning: may use a barrier after mbarrier.inval" in e.warnings[0]
    assert "may use a barrier after mbarrier.inval" not in e.message
    text = str(e)
    assert text.index("arrives 32 times") < text.index("warning: may use a barrier after")


def test_cli_prints_the_warnings_before_the_error(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(WARN_AND_ERROR_KERNEL)
    proc = subprocess.run([sys.executable, "-m", "mbarrier_dialect", str(src),
                           "--emit", "ptx"], capture_output=True, text=True)
    assert proc.returncode == 1
    warning = proc.stderr.index(f"{src}:20:5: warning: may use a barrier after mbarrier.inval")
    # The error reads as compilers print it: file:line:col: error: message.
    error = proc.stderr.index(": error: ")
    assert warning < error, proc.stderr
    assert proc.stderr[:error].rsplit("\n", 1)[-1].startswith(str(src)), proc.stderr
    assert "arrives 32 times" in proc.stderr[error:]
    assert proc.stderr.count("may use a barrier after mbarrier.inval") == 1


def test_strict_makes_the_warnings_errors(tmp_path):
    with pytest.raises(CompileError, match="error: .*may use a barrier after mbarrier.inval"):
        compile(WARNING_KERNEL, emit="nvvm", strict=True)
    with pytest.warns(SyncCheckWarning, match="may use a barrier after mbarrier.inval"):
        assert compile(WARNING_KERNEL, emit="nvvm", strict=False).warnings
    with pytest.raises(TypeError, match="strict must be a bool"):
        compile(WARNING_KERNEL, strict=1)
    src = tmp_path / "k.mlir"
    src.write_text(WARNING_KERNEL)
    cli = [sys.executable, "-m", "mbarrier_dialect", str(src), "--emit", "ptx",
           "-o", str(tmp_path / "k.ptx")]
    proc = subprocess.run([*cli, "--check-sync-strict"], capture_output=True, text=True)
    assert proc.returncode == 1 and "may use a barrier after mbarrier.inval" in proc.stderr
    assert subprocess.run(cli, capture_output=True, text=True).returncode == 0


# Forgetting k.prologue() entirely (repro of issue 20): the barriers are used
# and never initialized, an error; also for a multicast pipe.
@pytest.mark.parametrize("cluster", [1, 2])
def test_a_lang_pipeline_without_its_prologue_is_refused(cluster, monkeypatch):
    import importlib.util
    from mbarrier_dialect.lang import Kernel
    spec = importlib.util.spec_from_file_location(
        "tma_pipeline", os.path.join(ROOT, "examples", "tma_pipeline.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert _silent(example.build(cluster, depth=2, warps=1, tiles=4)) == []
    monkeypatch.setattr(Kernel, "prologue", lambda self, *args, **kwargs: None)
    kernel = example.build(cluster, depth=2, warps=1, tiles=4)
    assert "mbarrier.pipe.init" not in str(kernel.module)
    with pytest.raises(CompileError, match="a group that is never initialized"):
        kernel.compile(emit="nvvm")


def test_a_lang_barrier_without_its_prologue_is_refused():
    from mbarrier_dialect.lang import Kernel, MBarrier

    def build(prologue):
        with Kernel("k", block=64) as k:
            pool = k.smem_pool()
            bar = MBarrier(pool, 1)
            pool.commit()
            if prologue:
                k.prologue({bar: 64})
            bar.arrive(0)
            bar.wait(0, 0)
        return k

    assert _silent(build(True)) == []
    with pytest.raises(CompileError, match="uses barrier 0 of a group that is never initialized"):
        build(False).compile(emit="nvvm")


# A second group of the pool left out of k.prologue() (issue 30, item 5):
# the init of one group does not initialize the others. A barrier group
# whose only uses are in loops of a run-time trip count is a warning (an
# error with strict=True); a pipe whose tail runs, and an ordered sequence
# turned in a loop of constant trips, are errors.
def _pool_kernel(left_out):
    from mbarrier_dialect import lang
    from mbarrier_dialect.lang import Kernel, MBarrier, if_then

    with Kernel("pool", block=64, params=[("tmap", "ptr"), ("n", "i32")]) as k:
        pool = k.smem_pool()
        flag = MBarrier(pool, 2)
        pipe = lang.Pipeline(pool, 2, kind="tma")
        order = lang.OrderedSequence(pool, depth=2, groups=2, arrivals=32)
        tiles = pool.alloc((2, 256), "i32", align=128)
        pool.commit()
        k.prologue({} if left_out == "group" else {flag: 1},
                   pipes=[] if left_out == "pipe" else [pipe],
                   sequences=[] if left_out == "sequence" else [order])
        tid = k.thread_rank()
        with if_then(tid == 0):
            producer = pipe.producer()
            for t in lang.range(4, carry=[producer]):
                slot = producer.acquire()
                slot.cp_async_bulk_tensor(tiles, k.param("tmap"), [t * 4, 0], box_bytes=1024)
                slot.commit(bytes=1024)
            producer.tail()
        with if_then(tid == 32):
            consumer = pipe.consumer()
            for t in lang.range(4, carry=[consumer]):
                slot = consumer.wait()
                slot.release()
        for t in lang.range(k.param("n")):
            with if_then(tid == 0):
                flag.arrive(0)
            flag.wait(0, t % 2)
            k.sync_threads()
        me = order.start(tid // 32)
        for t in lang.range(4, carry=[me]):
            turn = me.wait()
            turn.arrive()
    return k


def test_each_group_of_the_pool_needs_its_own_init():
    assert _silent(_pool_kernel(None)) == []
    for left_out in ("pipe", "sequence"):
        kernel = _pool_kernel(left_out)
        with pytest.raises(CompileError, match="uses a barrier of a group that is never initialized"):
            kernel.compile(emit="nvvm")
    with pytest.warns(SyncCheckWarning, match="may use barrier 0 of a group that is never initialized"):
        _pool_kernel("group").compile(emit="nvvm")
    with pytest.raises(CompileError, match="may use barrier 0 of a group that is never initialized"):
        _pool_kernel("group").compile(emit="nvvm", strict=True)


# A StorePipeline buffer rewritten in a later trip of lang.range without
# acquire() (issue 30, item 3): the write of trip 2 goes into the buffer
# that the store of trip 0 may still read. An error in a loop of 4 trips,
# a warning for a run-time trip count; with acquire() silent.
def _store_ring_kernel(acquire, tiles):
    from mbarrier_dialect import lang
    from mbarrier_dialect.lang import Kernel, if_then

    with Kernel("tile_out", block=128, params=[("omap", "ptr"), ("tiles", "i32")]) as sk:
        pool = sk.smem_pool()
        stores = lang.StorePipeline(pool, 2, (32, 32), "i32")
        pool.commit()
        tid = sk.thread_rank()
        for t in lang.range(sk.param("tiles") if tiles is None else tiles):
            if acquire:
                with if_then(tid == 0):
                    stores.acquire()
            sk.sync_threads()
            for j in range(8):
                sk.store(t * 8 + j, stores.buffer(t), j * 128 + tid)
            sk.fence_proxy_async()
            sk.sync_threads()
            with if_then(tid == 0):
                stores.store(t, sk.param("omap"), [t * 32, 0])
        with if_then(tid == 0):
            stores.tail()
    return sk


def test_a_store_ring_rewritten_without_acquire_is_reported():
    assert _silent(_store_ring_kernel(True, 4)) == []
    assert _silent(_store_ring_kernel(True, None)) == []
    with pytest.raises(CompileError, match="writes a staging buffer of a ring of 2 that the bulk store of 2 trip"):
        _store_ring_kernel(False, 4).compile(emit="nvvm")
    with pytest.warns(SyncCheckWarning, match="in a launch of more than 2 trips"):
        _store_ring_kernel(False, None).compile(emit="nvvm")
