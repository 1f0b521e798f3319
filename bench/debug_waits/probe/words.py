import ctypes, sys, numpy as np
from cuda.bindings import driver as d
def ck(r, what):
    err, *v = r if isinstance(r, tuple) else (r,)
    if err != d.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what}: {err}")
    return v[0] if len(v) == 1 else v
ck(d.cuInit(0), "init"); dev = ck(d.cuDeviceGet(0), "dev"); ctx = ck(d.cuDevicePrimaryCtxRetain(dev), "ctx")
ck(d.cuCtxSetCurrent(ctx), "cur")
mod = ck(d.cuModuleLoadData(open("words.cubin", "rb").read()), "load")
f = ck(d.cuModuleGetFunction(mod, b"words"), "fn")
out = ck(d.cuMemAlloc(512), "alloc"); ck(d.cuMemsetD8(out, 0xAB, 512), "memset")
arg = np.array([int(out)], dtype=np.uint64)
params = np.array([arg.ctypes.data], dtype=np.uint64)
ck(d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params.ctypes.data, 0), "launch")
ck(d.cuCtxSynchronize(), "sync")
host = np.zeros(64, dtype=np.uint64)
ck(d.cuMemcpyDtoH(host.ctypes.data, out, 512), "dtoh")
names = ["ld", "ld.volatile", "proxyfence+ld", "ld.relaxed", "ld.shared::cluster", "generic ld", "atom.or 0"]
bars = ["init 1", "init 5, 2 arrivals", "init 1, arrive.expect_tx 4096", "init 1, 1 arrival (phase 1)"]
for i, b in enumerate(bars):
    print(f"bar {i} ({b}):", " ".join(f"{n}=0x{int(host[i*8+k]):016x}" for k, n in enumerate(names)))
print("arrive state tokens:", " ".join(f"0x{int(x):016x}" for x in host[32:36]))
# host-mapped memory written by a trapping kernel, read after the fault
hp = ck(d.cuMemHostAlloc(4096, d.CU_MEMHOSTALLOC_DEVICEMAP), "hostalloc")
ctypes.memset(int(hp), 0, 4096)
dp = ck(d.cuMemHostGetDevicePointer(hp, 0), "devptr")
t = ck(d.cuModuleGetFunction(mod, b"trapper"), "fn2")
arg2 = np.array([int(dp)], dtype=np.uint64); p2 = np.array([arg2.ctypes.data], dtype=np.uint64)
ck(d.cuLaunchKernel(t, 2, 1, 1, 64, 1, 1, 0, 0, p2.ctypes.data, 0), "launch2")
err = d.cuCtxSynchronize()
print("trapper sync:", err)
vals = np.frombuffer(ctypes.string_at(int(hp), 64 * 8), dtype=np.uint64)
print("host-mapped after trap:", sorted(set(hex(int(v)) for v in vals)), "nonzero", int((vals != 0).sum()), "of 64")
