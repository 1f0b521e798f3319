"""compiled.launch(grid=..., args=...): arguments converted by the kernel's
parameter types, launch shape from the lang Kernel or the declared one,
arrays copied in and back; without a GPU a clear NoGPUError. The launch
flow is checked against a recording stand-in for the CUDA runtime, and the
real runtime against a stand-in driver (fake_cuda_driver.py): a kernel
fault is the error raised, every buffer is freed, the context retained once."""

import numpy as np
import pytest

from mbarrier_dialect import compile as compile_module
from mbarrier_dialect import runtime
from mbarrier_dialect.lang import Kernel


def _kernel(cluster=2):
    with Kernel("scale", block=64, cluster=cluster, grid=4,
                params=[("out", "ptr"), ("n", "i32"), ("f", "f32")]) as k:
        k.store(k.param("n") * 2, k.param("out"), k.thread_rank())
    return k.compile()


def _has_gpu():
    try:
        runtime.require_gpu()
        return True
    except runtime.NoGPUError:
        return False


def test_without_a_gpu_launch_says_so():
    if _has_gpu():
        pytest.skip("a GPU is present")
    compiled = _kernel()
    with pytest.raises(runtime.NoGPUError, match="no usable CUDA GPU: "):
        compiled.launch(args=[np.zeros(64, np.int32), 3, 1.5])


@pytest.mark.parametrize("args, error, message", [
    ([np.zeros(64, np.int32), 3], TypeError, r"takes 3 arguments \(!llvm.ptr<1>, i32, f32\), got 2"),
    ([3, 3, 1.0], TypeError, r"argument 0 \(!llvm.ptr<1>\): a pointer takes a numpy array"),
    ([np.zeros(64, np.int32), True, 1.0], TypeError, r"argument 1 \(i32\): a bool is not a i32"),
    ([np.zeros(64, np.int32), 2**31, 1.0], ValueError, r"2147483648 does not fit in i32"),
    ([np.zeros(64, np.int32), 1.5, 1.0], TypeError, r"argument 1 \(i32\): got float"),
    ([np.zeros(64, np.int32), np.int64(1), 1.0], TypeError, r"got a numpy int64"),
    ([np.zeros((8, 8), np.int32)[:, ::2], 1, 1.0], ValueError, r"must be C-contiguous"),
])
def test_arguments_are_checked_before_cuda(args, error, message):
    with pytest.raises(error, match=message):
        _kernel().launch(args=args)


class FakeRuntime:
    """Records what launch() asks of the runtime; 'runs' the kernel by
    writing 7 into every pointer argument."""

    def __init__(self, monkeypatch):
        self.calls = []
        fake = self

        class Buffer:
            def __init__(self, array):
                self.array = np.array(array)
                self.freed = False

            @classmethod
            def from_numpy(cls, array):
                return cls(array)

            def to_numpy(self):
                return self.array

            def free(self):
                self.freed = True

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.free()

        class Module:
            @classmethod
            def load(cls, cubin):
                assert cubin[:4] == b"\x7fELF"
                return cls()

            def function(self, name):
                return f"fn:{name}"

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fake.calls.append(("unload",))

        def launch(function, grid, block, args, cluster=None, shared_mem=0):
            fake.calls.append(("launch", function, grid, block, cluster, args))
            for a in args:
                if isinstance(a, Buffer):
                    a.array[...] = 7

        monkeypatch.setattr(runtime, "require_gpu", lambda device=0: None)
        monkeypatch.setattr(runtime, "Module", Module)
        monkeypatch.setattr(runtime, "DeviceBuffer", Buffer)
        monkeypatch.setattr(runtime, "launch", launch)
        self.Buffer = Buffer


def test_launch_uses_the_kernels_shape_and_copies_arrays_back(monkeypatch):
    compiled = _kernel()
    fake = FakeRuntime(monkeypatch)
    out = np.zeros(64, np.int32)
    result = compiled.launch(args=[out, 3, 1.5])
    assert result[0] is out and (out == 7).all()
    (launch, unload) = fake.calls
    _, function, grid, block, cluster, args = launch
    assert function == "fn:scale"
    assert (grid, block, cluster) == ((4, 1, 1), (64, 1, 1), (2, 1, 1))
    assert args[1] == np.int32(3) and args[1].dtype == np.int32
    assert args[2] == np.float32(1.5) and args[2].dtype == np.float32
    assert args[0].freed and unload == ("unload",)
    # an explicit shape wins
    compiled.launch(args=[out, 3, 1.5], grid=8)
    assert fake.calls[-2][2] == (8, 1, 1)


