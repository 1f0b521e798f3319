// Hand-written reference of bench/stream/build.py's TMA streaming
// reduction, in the CUTLASS style (PipelineTmaAsync's protocol in inline
// PTX): a ring of D stages with a full and an empty mbarrier each, one
// producer thread issuing cp.async.bulk.tensor.2d into the stage after
// waiting on its empty barrier (producer phase starts at 1), four consumer
// warps waiting on the full barrier, summing their elements, then lane 0
// releasing the stage after __syncwarp. The producer drains the ring
// (producer_tail) before exit. Same tiles, same partition, same outputs as
// ours, so the two are compared element by element.
#include "ptx_helpers.cuh"

#ifndef DEPTH
#define DEPTH 5
#endif
#ifndef ROWS
#define ROWS 8
#endif
constexpr int COLS = 256;
constexpr int TILE = ROWS * COLS;
constexpr int CONSUMERS = 128;

DEVICE void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
DEVICE void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra WAIT_%=;\n}" ::"r"(bar), "r"(parity) : "memory");
}
DEVICE void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
DEVICE void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
DEVICE void tma_load_2d(uint32_t dst, const void *tmap, int x, int y, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"(tmap), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

extern "C" __global__ void __launch_bounds__(160)
tma_stream_ref(const void *tmap, int *out, int ntiles) {
  __shared__ alignas(128) int stages[DEPTH][TILE];
  __shared__ alignas(8) uint64_t full[DEPTH], empty[DEPTH];
  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < DEPTH; ++s) {
      mbar_init(smem_addr(&full[s]), 1);
      mbar_init(smem_addr(&empty[s]), CONSUMERS / 32);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const int grid = gridDim.x, b = blockIdx.x;
  const int count = (ntiles - b + grid - 1) / grid;
  if (tid == 0) {
    int j = 0;
    for (; j < count; ++j) {
      int s = j % DEPTH, phase = (j / DEPTH) & 1;
      mbar_wait(smem_addr(&empty[s]), phase ^ 1);
      tma_load_2d(smem_addr(stages[s]), tmap, 0, (b + j * grid) * ROWS, smem_addr(&full[s]));
      mbar_arrive_expect_tx(smem_addr(&full[s]), TILE * 4);
    }
    for (int k = 0; k < DEPTH; ++k, ++j)  // producer_tail
      mbar_wait(smem_addr(&empty[j % DEPTH]), ((j / DEPTH) & 1) ^ 1);
  }
  if (tid >= 32) {
    const int me = tid - 32;
    int acc = 0;
    for (int j = 0; j < count; ++j) {
      int s = j % DEPTH, phase = (j / DEPTH) & 1;
      mbar_wait(smem_addr(&full[s]), phase);
#pragma unroll
      for (int k = 0; k < TILE / CONSUMERS; ++k)
        acc += stages[s][me + k * CONSUMERS];
      __syncwarp();
      if ((me & 31) == 0)
        mbar_arrive(smem_addr(&empty[s]));
    }
    out[b * CONSUMERS + me] = acc;
  }
}
