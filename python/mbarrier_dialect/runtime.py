"""Load cubins and launch kernels through the CUDA driver API (cuda-python).

This module is deliberately MLIR-free: it imports only the standard library,
numpy and (lazily, inside functions) ``cuda.bindings.driver``.  It can
therefore run on a GPU machine where neither MLIR nor this project is
installed -- copy its files (:func:`files`) anywhere, or import it by
path -- and execute cubins built elsewhere.  Shape and argument validation
happens before any CUDA call, so it works (and raises) on machines without
a GPU too.

Typical use::

    init()
    with Module.load(cubin) as mod, DeviceBuffer.empty((64,), "int32") as out:
        launch(mod.function("pingpong"), grid=(2,), block=(32,),
               args=[out, np.int32(1000)], cluster=(2,))
        print(out.to_numpy())

What is checked without CUDA lives in the files beside this one, which it
loads and whose names it re-exports (:data:`PARTS`): the launch shape
(runtime_launch_shape.py), the tensor-map rules (runtime_tensor_map.py) and
the debug-wait records (runtime_debug_waits.py). A copy of the runtime is
these files together (``files()``); this file loads them by path when it
is itself loaded by path.

Driver errors raise :class:`CudaError`.  A kernel fault (say an illegal
instruction) is reported by the synchronisation after the launch; the CUDA
context is unusable afterwards, so the process should exit.  The ``with``
blocks of modules and buffers still release what they hold after a fault,
each release attempted, and their failures (every call fails on a dead
context) do not replace the fault.

The driver is ``cuda.bindings.driver``, looked up through :func:`_driver`
at every call (a test may replace that function with a stand-in).
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib
import importlib.util
import math
import operator
import os

import numpy as np

#: The modules beside this file that it loads (a copy of the runtime is
#: runtime.py and these: :func:`files`).
PARTS = ("runtime_launch_shape", "runtime_tensor_map", "runtime_debug_waits")


def files() -> list:
    """The paths of the runtime's files (this one and its :data:`PARTS`):
    what a copy of it needs beside it."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, name + ".py") for name in ("runtime",) + PARTS]


