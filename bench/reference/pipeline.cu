// Hand-written reference of examples/producer_consumer.py (`build(stages=4)`),
// for the compile-time comparison:
//   nvcc -O3 -arch=sm_90 -cubin -o pipeline.cubin pipeline.cu
// Warp 0 produces 32-int items into a ring of STAGES shared slots, warp 1
// consumes them (v -> 3 v + 1), with full/empty mbarrier pairs.
#include <cstdint>

constexpr int STAGES = 4;

__device__ __forceinline__ uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void wait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n\t.reg .pred p;\n\tW%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra W%=;\n\t}" ::"r"(bar), "r"(parity) : "memory");
}

extern "C" __global__ void pipeline_4stage(const int *src, int *out, int items) {
  __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
  __shared__ __align__(128) int ring[STAGES][32];
  int tid = threadIdx.x, lane = tid & 31;
  if (tid == 0)
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&full[s])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&empty[s])));
    }
  __syncthreads();
  for (int i = 0; i < items; ++i) {
    int s = i % STAGES;
    uint32_t phase = (i / STAGES) & 1;
    if (tid < 32) {
      wait(smem(&empty[s]), phase ^ 1);
      ring[s][lane] = src[(i & 4095) * 32 + lane];
      arrive(smem(&full[s]));
    } else {
      wait(smem(&full[s]), phase);
      out[i * 32 + lane] = ring[s][lane] * 3 + 1;
      arrive(smem(&empty[s]));
    }
  }
}
