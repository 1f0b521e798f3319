"""The runtime's side of debug waits, with a stand-in driver (no GPU): a
launch that fails after a timed-out wait raises WaitTimeoutError with the
located lines the device printed during the synchronization (captured from
file descriptor 1, also through C stdio's buffer, and still written to
stdout); any other failure stays the CudaError it was."""
from __future__ import annotations

import ctypes
import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"
LINE = ("mbarrier.wait timed out at k.py:12:9 (barrier group<1>[0] from k.py:7:11, parity 0, "
        "waited 200000512 ns) cta 0 (ctaid 0,0,0) warp 3; barrier word 0x0000000100000001 "
        "(raw, layout opaque)")
LAUNCH_FAILED = 719


class FakeDriver:
    """What runtime.py calls of cuda.bindings.driver, for one launch whose
    synchronization prints `printed` (through C stdio, as the driver does)
    and returns `result`."""

    class CUresult:
        CUDA_SUCCESS = 0
        CUDA_ERROR_NOT_FOUND = 500

    class CUlaunchConfig:
        pass

    def __init__(self, printed: str = "", result: int = 0, to_stderr: bool = False):
        self.printed, self.result, self.to_stderr = printed, result, to_stderr
        self.launches = 0

    def cuGetErrorName(self, err):
        return 0, {LAUNCH_FAILED: b"CUDA_ERROR_LAUNCH_FAILED"}.get(err, b"CUDA_ERROR_UNKNOWN")

    def cuGetErrorString(self, err):
        return 0, b"unspecified launch failure"

    def cuModuleLoadData(self, cubin):
        return 0, "module"

    def cuModuleGetFunction(self, module, name):
        return 0, 4242          # a CUfunction handle (int() of it is the handle)

    def cuLaunchKernelEx(self, config, function, params, extra):
        self.launches += 1
        return (0,)

    def cuCtxSynchronize(self):
        if self.printed and self.to_stderr:
            os.write(2, self.printed.encode() + b"\n")
        elif self.printed:      # buffered in C stdio until a flush
            ctypes.CDLL(None).printf(self.printed.encode() + b"\n")
        return (self.result,)


@pytest.fixture
def rt(monkeypatch):
    spec = importlib.util.spec_from_file_location("mbarrier_runtime_debug_waits", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "_device", object())   # no init(): the driver is fake
    return module


def _use(rt, monkeypatch, driver: FakeDriver) -> FakeDriver:
    monkeypatch.setattr(rt, "_driver", lambda: driver)
    return driver


def test_a_timed_out_wait_raises_with_its_lines(rt, monkeypatch, capfd):
    _use(rt, monkeypatch, FakeDriver(printed=f"other output\n{LINE}", result=LAUNCH_FAILED))
    with pytest.raises(rt.WaitTimeoutError) as info:
        rt.synchronize_capturing_waits()
    err = info.value
    assert isinstance(err, rt.CudaError)
    assert err.name == "CUDA_ERROR_LAUNCH_FAILED" and err.code == LAUNCH_FAILED
    assert err.lines == [LINE]
    assert err.output == f"other output\n{LINE}\n"
    message = str(err)
    assert message.startswith("cuCtxSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (719)")
    assert "a debug wait timed out and trapped" in message and "on this process's stdout" in message
    assert f"  {LINE}" in message
    # What the device printed still reaches stdout.
    assert capfd.readouterr().out == f"other output\n{LINE}\n"


def test_a_line_on_stderr_counts_too(rt, monkeypatch, capfd):
    _use(rt, monkeypatch, FakeDriver(printed=LINE, result=LAUNCH_FAILED, to_stderr=True))
    with pytest.raises(rt.WaitTimeoutError) as info:
        rt.synchronize_capturing_waits()
    assert info.value.lines == [LINE]
    captured = capfd.readouterr()
    assert captured.err == f"{LINE}\n" and captured.out == ""


def test_a_failure_without_a_timed_out_line_is_the_cuda_error(rt, monkeypatch, capfd):
    _use(rt, monkeypatch, FakeDriver(printed="a user's printf", result=LAUNCH_FAILED))
    with pytest.raises(rt.CudaError) as info:
        rt.synchronize_capturing_waits()
    assert not isinstance(info.value, rt.WaitTimeoutError)
    assert info.value.name == "CUDA_ERROR_LAUNCH_FAILED"
    assert capfd.readouterr().out == "a user's printf\n"


def test_a_clean_synchronization_returns_what_was_printed(rt, monkeypatch, capfd):
    _use(rt, monkeypatch, FakeDriver(printed="hello from the device"))
    assert rt.synchronize_capturing_waits() == "hello from the device\n"
    assert capfd.readouterr().out == "hello from the device\n"
    # File descriptor 1 is the original one again.
    os.write(1, b"after\n")
    assert capfd.readouterr().out == "after\n"


def test_launch_of_a_debug_wait_cubin_reports_the_timeout(rt, monkeypatch):
    driver = _use(rt, monkeypatch, FakeDriver(printed=LINE, result=LAUNCH_FAILED))
    cubin = b"\x7fELF" + b"\0" * 16 + rt.DEBUG_WAIT_MARK.encode() + b"k.py:12:9 (barrier"
    module = rt.Module.load(cubin)
    assert module.debug_waits
    function = module.function("k")
    with pytest.raises(rt.WaitTimeoutError, match="a debug wait timed out"):
        rt.launch(function, grid=1, block=32, args=[])
    assert driver.launches == 1
    with pytest.raises(rt.WaitTimeoutError):
        rt.launch_debug_waits(function, grid=1, block=32, args=[])


def test_launch_of_a_plain_cubin_is_not_captured(rt, monkeypatch, capfd):
    _use(rt, monkeypatch, FakeDriver(printed=LINE, result=LAUNCH_FAILED))
    module = rt.Module.load(b"\x7fELF" + b"\0" * 64)
    assert not module.debug_waits
    with pytest.raises(rt.CudaError) as info:
        rt.launch(module.function("k"), grid=1, block=32, args=[])
    assert not isinstance(info.value, rt.WaitTimeoutError)
    ctypes.CDLL(None).fflush(None)


def test_has_debug_waits_tells_the_builds_apart(rt):
    from mbarrier_dialect.lang import Kernel, MBarrier

    with Kernel("one_wait", block=32) as k:
        pool = k.smem_pool()
        bar = MBarrier(pool, 1)
        pool.commit()
        k.prologue({bar: 32})
        bar.arrive(0)
        bar.wait(0, 0)
    assert rt.has_debug_waits(k.compile(debug_waits=1_000_000).cubin)
    assert not rt.has_debug_waits(k.compile().cubin)