def _part(name: str):
    """Part `name` of the runtime: the package's module, or, where this file
    was loaded by path (a device runner, a copy of the runtime), the file
    beside it loaded by path too (a module of this load's own)."""
    if __package__:
        return importlib.import_module(f"{__package__}.{name}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    if not os.path.isfile(path):
        raise ImportError(f"{__file__} needs {name}.py beside it: copy all of the runtime's "
                          f"files ({', '.join(os.path.basename(f) for f in files())})")
    spec = importlib.util.spec_from_file_location(f"{__name__}.{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_launch_shape = _part("runtime_launch_shape")
_tensor_map = _part("runtime_tensor_map")
_debug_waits = _part("runtime_debug_waits")

PORTABLE_CLUSTER_LIMIT = _launch_shape.PORTABLE_CLUSTER_LIMIT
MAX_CLUSTER_SIZE = _launch_shape.MAX_CLUSTER_SIZE
MAX_THREADS_PER_BLOCK = _launch_shape.MAX_THREADS_PER_BLOCK
DEFAULT_SHARED_MEM_LIMIT = _launch_shape.DEFAULT_SHARED_MEM_LIMIT
validate_launch_shape = _launch_shape.validate_launch_shape
ClusterSizeError = _launch_shape.ClusterSizeError
_fmt = _launch_shape._fmt

TENSOR_MAP_BYTES = _tensor_map.TENSOR_MAP_BYTES
TENSOR_MAP_ALIGN = _tensor_map.TENSOR_MAP_ALIGN
tensor_map_arguments = _tensor_map.tensor_map_arguments

DEBUG_WAITS_STATE = _debug_waits.DEBUG_WAITS_STATE
DEBUG_WAITS_SITES = _debug_waits.DEBUG_WAITS_SITES
DEBUG_WAITS_HEADER_BYTES = _debug_waits.DEBUG_WAITS_HEADER_BYTES
DEBUG_WAITS_RECORDS = _debug_waits.DEBUG_WAITS_RECORDS
DEBUG_WAITS_RECORD_BYTES = _debug_waits.DEBUG_WAITS_RECORD_BYTES
DEBUG_WAIT_MARK = _debug_waits.DEBUG_WAIT_MARK
debug_wait_sites = _debug_waits.debug_wait_sites
barrier_state_text = _debug_waits.barrier_state_text

_ELF_MAGIC = b"\x7fELF"

_device = None  # CUdevice of the initialised device, set by init()
# device ordinal -> (CUdevice, its retained primary CUcontext), filled by init()
_contexts: dict = {}


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
    the driver library itself cannot be loaded.

    The primary context of a device is retained once, on the first call for
    it, and released when the interpreter exits; later calls only make it
    current again."""
    global _device
    driver = _driver()
    if device_ordinal in _contexts:
        device, context = _contexts[device_ordinal]
    else:
        try:
            result = driver.cuInit(0)
        except RuntimeError as exc:  # libcuda missing: raised while loading it
            raise RuntimeError(f"CUDA driver unavailable: {exc}") from exc
        check(result, "cuInit")
        device = check(driver.cuDeviceGet(device_ordinal), "cuDeviceGet")
        context = check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
        if not _contexts:
            atexit.register(_release_at_exit)
        _contexts[device_ordinal] = (device, context)
    check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    _device = device
    return device


def _release_at_exit() -> None:
    """release_contexts, quiet: after a kernel fault the context is dead and
    its release fails too, which an exiting process cannot act on."""
    try:
        release_contexts()
    except CudaError:
        pass


def release_contexts() -> None:
    """Release every primary context :func:`init` retained (done at exit;
    a later :func:`init` retains again).  Every release is
    attempted; the first failure is raised after the others."""
    global _device
    driver = _driver()
    errors = []
    while _contexts:
        _, (device, _) = _contexts.popitem()
        try:
            check(driver.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease")
        except CudaError as exc:
            errors.append(exc)
    _device = None
    if errors:
        raise errors[0]


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


@contextlib.contextmanager
def _freed_on_error(resource):
    """Free `resource` (its ``__exit__``) if the block raises; keep it otherwise."""
    try:
        yield resource
    except BaseException as exc:
        resource.__exit__(type(exc), exc, exc.__traceback__)
        raise


# --------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------

class Module:
    """A loaded cubin.  Use :meth:`load`; unload with :meth:`unload` or a
    ``with`` block.  Function handles die with the module."""

    def __init__(self, handle):
        self._handle = handle
        self._report = None  # its DebugWaitReport (set by load)

    @property
    def debug_waits(self) -> bool:
        """Whether the cubin was built with debug waits (it defines
        ``DEBUG_WAITS_STATE``)."""
        return self._report is not None

    @classmethod
    def load(cls, cubin: bytes) -> "Module":
        """Load cubin bytes (cuModuleLoadData) into the current context."""
        cubin = bytes(cubin)
        if not cubin.startswith(_ELF_MAGIC):
            raise ValueError(
                f"not a cubin: expected the ELF magic {_ELF_MAGIC!r}, got {cubin[:4]!r}")
        _current_device()
        module = cls(check(_driver().cuModuleLoadData(cubin), "cuModuleLoadData"))
        with _freed_on_error(module):
            module._report = DebugWaitReport.attach(module._handle)
        if module._report is not None:
            _debug_wait_reports.append(module._report)
        return module

    def function(self, name: str):
        """The ``CUfunction`` of kernel ``name``; ``LookupError`` if absent."""
        driver = _driver()
        err, func = driver.cuModuleGetFunction(self._handle, name.encode())
        if err == driver.CUresult.CUDA_ERROR_NOT_FOUND:
            raise LookupError(f"kernel {name!r} not found in the cubin")
        func = check((err, func), f"cuModuleGetFunction({name!r})")
        _note_function(self, func)
        return func

    def unload(self) -> None:
        """Unload the module (idempotent); its debug-wait report buffer goes
        with it."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            report, self._report = self._report, None
            try:
                check(_driver().cuModuleUnload(handle), "cuModuleUnload")
            finally:
                if report is not None:
                    _debug_wait_reports.remove(report)
                    report.free()

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
        with _freed_on_error(buf):
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
# TMA tensor maps (their rules: runtime_tensor_map.py)
# --------------------------------------------------------------------------

class TensorMap:
    """A tiled TMA descriptor (``CUtensorMap``): the 128 bytes
    ``cuTensorMapEncodeTiled`` wrote (:attr:`descriptor`) and what it
    describes, in numpy order (outermost dimension first).

    A kernel takes it as a generic pointer to the descriptor in global
    memory (the upstream MLIR flow: ``!llvm.ptr``, 64-byte aligned):
    :func:`launch` passes a ``TensorMap`` argument as the address of a
    device copy of the descriptor (:meth:`device_buffer`, made on first use
    and freed by :meth:`free` or a ``with`` block). The buffer it describes
    must outlive the kernels that use it."""

    def __init__(self, descriptor: bytes, *, dtype: str, shape: tuple[int, ...],
                 box: tuple[int, ...], strides: tuple[int, ...], address: int):
        if len(descriptor) != TENSOR_MAP_BYTES:
            raise ValueError(f"a tensor map is {TENSOR_MAP_BYTES} bytes, got {len(descriptor)}")
        self.descriptor = bytes(descriptor)
        self.dtype, self.shape, self.box, self.strides = dtype, shape, box, strides
        self.address = address
        self._device: DeviceBuffer | None = None

    @property
    def box_bytes(self) -> int:
        """Bytes one load of a whole box moves (the ``tx_count`` to expect,
        out-of-bounds elements included)."""
        return math.prod(self.box) * _tensor_map.element_bytes(self.dtype)

    def device_buffer(self) -> DeviceBuffer:
        """A device copy of the descriptor (cuMemAlloc is 256-byte aligned,
        so 64-byte aligned), made on first use."""
        if self._device is None:
            buf = DeviceBuffer.empty((TENSOR_MAP_BYTES,), np.uint8)
            buf.copy_from(np.frombuffer(self.descriptor, np.uint8))
            if buf.ptr % TENSOR_MAP_ALIGN:
                buf.free()
                raise RuntimeError(f"the descriptor copy at {buf.ptr:#x} is not "
                                   f"{TENSOR_MAP_ALIGN}-byte aligned")
            self._device = buf
        return self._device

    def free(self) -> None:
        """Free the device copy of the descriptor (idempotent)."""
        if self._device is not None:
            buf, self._device = self._device, None
            buf.free()

    def __enter__(self) -> "TensorMap":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        _release(self.free, exc_type)


def encode_tensor_map_tiled(buffer: DeviceBuffer, dtype=None, shape=None, box=None, *,
                            strides=None, element_strides=None, swizzle: str = "none",
                            l2_promotion: str = "128B", oob_fill: str = "zero") -> TensorMap:
    """``cuTensorMapEncodeTiled`` for the tensor of `dtype` and `shape`
    (default: the buffer's) at the start of `buffer`, loaded in boxes of
    `box` elements.  `shape`, `box`, `strides` (bytes, like numpy's; default
    C-contiguous) and `element_strides` are in numpy order, outermost
    dimension first -- the driver's order reversed.  `swizzle` is
    ``"none"``/``"32B"``/``"64B"``/``"128B"``, `l2_promotion`
    ``"none"``/``"64B"``/``"128B"``/``"256B"``, `oob_fill` ``"zero"``/``"nan"``
    (what out-of-bounds elements of a box read as).

    The arguments are checked before any CUDA call (``ValueError`` in the
    driver's words); a driver refusal raises :class:`CudaError`.  Returns a
    :class:`TensorMap`."""
    if not isinstance(buffer, DeviceBuffer):
        raise TypeError(f"a tensor map describes a DeviceBuffer, got {type(buffer).__name__}")
    dtype = buffer.dtype if dtype is None else dtype
    shape = buffer.shape if shape is None else shape
    if box is None:
        raise TypeError("encode_tensor_map_tiled() needs the box shape")
    a = tensor_map_arguments(buffer.ptr, dtype, shape, box, strides=strides,
                             element_strides=element_strides, swizzle=swizzle,
                             l2_promotion=l2_promotion, oob_fill=oob_fill, nbytes=buffer.nbytes)
    driver = _driver()
    _current_device()
    tensor_map = check(driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + a["cu_dtype"]),
        a["rank"], buffer.ptr, [driver.cuuint64_t(n) for n in a["global_dim"]],
        [driver.cuuint64_t(s) for s in a["global_strides"]],
        [driver.cuuint32_t(n) for n in a["box_dim"]],
        [driver.cuuint32_t(e) for e in a["element_strides"]],
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(driver.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + a["swizzle"]),
        getattr(driver.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" + a["l2_promotion"]),
        getattr(driver.CUtensorMapFloatOOBfill, "CU_TENSOR_MAP_FLOAT_OOB_FILL_" + a["oob_fill"])),
        "cuTensorMapEncodeTiled")
    descriptor = b"".join(int(word).to_bytes(8, "little") for word in tensor_map.opaque)
    return TensorMap(descriptor, dtype=a["dtype"], shape=a["shape"], box=a["box"],
                     strides=a["strides"], address=buffer.ptr)


# --------------------------------------------------------------------------
# Launching (the shape's rules: runtime_launch_shape.py)
# --------------------------------------------------------------------------

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
        elif isinstance(arg, TensorMap):
            storage.append(np.array([arg.device_buffer().ptr], dtype=np.uint64))
        elif isinstance(arg, np.generic) and arg.dtype.kind in "biuf":
            storage.append(np.array([arg], dtype=arg.dtype))
        else:
            raise TypeError(
                f"kernel argument {i}: expected a DeviceBuffer, a TensorMap or a numpy scalar "
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
    ``args`` items are :class:`DeviceBuffer` (passed as a 64-bit pointer),
    :class:`TensorMap` (the address of a device copy of its descriptor) or
    numpy scalars; anything else raises ``TypeError``.  Shapes and arguments
    are validated before any CUDA call.  With ``sync`` the context (or
    ``stream``) is synchronised, so kernel faults raise :class:`CudaError`
    here (for a kernel built with debug waits, a timed-out wait as
    :class:`WaitTimeoutError`: :func:`synchronize_reporting_waits`).

    A cluster of more than 8 CTAs (up to 16) is non-portable: the function
    is allowed non-portable cluster sizes first
    (``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED``) and the device
    asked whether such a cluster fits (``cuOccupancyMaxActiveClusters``);
    :class:`ClusterSizeError` where it does not.  A driver error of a
    cluster launch names the cluster size.
    """
    prepare_launch(function, grid, block, args, cluster, shared_mem, stream)()
    if sync and _handle(function) in _debug_wait_functions:
        synchronize_reporting_waits(stream)
    elif sync:
        _synchronize(stream)


def prepare_launch(function, grid, block, args, cluster=None, shared_mem: int = 0,
                   stream=None):
    """Everything :func:`launch` does before the driver call, once: the
    checks, the packed arguments, the launch configuration. Returns a
    function of no arguments that issues the launch (``cuLaunchKernelEx``)
    and does not wait for it, for timing loops that must not be bound by
    the Python side of a launch (``bench/gemm/run.py``,
    ``bench/attention/run.py``)."""
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
    what = "cuLaunchKernelEx"
    if cluster is not None:
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        dim = attr.value.clusterDim
        dim.x, dim.y, dim.z = cluster
        config.attrs = [attr]
        config.numAttrs = 1
        what += f" (a cluster of {math.prod(cluster)} CTAs)"
        if math.prod(cluster) > PORTABLE_CLUSTER_LIMIT:
            _allow_non_portable_cluster(function, config, cluster, block, shared_mem)

    def issue() -> None:
        keepalive  # noqa: B018  (the packed argument values live as long as this function)
        check(driver.cuLaunchKernelEx(config, function, params, 0), what)
    return issue


def _allow_non_portable_cluster(function, config, cluster, block, shared_mem: int) -> None:
    """Let `function` run in clusters of more than 8 CTAs and check that the
    device has room for one such cluster of it."""
    driver = _driver()
    ctas = math.prod(cluster)
    about = f"a cluster of {ctas} CTAs (non-portable: more than {PORTABLE_CLUSTER_LIMIT})"
    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    check(driver.cuFuncSetAttribute(function, attr, 1),
          f"cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) for {about}")
    active = check(driver.cuOccupancyMaxActiveClusters(function, config),
                   f"cuOccupancyMaxActiveClusters for {about}")
    if active == 0:
        raise ClusterSizeError(
            f"the device cannot run {about} of this kernel: cluster {_fmt(cluster)}, block "
            f"{_fmt(block)}, {shared_mem} bytes of dynamic shared memory "
            f"(cuOccupancyMaxActiveClusters found room for no cluster); use a cluster of at "
            f"most {PORTABLE_CLUSTER_LIMIT} CTAs or less shared memory per CTA")


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


# --------------------------------------------------------------------------
# Debug waits (compile(..., debug_waits=NS)): a timed-out wait is located
# --------------------------------------------------------------------------

# What a module built with debug waits holds and how its records read:
# runtime_debug_waits.py. Here: the driver calls (the report buffer a loaded
# module is given, the synchronization that reads it after a trap).
_debug_wait_functions: dict = {}   # CUfunction handle -> its module's report
_debug_wait_reports: list = []     # the reports of the loaded modules


class DebugWaitReport:
    """The report buffer of one module with debug waits: host memory mapped
    into the device, whose address the module's ``DEBUG_WAITS_STATE`` holds,
    and the module's wait sites."""

    NBYTES = _debug_waits.DEBUG_WAITS_REPORT_BYTES

    def __init__(self, sites: list, host: int):
        self.sites = sites
        self.host = host

    @classmethod
    def attach(cls, module_handle):
        """The report of a loaded module, or None where it has no debug
        waits (no ``DEBUG_WAITS_STATE`` global)."""
        driver = _driver()
        err, state, _ = driver.cuModuleGetGlobal(module_handle, DEBUG_WAITS_STATE.encode())
        if err == driver.CUresult.CUDA_ERROR_NOT_FOUND:
            return None
        check((err, state), f"cuModuleGetGlobal({DEBUG_WAITS_STATE!r})")
        table, size = check(driver.cuModuleGetGlobal(module_handle, DEBUG_WAITS_SITES.encode()),
                            f"cuModuleGetGlobal({DEBUG_WAITS_SITES!r})")
        text = np.zeros(int(size), dtype=np.uint8)
        check(driver.cuMemcpyDtoH(text.ctypes.data, table, int(size)), "cuMemcpyDtoH")
        sites = _debug_waits.sites_of_table(text.tobytes())
        host = int(check(driver.cuMemHostAlloc(cls.NBYTES, driver.CU_MEMHOSTALLOC_DEVICEMAP),
                         "cuMemHostAlloc"))
        report = cls(sites, host)
        try:
            ctypes.memset(host, 0, cls.NBYTES)
            device = check(driver.cuMemHostGetDevicePointer(host, 0), "cuMemHostGetDevicePointer")
            address = np.array([int(device)], dtype=np.uint64)
            check(driver.cuMemcpyHtoD(state, address.ctypes.data, 8), "cuMemcpyHtoD")
        except BaseException:
            report.free()
            raise
        return report

    def lines(self) -> tuple[list, bool]:
        """(the located lines of the records the stuck warps wrote, whether
        more warps were stuck than there are records)."""
        return _debug_waits.record_lines(ctypes.string_at(self.host, self.NBYTES), self.sites)

    def free(self) -> None:
        if self.host:
            host, self.host = self.host, 0
            check(_driver().cuMemFreeHost(host), "cuMemFreeHost")


class WaitTimeoutError(CudaError):
    """A kernel built with debug waits trapped: a wait's phase did not
    complete within the bound.  ``lines`` are the located lines of its
    stuck warps' records (``mbarrier.wait timed out at FILE:LINE:COL
    (barrier ..., parity P, waited N ns) cta R (ctaid X,Y,Z) warp W; barrier
    state ...``), one per warp, at most ``DEBUG_WAITS_RECORDS`` per module
    (``full``: more were stuck).  The CUDA context is unusable afterwards."""

    def __init__(self, error: CudaError, lines: list, full: bool = False):
        self.lines = list(lines)
        self.full = full
        RuntimeError.__init__(
            self, f"{error}\na debug wait timed out and trapped; its stuck warps reported:\n"
            + "\n".join(f"  {line}" for line in self.lines)
            + (f"\n  (and more: every one of the {DEBUG_WAITS_RECORDS} records was taken)"
               if full else ""))
        self.what, self.name, self.code = error.what, error.name, error.code


def debug_wait_lines() -> tuple[list, bool]:
    """The located lines of every loaded module with debug waits (after a
    failed synchronization that this runtime did not make itself), and
    whether any ran out of records."""
    lines, full = [], False
    for report in _debug_wait_reports:
        more, over = report.lines()
        lines += more
        full = full or over
    return lines, full


def _handle(function):
    try:
        return int(function)
    except (TypeError, ValueError):
        return None


def _note_function(module: "Module", function) -> None:
    if module._report is not None and _handle(function) is not None:
        _debug_wait_functions[_handle(function)] = module._report


def synchronize_reporting_waits(stream=None) -> None:
    """Synchronize the context (or `stream`); a failure after which a
    module's stuck warps have reported raises :class:`WaitTimeoutError`
    with their lines, any other failure the :class:`CudaError` as it is."""
    try:
        _synchronize(stream)
    except CudaError as error:
        lines, full = debug_wait_lines()
        if lines or full:
            raise WaitTimeoutError(error, lines, full) from error
        raise
