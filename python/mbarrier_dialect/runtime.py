"""Load cubins and launch kernels through the CUDA driver API (cuda-python).

This module is deliberately MLIR-free: it imports only the standard library,
numpy and (lazily, inside functions) ``cuda.bindings.driver``.  It can
therefore run on a GPU machine where neither MLIR nor this project is
installed -- copy the file anywhere, or import it by path -- and execute
cubins built elsewhere.  Shape and argument validation happens before any
CUDA call, so it works (and raises) on machines without a GPU too.

Typical use::

    init()
    with Module.load(cubin) as mod, DeviceBuffer.empty((64,), "int32") as out:
        launch(mod.function("pingpong"), grid=(2,), block=(32,),
               args=[out, np.int32(1000)], cluster=(2,))
        print(out.to_numpy())

Driver errors raise :class:`CudaError`.  A kernel fault (say an illegal
instruction) is reported by the synchronisation after the launch; the CUDA
context is unusable afterwards, so the process should exit.
"""
from __future__ import annotations

import math
import operator

import numpy as np

PORTABLE_CLUSTER_LIMIT = 8
MAX_THREADS_PER_BLOCK = 1024
DEFAULT_SHARED_MEM_LIMIT = 48 * 1024
_ELF_MAGIC = b"\x7fELF"

_device = None  # CUdevice of the initialised device, set by init()


def _driver():
    from cuda.bindings import driver

    return driver


class CudaError(RuntimeError):
    """A CUDA driver call failed.  ``name`` is the CUresult name (for example
    ``"CUDA_ERROR_ILLEGAL_INSTRUCTION"``), ``code`` its integer value."""

    def __init__(self, what: str, name: str, code: int, description: str = ""):
        message = f"{what} failed: {name} ({code})"
        if description:
            message += f": {description}"
        super().__init__(message)
        self.what = what
        self.name = name
        self.code = code


class NoGPUError(RuntimeError):
    """There is no usable CUDA GPU here: cuda-bindings is not installed, the
    driver library is missing, or the driver reports no device."""


def require_gpu(device_ordinal: int = 0):
    """:func:`init`, with every way of finding no usable GPU raised as
    :class:`NoGPUError` whose message says which."""
    try:
        return init(device_ordinal)
    except ImportError as exc:
        raise NoGPUError(f"no usable CUDA GPU: cuda-bindings is not installed ({exc}); "
                         "pip install cuda-bindings") from exc
    except CudaError as exc:
        raise NoGPUError(f"no usable CUDA GPU: {exc}") from exc
    except RuntimeError as exc:
        raise NoGPUError(f"no usable CUDA GPU: {exc}") from exc


def check(result, what: str):
    """Unpack a cuda-bindings ``(err, *values)`` result.

    Raises :class:`CudaError` when ``err`` is not ``CUDA_SUCCESS``; otherwise
    returns ``None``, the single value, or the tuple of values.
    """
    driver = _driver()
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        name_err, name = driver.cuGetErrorName(err)
        name = name.decode() if name_err == driver.CUresult.CUDA_SUCCESS else str(err)
        desc_err, desc = driver.cuGetErrorString(err)
        desc = desc.decode() if desc_err == driver.CUresult.CUDA_SUCCESS else ""
        raise CudaError(what, name, int(err), desc)
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


# --------------------------------------------------------------------------
# Device and context
# --------------------------------------------------------------------------

def init(device_ordinal: int = 0):
    """Initialise the driver and make ``device_ordinal``'s primary context
    current.  Returns the ``CUdevice``.  Raises :class:`CudaError` for a
    driver error (no device, driver too old, ...) and ``RuntimeError`` when
    the driver library itself cannot be loaded."""
    global _device
    driver = _driver()
    try:
        result = driver.cuInit(0)
    except RuntimeError as exc:  # libcuda missing: raised while loading it
        raise RuntimeError(f"CUDA driver unavailable: {exc}") from exc
    check(result, "cuInit")
    device = check(driver.cuDeviceGet(device_ordinal), "cuDeviceGet")
    context = check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    _device = device
    return device


def _current_device():
    return _device if _device is not None else init()


def _device_attribute(attribute: str) -> int:
    driver = _driver()
    attr = getattr(driver.CUdevice_attribute, attribute)
    return check(driver.cuDeviceGetAttribute(attr, _current_device()), "cuDeviceGetAttribute")


def device_name() -> str:
    """Name of the initialised device (``init()`` runs first if needed)."""
    name = check(_driver().cuDeviceGetName(256, _current_device()), "cuDeviceGetName")
    return name.split(b"\0", 1)[0].decode()


