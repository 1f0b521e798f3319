import numpy as np
from cuda.bindings import driver as d
def ck(r):
    err, *v = r if isinstance(r, tuple) else (r,)
    assert err == d.CUresult.CUDA_SUCCESS, err
    return v[0] if len(v) == 1 else v
ck(d.cuInit(0)); dev = ck(d.cuDeviceGet(0)); ck(d.cuCtxSetCurrent(ck(d.cuDevicePrimaryCtxRetain(dev))))
mod = ck(d.cuModuleLoadData(open("zero.cubin", "rb").read())); f = ck(d.cuModuleGetFunction(mod, b"zero"))
out = ck(d.cuMemAlloc(128)); ck(d.cuMemsetD8(out, 0xAB, 128))
a = np.array([int(out)], dtype=np.uint64); p = np.array([a.ctypes.data], dtype=np.uint64)
ck(d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, p.ctypes.data, 0)); ck(d.cuCtxSynchronize())
h = np.zeros(10, dtype=np.uint64); ck(d.cuMemcpyDtoH(h.ctypes.data, out, 80))
names = ["count5 arrive0", "count5 arrive0 again", "count5 arrive1", "count5 arrive0 after 1",
         "count1 expect_tx 4096 arrive0", "count2 arrive1", "count2 arrive1 (completes)",
         "count2 arrive0 after its phase", "count5 test_wait(0)", "count2 test_wait(0)"]
for n, v in zip(names, h):
    print(f"zero-arrive probe: {n}: 0x{int(v):016x}")
