"""The torch-facing entry of examples/attention.py, MLIR-free:
``forward(q, k, v, causal=False, scale=None) -> (o, lse)`` on CUDA tensors
[batch, heads, seq, head_dim] bf16 (``attention.forward`` calls it with the
compiler; on a machine without MLIR it runs what the cache holds).

* **Input checks**, before any CUDA call or allocation: the dtype (bf16),
  the device (all three on one CUDA device), the rank and shapes (q, k, v
  equal), the head dim (64, 128 or 256), ``causal`` a bool, ``scale`` a positive
  finite number; a ``ValueError`` naming the argument. Each of q, k, v is
  taken through its own TMA descriptor's strides where the [batch*heads,
  seq, head_dim] view the kernel loads exists: the head dim contiguous, the
  batch stride heads x the head stride (or one of batch, heads is 1), the
  row and head strides multiples of 16 bytes, the start 16-byte aligned.
  Any other layout (a transposed head dim, [b, s, h, d] permuted to
  [b, h, s, d] with b > 1, a broadcast head) is refused by name: call
  ``.contiguous()``. O and lse are new, contiguous.
* **The cache**: each configuration (``schedule.choose``'s fields) is
  compiled once and its cubin kept on disk in :func:`cache_dir`
  (``$MBARRIER_ATTENTION_CACHE``, else ``~/.cache/mbarrier-dialect/attention``;
  clear it with :func:`clear_cache` or by removing the folder), named by
  the SHA-256 of the kernel's MLIR source and the compiler's version
  (``versions.version_report``: the project, MLIR/LLVM, ptxas).
  ``index.json`` there maps a configuration to its newest cubin and what a
  launch needs, for a machine without MLIR (the GPU machine).
* **Launches** issue ``cuLaunchKernelEx`` on torch's current stream and
  allocate nothing but O and lse (torch's caching allocator): no
  synchronisation, capturable in a CUDA graph. The kernel reads its TMA
  descriptors from global memory; :class:`Descriptors` keeps one 128-byte
  device slot per distinct (address, shape, strides, box), written once:
  outside a capture by a synchronous copy from pinned memory (done before
  any later launch is issued, on any stream), inside a capture by a copy
  node of the graph (pinned source, never rewritten; such a slot is copied
  again by the next call that uses it, in or out of a capture, since the
  graph may never replay). A layout seen before costs no copy; slots are
  never freed (128 bytes per distinct layout). A launch with the same
  arguments as an earlier one (torch's allocator hands O and lse back)
  reuses its prepared ``cuLaunchKernelEx`` configuration.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import math
import numbers
import os
import shutil
from pathlib import Path

from . import schedule, shapes

HEAD_DIMS = (64, 128, 256)
CHUNK = 64                       # head-dim columns per TMA box (128 bytes of bf16)
SLOT = 128                       # bytes of a CUtensorMap
SLOTS_PER_CHUNK = 256
CACHE_ENV = "MBARRIER_ATTENTION_CACHE"

_runtime = None                  # set_runtime(), else mbarrier_dialect.runtime


def set_runtime(module) -> None:
    """Use `module` as the CUDA runtime (runtime.py loaded by path on a
    machine where the package is not installed)."""
    global _runtime
    _runtime = module


def runtime():
    global _runtime
    if _runtime is None:
        from mbarrier_dialect import runtime as rt
        _runtime = rt
    return _runtime


def _torch():
    """torch, imported on first use (a test replaces this function)."""
    import torch
    return torch


# ---------------------------------------------------------------------------
# Input checks: ValueError before any CUDA call
# ---------------------------------------------------------------------------

def view3(name: str, t) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The [batch*heads, seq, head_dim] view of tensor `t` [b, h, s, d]
    that a TMA descriptor can load: (shape, strides in bytes), or a
    ValueError naming `name` and what is wrong with its layout."""
    b, h, s, d = (int(n) for n in t.shape)
    sb, sh, ss, sd = (int(x) for x in t.stride())
    hint = f"; pass {name}.contiguous()"
    if sd != 1 and d > 1:
        raise ValueError(f"{name}: the head dim must be contiguous (stride 1), its stride is "
                         f"{sd} elements{hint}")
    if b > 1 and h > 1 and sb != h * sh:
        raise ValueError(f"{name}: strides {tuple(t.stride())} have no [batch*heads, seq, "
                         f"head_dim] view (the batch stride {sb} is not heads x the head "
                         f"stride, {h} x {sh}){hint}")
    # a dimension of size 1 has any stride in torch: the descriptor gets the dense one
    ss = ss if s > 1 else d
    fold = (sh if h > 1 else sb) if b * h > 1 else s * ss
    for what, st in (("head", fold), ("row", ss)):
        if st <= 0 or (2 * st) % 16:
            raise ValueError(f"{name}: the {what} stride ({st} elements, {2 * st} bytes) must "
                             f"be a positive multiple of 16 bytes for the TMA{hint}")
    if int(t.data_ptr()) % 16:
        raise ValueError(f"{name}: its data must start 16-byte aligned for the TMA, it starts "
                         f"at {int(t.data_ptr()):#x}")
    return (b * h, s, d), (2 * fold, 2 * ss, 2)


