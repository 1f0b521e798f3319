// Inline-PTX helpers shared by the hand-written references of bench/.
#pragma once
#include <cstdint>

#define DEVICE __device__ __forceinline__

// -DREF_NO_UNROLL keeps every timed loop rolled (`#pragma unroll 1`), as our
// loops are: LLVM does not runtime-unroll loops around the convergent NVVM
// barrier intrinsics, while nvcc unrolls the inline-asm loops by 4.
#ifdef REF_NO_UNROLL
#define TIMED_LOOP _Pragma("unroll 1")
#else
#define TIMED_LOOP
#endif

DEVICE uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
DEVICE uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
DEVICE void cluster_sync() {
  asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}
DEVICE uint32_t mapa(uint32_t addr, uint32_t rank) {
  uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(addr), "r"(rank));
  return out;
}
