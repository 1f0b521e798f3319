"""A stand-in for ``cuda.bindings.driver``, for testing the runtime without a
GPU: the calls runtime.py makes, with the same ``(CUresult, *values)``
results, recorded in ``calls``. Device memory is host memory (bytearrays),
so copies in and out behave.

A kernel fault is modelled as the driver has it: ``fault`` makes the
synchronisation after a launch fail with that error, and from then on every
call fails with it (the context is dead), error-name queries excepted.
"""
from __future__ import annotations

import ctypes
import enum
from types import SimpleNamespace


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_NOT_FOUND = 500
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912


OK = CUresult.CUDA_SUCCESS


class FakeDriver:
    """``fault``: the error the synchronisation after a launch returns (None:
    the kernel runs fine). ``occupancy``: what cuOccupancyMaxActiveClusters
    says. ``fail``: name of a call -> the error it returns (once the context
    is alive), e.g. ``{"cuLaunchKernelEx": CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE}``."""

    CUresult = CUresult
    CUfunction_attribute = SimpleNamespace(
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8,
        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED=14)
    CUlaunchAttributeID = SimpleNamespace(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION=4)

    class CUlaunchConfig:
        attrs: list = []
        numAttrs = 0

    class CUlaunchAttribute:
        def __init__(self):
            self.id = None
            self.value = SimpleNamespace(clusterDim=SimpleNamespace(x=0, y=0, z=0))

    def __init__(self, *, fault: CUresult | None = None, occupancy: int = 1,
                 fail: dict | None = None, log=None):
        self.fault, self.occupancy, self.fail = fault, occupancy, dict(fail or {})
        self.dead: CUresult | None = None
        self.calls: list[tuple] = []
        self.memory: dict[int, bytearray] = {}
        self._next_address = 0x10000
        self._log = log  # a file to print each call to (for a test in a subprocess)

    # -- bookkeeping --------------------------------------------------------
    def _call(self, name: str, *args):
        self.calls.append((name, *args))
        if self._log is not None:
            print(name, *args, file=self._log, flush=True)
        if self.dead is not None:
            return self.dead
        return self.fail.get(name, OK)

    def names(self) -> list[str]:
        """The names of the calls made, in order."""
        return [c[0] for c in self.calls]

    # -- errors (work on a dead context too) --------------------------------
    def cuGetErrorName(self, err):
        return OK, CUresult(err).name.encode()

    def cuGetErrorString(self, err):
        return OK, f"the fake driver's {CUresult(err).name}".encode()

    # -- device and context -------------------------------------------------
    def cuInit(self, flags):
        return (self._call("cuInit", flags),)

    def cuDeviceGet(self, ordinal):
        return self._call("cuDeviceGet", ordinal), f"dev{ordinal}"

    def cuDevicePrimaryCtxRetain(self, device):
        return self._call("cuDevicePrimaryCtxRetain", device), f"ctx-{device}"

    def cuDevicePrimaryCtxRelease(self, device):
        return (self._call("cuDevicePrimaryCtxRelease", device),)

    def cuCtxSetCurrent(self, context):
        return (self._call("cuCtxSetCurrent", context),)

    # -- modules ------------------------------------------------------------
    def cuModuleLoadData(self, cubin):
        return self._call("cuModuleLoadData"), "module"

    def cuModuleGetFunction(self, module, name):
        return self._call("cuModuleGetFunction", name), f"fn:{name.decode()}"

    def cuModuleGetGlobal(self, module, name):
        # load() asks every module for its debug-wait state; the fake's
        # cubins have none (not logged: the call sequences the tests follow
        # are the launches'; test_runtime_debug_waits.py has its own fake).
        return CUresult.CUDA_ERROR_NOT_FOUND, 0, 0

    def cuModuleUnload(self, module):
        return (self._call("cuModuleUnload", module),)

    # -- memory -------------------------------------------------------------
    def cuMemAlloc(self, nbytes):
        err = self._call("cuMemAlloc", nbytes)
        address = self._next_address
        self._next_address += (nbytes + 255) // 256 * 256
        if err == OK:
            self.memory[address] = bytearray(nbytes)
        return err, address

    def cuMemcpyHtoD(self, dst, src, nbytes):
        err = self._call("cuMemcpyHtoD", dst, nbytes)
        if err == OK:
            self.memory[dst][:nbytes] = ctypes.string_at(src, nbytes)
        return (err,)

    def cuMemcpyDtoH(self, dst, src, nbytes):
        err = self._call("cuMemcpyDtoH", src, nbytes)
        if err == OK:
            ctypes.memmove(dst, bytes(self.memory[src][:nbytes]), nbytes)
        return (err,)

    def cuMemsetD8(self, dst, byte, nbytes):
        err = self._call("cuMemsetD8", dst, byte, nbytes)
        if err == OK:
            self.memory[dst][:nbytes] = bytes([byte]) * nbytes
        return (err,)

    def cuMemFree(self, ptr):
        err = self._call("cuMemFree", ptr)
        if err == OK:
            del self.memory[ptr]
        return (err,)

    # -- launching ----------------------------------------------------------
    def cuFuncSetAttribute(self, function, attribute, value):
        return (self._call("cuFuncSetAttribute", function, attribute, value),)

    def cuOccupancyMaxActiveClusters(self, function, config):
        return self._call("cuOccupancyMaxActiveClusters", function), self.occupancy

    def cuLaunchKernelEx(self, config, function, params, extra):
        cluster = None
        for attr in config.attrs[:config.numAttrs]:
            d = attr.value.clusterDim
            cluster = (d.x, d.y, d.z)
        grid = (config.gridDimX, config.gridDimY, config.gridDimZ)
        return (self._call("cuLaunchKernelEx", function, grid, cluster),)

    def cuCtxSynchronize(self):
        err = self._call("cuCtxSynchronize")
        if err == OK and self.fault is not None:
            self.dead = err = self.fault
        return (err,)