def check_tensor(name: str, t, dtype: str = "bfloat16", rank: int = 4) -> None:
    """A ValueError naming `name` unless `t` is a torch tensor of `dtype` on
    a CUDA device, of `rank` dimensions ([batch, heads, seq, head_dim] for 4)."""
    for attr in ("shape", "dtype", "device", "stride", "data_ptr"):
        if not hasattr(t, attr):
            raise ValueError(f"{name} must be a torch tensor, got {type(t).__name__}")
    if str(t.dtype) != f"torch.{dtype}":
        raise ValueError(f"{name} must be torch.{dtype}, got {t.dtype}")
    if getattr(t.device, "type", None) != "cuda":
        raise ValueError(f"{name} must be on a CUDA device, it is on {t.device}")
    if len(t.shape) != rank:
        what = "[batch, heads, seq, head_dim]" if rank == 4 else "[batch, heads, seq]"
        raise ValueError(f"{name} must be {what}, got shape {tuple(t.shape)}")


def check_inputs(q, k, v, causal, scale) -> tuple[int, int, int, int, float]:
    """(batch, heads, seq, head_dim, scale) of a valid call; else a
    ValueError naming what is wrong, before any CUDA call."""
    return _checked(q, k, v, causal, scale)[:5]


def _checked(q, k, v, causal, scale):
    """check_inputs' values and the three [b*h, s, d] views (view3)."""
    if not isinstance(causal, bool):
        raise ValueError(f"causal is a bool, got {type(causal).__name__}")
    tensors = {"q": q, "k": k, "v": v}
    for name, t in tensors.items():
        check_tensor(name, t)
    for name in ("k", "v"):
        if tuple(tensors[name].shape) != tuple(q.shape):
            raise ValueError(f"{name} has shape {tuple(tensors[name].shape)}, q "
                             f"{tuple(q.shape)}: they must be equal")
        if tensors[name].device != q.device:
            raise ValueError(f"{name} is on {tensors[name].device}, q on {q.device}")
    if getattr(q.device, "index", None) not in (None, 0):
        raise ValueError(f"q is on {q.device}: the kernels load into device 0's primary "
                         f"context (runtime.init), so the tensors must be on cuda:0")
    b, h, s, d = (int(n) for n in q.shape)
    if d not in HEAD_DIMS:
        raise ValueError(f"head_dim {d} is not supported: the kernel has head dims "
                         f"{HEAD_DIMS}")
    shapes.check_shape(b, h, s, d, d)
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")
    views = [view3(name, t) for name, t in tensors.items()]
    return b, h, s, d, float(scale), views


# ---------------------------------------------------------------------------
# The cache of cubins
# ---------------------------------------------------------------------------

def cache_dir() -> Path:
    """Where the cubins live: ``$MBARRIER_ATTENTION_CACHE``, else
    ``~/.cache/mbarrier-dialect/attention``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "mbarrier-dialect" / "attention"


def clear_cache(directory: Path | None = None) -> None:
    """Remove the cache folder (and every cubin in it)."""
    shutil.rmtree(directory or cache_dir(), ignore_errors=True)


def fields_key(fields: dict) -> str:
    """A configuration's name in index.json: its fields, sorted."""
    return json.dumps(fields, sort_keys=True)


def source_key(source: str, compiler_version: str) -> str:
    """The SHA-256 a cubin is filed under."""
    h = hashlib.sha256()
    for part in (source, "\0", compiler_version):
        h.update(part.encode())
    return h.hexdigest()


class Compiler:
    """What the cache needs of examples/attention.py where MLIR is:
    ``build(fields)`` -> (the kernel's MLIR source, its launch facts, a
    function of no arguments returning the cubin); ``version()`` the
    compiler's version (asked once)."""

    def __init__(self, build, version):
        self.build, self._version_fn, self._version = build, version, None

    def version(self) -> str:
        if self._version is None:
            self._version = self._version_fn()
        return self._version


