"""The runtime's side of debug waits, with a stand-in driver (no GPU): load()
finds a module's debug-wait state global (cuModuleGetGlobal), reads its wait
sites and gives it a host-mapped report buffer; a launch that fails after
the stuck warps wrote records there raises WaitTimeoutError with one located
line per record; any other failure stays the CudaError it was. The records
are written here at the offsets of debug_waits:: in MBarrierToNVVM.h (the
C++ definition), not through the runtime's own layout."""
from __future__ import annotations

import ctypes
import importlib.util
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "python" / "mbarrier_dialect" / "runtime.py"
LAUNCH_FAILED = 719
SITES = b"k.py:12:9\tgroup<1>\tk.py:7:11\nk.py:20:5\tfull\t\n\0"
STATE_PTR, SITES_PTR = 0x7000, 0x8000
# what the H200 returned for a barrier with 3 arrivals pending in phase 0 (the
# lower word is a register's old value, not the barrier's)
STATE = ((0x100000 - 3) << 43) | 0x0bebc600


def record(buf: int, slot: int, site: int, parity: int, index: int, waited: int, rank: int,
           warp: int, ctaid, state=None) -> None:
    """What a stuck warp writes (header 64 bytes, records of 64)."""
    at = buf + 64 + 64 * slot
    for offset, fmt, value in ((0, "<I", site + 1), (4, "<I", parity), (8, "<Q", index),
                               (16, "<Q", waited), (24, "<I", rank), (28, "<I", warp),
                               (32, "<I", ctaid[0]), (36, "<I", ctaid[1]), (40, "<I", ctaid[2])):
        ctypes.memmove(at + offset, struct.pack(fmt, value), struct.calcsize(fmt))
    if state is not None:
        ctypes.memmove(at + 48, struct.pack("<Q", state), 8)
        ctypes.memmove(at + 44, struct.pack("<I", 1), 4)


class FakeDriver:
    """What runtime.py calls of cuda.bindings.driver: a module with (or
    without) debug waits, whose synchronization runs `device` (the stuck
    warps' stores into the report buffer) and returns `result`."""

    CU_MEMHOSTALLOC_DEVICEMAP = 2

    class CUresult:
        CUDA_SUCCESS = 0
        CUDA_ERROR_NOT_FOUND = 500

    class CUlaunchConfig:
        pass

    def __init__(self, debug_waits: bool = True, result: int = 0, device=None):
        self.debug_waits, self.result, self.device = debug_waits, result, device
        self.launches = 0
        self.buffers = {}     # host address -> ctypes buffer
        self.state = None     # what load() wrote into the state global
        self.freed = []

    def cuGetErrorName(self, err):
        return 0, {LAUNCH_FAILED: b"CUDA_ERROR_LAUNCH_FAILED"}.get(err, b"CUDA_ERROR_UNKNOWN")

    def cuGetErrorString(self, err):
        return 0, b"unspecified launch failure"

    def cuModuleLoadData(self, cubin):
        return 0, "module"

    def cuModuleUnload(self, module):
        return (0,)

    def cuModuleGetGlobal(self, module, name):
        if not self.debug_waits:
            return self.CUresult.CUDA_ERROR_NOT_FOUND, 0, 0
        return {b"mbarrier_debug_waits": (0, STATE_PTR, 16),
                b"mbarrier_debug_wait_sites": (0, SITES_PTR, len(SITES))}.get(
                    name, (self.CUresult.CUDA_ERROR_NOT_FOUND, 0, 0))

    def cuMemcpyDtoH(self, dst, src, n):
        assert src == SITES_PTR and n == len(SITES)
        ctypes.memmove(dst, SITES, n)
        return (0,)

    def cuMemHostAlloc(self, n, flags):
        assert flags == self.CU_MEMHOSTALLOC_DEVICEMAP
        buf = ctypes.create_string_buffer(b"\xee" * n)    # not zero: load() must clear it
        self.buffers[ctypes.addressof(buf)] = buf
        return 0, ctypes.addressof(buf)

    def cuMemHostGetDevicePointer(self, host, flags):
        return 0, host

    def cuMemcpyHtoD(self, dst, src, n):
        assert dst == STATE_PTR and n == 8
        self.state = struct.unpack("<Q", ctypes.string_at(src, 8))[0]
        return (0,)

    def cuMemFreeHost(self, host):
        self.freed.append(host)
        return (0,)

    def cuModuleGetFunction(self, module, name):
        return 0, 4242          # a CUfunction handle (int() of it is the handle)

    def cuLaunchKernelEx(self, config, function, params, extra):
        self.launches += 1
        return (0,)

    def cuCtxSynchronize(self):
        if self.device:
            self.device(self.state)
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


CUBIN = b"\x7fELF" + b"\0" * 64


