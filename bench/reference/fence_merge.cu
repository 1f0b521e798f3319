// Hand-written reference for the run-time-stage row of BENCHMARKS.md's
// "Fence merging" section: the same protocol as bench/fence/kernels.py
// pp_stage4, in CUDA C++ with inline PTX, the remote address mapped once
// (mapa of the group's base) and offset by 8 * stage in the loop.
//   nvcc -O3 -arch=sm_90 -cubin -DREF_NO_UNROLL -o fence_merge.cubin fence_merge.cu
#include "ptx_helpers.cuh"

// 2-CTA ping-pong through 4 barriers, stage = i mod 4 at run time:
// relaxed.cluster arrive on the peer's barrier[stage], acquire.cluster wait
// on the own barrier[stage].
extern "C" __global__ void __cluster_dims__(2, 1, 1) ref_pp_stage4(long long *out, int iters) {
  __shared__ __align__(8) uint64_t bars[4];
  uint32_t local = smem_addr(bars), rank = cluster_rank();
  for (int s = 0; s < 4; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(local + 8 * s) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
  uint32_t remote = mapa(local, rank ^ 1);
  uint32_t stage = 0, phase = 0;
  long long t0 = clock64();
  TIMED_LOOP
  for (int i = 0; i < iters; ++i) {
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote + 8 * stage) : "memory");
    asm volatile("{\n\t.reg .pred p;\n\tWAIT%=:\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT%=;\n\t}" ::"r"(local + 8 * stage), "r"(phase) : "memory");
    if (++stage == 4) {
      stage = 0;
      phase ^= 1;
    }
  }
  out[rank] = clock64() - t0;
  cluster_sync();
}