def test_launch_of_a_compiled_mlir_module_uses_the_declared_shape(monkeypatch):
    text = """
    module attributes {gpu.container_module} {
      gpu.module @m {
        gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>,
                                                           known_cluster_size = array<i32: 2, 1, 1>} {
          gpu.return
        }
        gpu.func @other() kernel { gpu.return }
      }
    }"""
    compiled = compile_module(text)
    fake = FakeRuntime(monkeypatch)
    with pytest.raises(ValueError, match=r"the input has 2 kernels \(k, other\): pass kernel=NAME"):
        compiled.launch(args=[])
    compiled.launch(kernel="k", args=[np.zeros(4, np.int32)])
    assert fake.calls[0][2:5] == ((2, 1, 1), (32, 1, 1), (2, 1, 1))
    with pytest.raises(ValueError, match="kernel 'other' declares no block size: pass block="):
        compiled.launch(kernel="other", args=[])
    compiled.launch(kernel="other", args=[], block=(8, 2))
    assert fake.calls[-2][2:5] == ((1, 1, 1), (8, 2, 1), None)
    with pytest.raises(KeyError, match="no kernel named 'nope'"):
        compiled.launch(kernel="nope", args=[])


def test_launch_needs_the_cubin():
    with Kernel("k", block=32) as k:
        pass
    from mbarrier_dialect import CompileError
    with pytest.raises(CompileError, match="launch\\(\\) needs the cubin"):
        k.compile(emit="ptx").launch(args=[])


# --------------------------------------------------------------------------
# The real runtime over a stand-in driver
# --------------------------------------------------------------------------

from fake_cuda_driver import CUresult, FakeDriver  # noqa: E402  (test/python: pytest's rootdir path)


def _three_buffers():
    with Kernel("three", block=32, params=[("a", "ptr"), ("b", "ptr"), ("c", "ptr")]) as k:
        k.store(k.load(k.param("a"), k.thread_rank()), k.param("c"), k.thread_rank())
    return k.compile()


@pytest.fixture
def driver(monkeypatch):
    """Installs a FakeDriver under mbarrier_dialect.runtime (no context
    retained yet); returns a function that replaces it with a new one."""
    def use(**kwargs):
        fake = FakeDriver(**kwargs)
        monkeypatch.setattr(runtime, "_driver", lambda: fake)
        return fake

    monkeypatch.setattr(runtime, "_contexts", {})
    monkeypatch.setattr(runtime, "_device", None)
    monkeypatch.setattr(runtime.atexit, "register", lambda fn: None)
    return use


def test_a_kernel_fault_is_the_error_raised_and_every_buffer_is_freed(driver):
    compiled = _three_buffers()
    fake = driver(fault=CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION)
    arrays = [np.arange(32, dtype=np.int32) for _ in range(3)]
    with pytest.raises(runtime.CudaError) as err:
        compiled.launch(args=arrays)
    assert err.value.name == "CUDA_ERROR_ILLEGAL_INSTRUCTION"
    assert err.value.what == "cuCtxSynchronize"
    # after the fault: every buffer's free and the unload were still tried
    after = fake.names()[fake.names().index("cuCtxSynchronize") + 1:]
    assert after == ["cuMemFree"] * 3 + ["cuModuleUnload"]
    assert {c[1] for c in fake.calls if c[0] == "cuMemFree"} == set(fake.memory)


def test_launches_copy_back_and_retain_the_context_once(driver):
    compiled = _three_buffers()
    fake = driver()
    arrays = [np.arange(32, dtype=np.int32) + i for i in range(3)]
    for _ in range(3):
        compiled.launch(args=arrays)
    assert fake.names().count("cuDevicePrimaryCtxRetain") == 1
    assert fake.names().count("cuLaunchKernelEx") == 3
    assert fake.names().count("cuMemFree") == 9 and fake.memory == {}
    # (the stand-in runs no kernel: the arrays come back as they went)
    assert all((a == np.arange(32) + i).all() for i, a in enumerate(arrays))


def test_a_cluster_of_16_launches_non_portable(driver):
    with Kernel("wide", block=32, cluster=16, params=[("out", "ptr")]) as k:
        k.store(k.cluster_rank(), k.param("out"), k.cluster_rank())
    compiled = k.compile()
    fake = driver()
    compiled.launch(args=[np.zeros(16, np.int32)])
    assert ("cuLaunchKernelEx", "fn:wide", (16, 1, 1), (16, 1, 1)) in fake.calls
    assert "cuOccupancyMaxActiveClusters" in fake.names()
    fake = driver(occupancy=0)
    with pytest.raises(runtime.ClusterSizeError, match="cannot run a cluster of 16 CTAs"):
        compiled.launch(args=[np.zeros(16, np.int32)])
    assert fake.names().count("cuMemFree") == 1