def test_load_gives_the_module_a_cleared_host_buffer_and_reads_its_sites(rt, monkeypatch):
    driver = _use(rt, monkeypatch, FakeDriver())
    module = rt.Module.load(CUBIN)
    assert module.debug_waits
    assert driver.state in driver.buffers                 # the buffer's device address
    assert set(ctypes.string_at(driver.state, rt.DebugWaitReport.NBYTES)) == {0}
    assert module._report.sites == [["k.py:12:9", "group<1>", "k.py:7:11"],
                                    ["k.py:20:5", "full", ""]]
    module.unload()
    assert driver.freed == [driver.state]


def test_a_timed_out_wait_raises_with_one_located_line_per_record(rt, monkeypatch):
    def device(buf):
        record(buf, 0, site=0, parity=0, index=0, waited=200000512, rank=0, warp=3,
               ctaid=(0, 0, 0), state=STATE)
        record(buf, 1, site=1, parity=1, index=2, waited=200001024, rank=1, warp=0,
               ctaid=(5, 1, 0))                              # its state not read
    driver = _use(rt, monkeypatch, FakeDriver(result=LAUNCH_FAILED, device=device))
    module = rt.Module.load(CUBIN)
    function = module.function("k")
    with pytest.raises(rt.WaitTimeoutError) as info:
        rt.launch(function, grid=1, block=32, args=[])
    err = info.value
    assert driver.launches == 1
    assert isinstance(err, rt.CudaError)
    assert err.name == "CUDA_ERROR_LAUNCH_FAILED" and err.code == LAUNCH_FAILED
    assert err.lines == [
        "mbarrier.wait timed out at k.py:12:9 (barrier group<1>[0] from k.py:7:11, parity 0, "
        "waited 200000512 ns) cta 0 (ctaid 0,0,0) warp 3; barrier state 0x7fffe800 "
        "(phase 0, pending arrivals 3, tx field 0x000; sm_90 layout)",
        "mbarrier.wait timed out at k.py:20:5 (barrier full[2], parity 1, waited 200001024 ns) "
        "cta 1 (ctaid 5,1,0) warp 0; barrier state not read"]
    assert not err.full
    message = str(err)
    assert message.startswith("cuCtxSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (719)")
    assert "a debug wait timed out and trapped" in message
    assert all(f"  {line}" in message for line in err.lines)


def test_every_record_taken_is_said(rt, monkeypatch):
    def device(buf):
        record(buf, 0, site=0, parity=0, index=0, waited=1, rank=0, warp=0, ctaid=(0, 0, 0))
        ctypes.memmove(buf, struct.pack("<I", 1), 4)           # the header's overflow mark
    _use(rt, monkeypatch, FakeDriver(result=LAUNCH_FAILED, device=device))
    function = rt.Module.load(CUBIN).function("k")
    with pytest.raises(rt.WaitTimeoutError) as info:
        rt.launch(function, grid=1, block=32, args=[])
    assert info.value.full and len(info.value.lines) == 1
    assert f"every one of the {rt.DEBUG_WAITS_RECORDS} records was taken" in str(info.value)


def test_a_failure_without_a_record_is_the_cuda_error(rt, monkeypatch):
    _use(rt, monkeypatch, FakeDriver(result=LAUNCH_FAILED))
    function = rt.Module.load(CUBIN).function("k")
    with pytest.raises(rt.CudaError) as info:
        rt.launch(function, grid=1, block=32, args=[])
    assert not isinstance(info.value, rt.WaitTimeoutError)
    assert info.value.name == "CUDA_ERROR_LAUNCH_FAILED"


def test_a_plain_cubin_has_no_report(rt, monkeypatch):
    driver = _use(rt, monkeypatch, FakeDriver(debug_waits=False, result=LAUNCH_FAILED))
    module = rt.Module.load(CUBIN)
    assert not module.debug_waits and not driver.buffers
    with pytest.raises(rt.CudaError) as info:
        rt.launch(module.function("k"), grid=1, block=32, args=[])
    assert not isinstance(info.value, rt.WaitTimeoutError)


@pytest.mark.parametrize("state, text", [
    # What the H200 returned (bench/results/debug_waits/dw_table.md): count 5
    # before any arrival; count 2 after its phase completed; count 1 with
    # 4096 bytes expected (the lower word a register's old value).
    (0x7fffd80000000000, "0x7fffd800 (phase 0, pending arrivals 5, tx field 0x000;"),
    (0xfffff00000000000, "0xfffff000 (phase 1, pending arrivals 2, tx field 0x000;"),
    (0x7ffffbfe00001000, "0x7ffffbfe (phase 0, pending arrivals 1, tx field 0x3fe;"),
])
def test_the_state_in_words(state, text):
    spec = importlib.util.spec_from_file_location("mbarrier_runtime_state", RUNTIME)
    rt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rt)
    assert rt.barrier_state_text(state).startswith(text)