class Cache:
    """The cubins of `directory` (default :func:`cache_dir`): ``entry(fields)``
    -> (cubin bytes, launch facts), compiling with `compiler` on a miss;
    without a compiler (no MLIR) only index.json's entries."""

    def __init__(self, directory: Path | None = None, compiler: Compiler | None = None):
        self.directory = Path(directory) if directory else cache_dir()
        self.compiler = compiler
        self.compiled = 0            # cubins this object compiled (the tests count them)

    def _index(self) -> dict:
        try:
            return json.loads((self.directory / "index.json").read_text())
        except (OSError, ValueError):
            return {}

    def _write(self, name: str, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / f".{name}.{os.getpid()}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.directory / name)        # atomic: a reader sees all or nothing

    def entry(self, fields: dict) -> tuple[bytes, dict]:
        if self.compiler is None:
            row = self._index().get(fields_key(fields))
            path = self.directory / row["cubin"] if row else None
            if path is None or not path.is_file():
                raise LookupError(f"no cached cubin for {fields_key(fields)} in "
                                  f"{self.directory} and no compiler here: call the entry "
                                  f"once where MLIR is installed, with this cache folder")
            return path.read_bytes(), row["launch"]
        source, launch, compile_cubin = self.compiler.build(fields)
        key = source_key(source, self.compiler.version())
        name = f"{launch['entry']}-{key[:24]}.cubin"
        path = self.directory / name
        if path.is_file():
            cubin = path.read_bytes()
        else:
            cubin = compile_cubin()
            self.compiled += 1
            self._write(name, cubin)
        index = self._index()
        if index.get(fields_key(fields), {}).get("cubin") != name:
            index[fields_key(fields)] = {"cubin": name, "launch": launch, "key": key}
            self._write("index.json", json.dumps(index, indent=1, sort_keys=True).encode())
        return cubin, launch


# ---------------------------------------------------------------------------
# TMA descriptors in device memory, capturable
# ---------------------------------------------------------------------------

class Descriptors:
    """One device slot (128 bytes, 128-byte aligned) per distinct tensor
    map, written once (see the module's docstring); chunks of slots are
    allocated outside captures only."""

    def __init__(self):
        self.slots: dict = {}        # key -> (device address, pinned host address)
        self.in_graphs: set = set()  # keys whose slot only a graph's copy node writes
        self.chunks: list = []       # (device base, pinned host base, used)
        self.copies = 0              # descriptor copies issued (the tests count them)

    def _free_slot(self, capturing: bool):
        rt = runtime()
        driver = rt._driver()
        if not self.chunks or self.chunks[-1][2] == SLOTS_PER_CHUNK:
            if capturing:
                raise RuntimeError("a new TMA descriptor chunk cannot be allocated during a "
                                   "CUDA graph capture: run the call once before capturing")
            nbytes = SLOTS_PER_CHUNK * SLOT
            dev = int(rt.check(driver.cuMemAlloc(nbytes), "cuMemAlloc"))
            host = int(rt.check(driver.cuMemHostAlloc(nbytes, 0), "cuMemHostAlloc"))
            self.chunks.append([dev, host, 0])
        chunk = self.chunks[-1]
        i = chunk[2]
        chunk[2] += 1
        return chunk[0] + i * SLOT, chunk[1] + i * SLOT

    def address(self, ptr: int, shape, strides, box, stream, capturing: bool) -> int:
        """The device address of the descriptor of the bf16 tensor at
        `ptr` (shape, strides in bytes, box: numpy order, 128-byte swizzle)."""
        key = (ptr, tuple(shape), tuple(strides), tuple(box))
        slot = self.slots.get(key)
        if slot is not None and key not in self.in_graphs:
            return slot[0]
        if slot is None:
            rt = runtime()
            import numpy as np
            extent = 2 + sum((n - 1) * st for n, st in zip(shape, strides))
            buf = rt.DeviceBuffer(ptr, (-(-extent // 2),), np.dtype(np.uint16))
            tm = rt.encode_tensor_map_tiled(buf, "bfloat16", shape, box, strides=strides,
                                            swizzle="128B")
            slot = self._free_slot(capturing)
            ctypes.memmove(slot[1], tm.descriptor, SLOT)
            self.slots[key] = slot
        self._copy(slot, stream, capturing)
        if capturing:
            self.in_graphs.add(key)      # written only when a graph replays: copy again
        else:
            self.in_graphs.discard(key)
        return slot[0]

    def _copy(self, slot, stream, capturing: bool) -> None:
        rt = runtime()
        driver = rt._driver()
        dev, host = slot
        if capturing:        # a copy node of the graph; the pinned source is never rewritten
            handle = driver.CUstream(stream) if hasattr(driver, "CUstream") else stream
            rt.check(driver.cuMemcpyHtoDAsync(dev, host, SLOT, handle), "cuMemcpyHtoDAsync")
        else:                # from pinned memory: complete when it returns
            rt.check(driver.cuMemcpyHtoD(dev, host, SLOT), "cuMemcpyHtoD")
        self.copies += 1


# ---------------------------------------------------------------------------
# The entry
# ---------------------------------------------------------------------------

class Forward:
    """The forward entry over a :class:`Cache`: loaded modules per
    configuration, the descriptor slots."""

    def __init__(self, cache: Cache):
        self.cache = cache
        self.descriptors = Descriptors()
        self.functions: dict = {}     # fields key -> (CUfunction, launch facts, module)
        self.chosen: dict = {}        # (head_dim, seq, causal) -> (CUfunction, launch facts)
        self.launches: dict = {}      # the arguments of a launch -> its prepared issue()
        self.sms = None               # the device's SMs: a persistent kernel's grid

    def _function(self, fields: dict):
        key = fields_key(fields)
        if key not in self.functions:
            cubin, launch = self.cache.entry(fields)
            rt = runtime()
            module = rt.Module.load(cubin)
            fn = module.function(launch["entry"])
            rt.set_max_dynamic_shared_memory(fn, launch["smem_bytes"])
            self.functions[key] = (fn, launch, module)
        return self.functions[key][:2]

    def __call__(self, q, k, v, causal=False, scale=None):
        b, h, s, d, scale, views = _checked(q, k, v, causal, scale)
        chosen = self.chosen.get((d, s, causal))
        if chosen is None:
            chosen = self.chosen[(d, s, causal)] = self._function(schedule.choose(d, s, causal))
        fn, launch = chosen
        torch = _torch()
        o = torch.empty((b, h, s, d), dtype=torch.bfloat16, device=q.device)
        lse = torch.empty((b, h, s), dtype=torch.float32, device=q.device)
        capturing = bool(torch.cuda.is_current_stream_capturing())
        handle = int(torch.cuda.current_stream(q.device).cuda_stream)
        rows = (launch["block_m"], launch["block_n"], launch["block_n"])
        maps = [self.descriptors.address(int(t.data_ptr()), shape, strides, (1, r, CHUNK),
                                         handle, capturing)
                for t, (shape, strides), r in zip((q, k, v), views, rows)]
        if launch["epilogue"] == "tma":
            maps.append(self.descriptors.address(int(o.data_ptr()), (b * h, s, d),
                                                 (2 * s * d, 2 * d, 2), (1, 64, CHUNK),
                                                 handle, capturing))
        key = (id(fn), *maps, int(o.data_ptr()), int(lse.data_ptr()), b * h, s, scale, handle)
        issue = self.launches.get(key)
        if issue is None:
            issue = self._prepare(fn, launch, maps, o, lse, b * h, s, scale, handle)
            if len(self.launches) >= 1024:     # new pointers every call: keep it bounded
                self.launches.clear()
            self.launches[key] = issue
        issue()
        return o, lse

    def _prepare(self, fn, launch, maps, o, lse, bh, s, scale, handle):
        """runtime.prepare_launch's issue() of one launch (checks, packed
        arguments, configuration), kept for the next call with the same
        arguments (torch's caching allocator gives O and lse back)."""
        import numpy as np
        persistent = launch["persistent"]
        n_in = 3
        args = [*(np.uint64(a) for a in maps[:n_in]), np.uint64(o.data_ptr()),
                *(np.uint64(a) for a in maps[n_in:]), np.uint64(lse.data_ptr()), np.int32(s),
                *[np.int32(bh)] * persistent, np.float32(scale * math.log2(math.e))]
        rt = runtime()
        if persistent and self.sms is None:
            self.sms = rt.sm_count()
        grid = shapes.grid(1, bh, s, launch["block_m"], self.sms if persistent else None)
        return rt.prepare_launch(fn, grid, launch["threads"], args, None,
                                 launch["smem_bytes"], handle)