def compute_capability() -> tuple[int, int]:
    """``(major, minor)`` compute capability, e.g. ``(9, 0)``."""
    return (_device_attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
            _device_attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"))


def sm_count() -> int:
    """Number of streaming multiprocessors."""
    return _device_attribute("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")


def _release(release, exc_type) -> None:
    """Run a ``with``-block cleanup.  While another exception propagates, a
    failing cleanup (the context is dead after a kernel fault) is ignored so
    that it does not mask the original error."""
    try:
        release()
    except CudaError:
        if exc_type is None:
            raise


# --------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------

class Module:
    """A loaded cubin.  Use :meth:`load`; unload with :meth:`unload` or a
    ``with`` block.  Function handles die with the module."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def load(cls, cubin: bytes) -> "Module":
        """Load cubin bytes (cuModuleLoadData) into the current context."""
        cubin = bytes(cubin)
        if not cubin.startswith(_ELF_MAGIC):
            raise ValueError(
                f"not a cubin: expected the ELF magic {_ELF_MAGIC!r}, got {cubin[:4]!r}")
        _current_device()
        return cls(check(_driver().cuModuleLoadData(cubin), "cuModuleLoadData"))

    def function(self, name: str):
        """The ``CUfunction`` of kernel ``name``; ``LookupError`` if absent."""
        driver = _driver()
        err, func = driver.cuModuleGetFunction(self._handle, name.encode())
        if err == driver.CUresult.CUDA_ERROR_NOT_FOUND:
            raise LookupError(f"kernel {name!r} not found in the cubin")
        return check((err, func), f"cuModuleGetFunction({name!r})")

    def unload(self) -> None:
        """Unload the module (idempotent)."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            check(_driver().cuModuleUnload(handle), "cuModuleUnload")

    def __enter__(self) -> "Module":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        _release(self.unload, exc_type)


# --------------------------------------------------------------------------
# Device memory
# --------------------------------------------------------------------------

class DeviceBuffer:
    """Device memory holding an array of a fixed shape and dtype."""

    def __init__(self, ptr: int, shape: tuple[int, ...], dtype: np.dtype):
        self._ptr = ptr
        self.shape = shape
        self.dtype = dtype

    @classmethod
    def empty(cls, shape, dtype) -> "DeviceBuffer":
        """Allocate uninitialised memory (cuMemAlloc) for ``shape``/``dtype``."""
        shape = tuple(operator.index(n) for n in ((shape,) if isinstance(shape, int) else shape))
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        _current_device()
        ptr = check(_driver().cuMemAlloc(max(nbytes, 1)), "cuMemAlloc")
        return cls(int(ptr), shape, dtype)

    @classmethod
    def from_numpy(cls, arr: np.ndarray) -> "DeviceBuffer":
        """Allocate a buffer like ``arr`` and copy ``arr`` into it."""
        arr = np.asarray(arr)
        buf = cls.empty(arr.shape, arr.dtype)
        buf.copy_from(arr)
        return buf

    @property
    def ptr(self) -> int:
        """Device address, as an int."""
        if self._ptr is None:
            raise ValueError("DeviceBuffer used after free()")
        return self._ptr

    @property
    def nbytes(self) -> int:
        """Size of the buffer in bytes."""
        return math.prod(self.shape) * self.dtype.itemsize

    def copy_from(self, arr: np.ndarray) -> None:
        """Copy a host array of the buffer's shape and dtype (cuMemcpyHtoD)."""
        arr = np.ascontiguousarray(arr)
        if arr.shape != self.shape or arr.dtype != self.dtype:
            raise ValueError(f"cannot copy a {arr.dtype}{list(arr.shape)} array into a "
                             f"{self.dtype}{list(self.shape)} buffer")
        if self.nbytes:
            check(_driver().cuMemcpyHtoD(self.ptr, arr.ctypes.data, self.nbytes), "cuMemcpyHtoD")

    def fill_bytes(self, byte: int) -> None:
        """Set every byte of the buffer to ``byte`` (cuMemsetD8)."""
        if self.nbytes:
            check(_driver().cuMemsetD8(self.ptr, byte & 0xFF, self.nbytes), "cuMemsetD8")

    def to_numpy(self) -> np.ndarray:
        """Copy the buffer into a new host array (cuMemcpyDtoH)."""
        out = np.empty(self.shape, self.dtype)
        if self.nbytes:
            check(_driver().cuMemcpyDtoH(out.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
        return out

    def free(self) -> None:
        """Release the memory (idempotent)."""
        if self._ptr is not None:
            ptr, self._ptr = self._ptr, None
            check(_driver().cuMemFree(ptr), "cuMemFree")

    def __enter__(self) -> "DeviceBuffer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        _release(self.free, exc_type)


# --------------------------------------------------------------------------
# Launching
# --------------------------------------------------------------------------

def _fmt(dims) -> str:
    return "(" + ",".join(str(d) for d in dims) + ")"


def _dims(value, what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} must have 1 to 3 dimensions, got {dims!r}")
    dims = tuple(operator.index(d) for d in dims) + (1,) * (3 - len(dims))
    if any(d < 1 for d in dims):
        raise ValueError(f"{what} {_fmt(dims)} has a dimension < 1")
    return dims


def validate_launch_shape(grid, block, cluster=None):
    """Check and pad launch dimensions without touching CUDA.

    Returns ``(grid, block, cluster)`` as 3-tuples (``cluster`` stays None
    when not given); raises ``ValueError`` for a dimension < 1, a block of
    more than 1024 threads, a cluster of more than 8 CTAs (the portable
    limit) or a grid that is not a multiple of the cluster.
    """
    grid = _dims(grid, "grid")
    block = _dims(block, "block")
    threads = math.prod(block)
    if threads > MAX_THREADS_PER_BLOCK:
        raise ValueError(f"block {_fmt(block)} has {threads} threads, more than "
                         f"the limit of {MAX_THREADS_PER_BLOCK}")
    if cluster is not None:
        cluster = _dims(cluster, "cluster")
        ctas = math.prod(cluster)
        if ctas > PORTABLE_CLUSTER_LIMIT:
            raise ValueError(f"cluster of {ctas} CTAs exceeds the portable limit "
                             f"of {PORTABLE_CLUSTER_LIMIT}")
        if any(g % c for g, c in zip(grid, cluster)):
            raise ValueError(f"grid {_fmt(grid)} is not a multiple of cluster {_fmt(cluster)}")
    return grid, block, cluster


def _pack_args(args):
    """Build the ``void*[]`` kernel-parameter array.

    Returns ``(address, keepalive)``: the array's address (0 when there are
    no arguments) and the host arrays it points into, which must outlive the
    launch call (the driver copies the values during the call).
    """
    storage = []
    for i, arg in enumerate(args):
        if isinstance(arg, DeviceBuffer):
            storage.append(np.array([arg.ptr], dtype=np.uint64))
        elif isinstance(arg, np.generic) and arg.dtype.kind in "biuf":
            storage.append(np.array([arg], dtype=arg.dtype))
        else:
            raise TypeError(
                f"kernel argument {i}: expected a DeviceBuffer or a numpy scalar "
                f"(np.int32(5), np.uint64(...), np.float32(...)), got {type(arg).__name__}")
    if not storage:
        return 0, storage
    pointers = np.array([s.ctypes.data for s in storage], dtype=np.uint64)
    return pointers.ctypes.data, (storage, pointers)


def set_max_dynamic_shared_memory(function, nbytes: int) -> None:
    """Allow ``function`` to use ``nbytes`` of dynamic shared memory (needed
    above 48 KiB)."""
    driver = _driver()
    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    check(driver.cuFuncSetAttribute(function, attr, nbytes), "cuFuncSetAttribute")


def _synchronize(stream) -> None:
    driver = _driver()
    if stream is None:
        check(driver.cuCtxSynchronize(), "cuCtxSynchronize")
    else:
        check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")


def launch(function, grid, block, args, cluster=None, shared_mem: int = 0,
           stream=None, sync: bool = True) -> None:
    """Launch ``function`` with cuLaunchKernelEx.

    ``grid``/``block``/``cluster`` are 1- to 3-tuples (padded with 1).
    ``args`` items are :class:`DeviceBuffer` (passed as a 64-bit pointer) or
    numpy scalars; anything else raises ``TypeError``.  Shapes and arguments
    are validated before any CUDA call.  With ``sync`` the context (or
    ``stream``) is synchronised, so kernel faults raise :class:`CudaError`
    here.
    """
    grid, block, cluster = validate_launch_shape(grid, block, cluster)
    params, keepalive = _pack_args(args)
    driver = _driver()
    if shared_mem > DEFAULT_SHARED_MEM_LIMIT:
        set_max_dynamic_shared_memory(function, shared_mem)
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = shared_mem
    config.hStream = 0 if stream is None else stream
    if cluster is not None:
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        dim = attr.value.clusterDim
        dim.x, dim.y, dim.z = cluster
        config.attrs = [attr]
        config.numAttrs = 1
    check(driver.cuLaunchKernelEx(config, function, params, 0), "cuLaunchKernelEx")
    del keepalive  # the driver copied the argument values during the call
    if sync:
        _synchronize(stream)


def time_launch(function, grid, block, args, cluster=None, shared_mem: int = 0,
                stream=None) -> float:
    """Run one :func:`launch` between two CUDA events and return the elapsed
    milliseconds.  Waits for the kernel, so faults raise :class:`CudaError`."""
    driver = _driver()
    flags = driver.CUevent_flags.CU_EVENT_DEFAULT
    start = check(driver.cuEventCreate(flags), "cuEventCreate")
    try:
        end = check(driver.cuEventCreate(flags), "cuEventCreate")
        try:
            hstream = 0 if stream is None else stream
            check(driver.cuEventRecord(start, hstream), "cuEventRecord")
            launch(function, grid, block, args, cluster, shared_mem, stream, sync=False)
            check(driver.cuEventRecord(end, hstream), "cuEventRecord")
            check(driver.cuEventSynchronize(end), "cuEventSynchronize")
            return check(driver.cuEventElapsedTime(start, end), "cuEventElapsedTime")
        finally:
            driver.cuEventDestroy(end)
    finally:
        driver.cuEventDestroy(start)
