// Hand-written reference for the latency benchmarks: the same protocols as
// bench/latency/kernels.py, in CUDA C++ with inline PTX.
//   nvcc -O3 -arch=sm_90 -cubin -o mbarrier_latency.cubin mbarrier_latency.cu
// Kernel names are "ref_" + the name of our kernel for the same row.
#include "ptx_helpers.cuh"
DEVICE void init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arrive forms on a shared::cluster address (A) and wait forms (W).
enum { REL_CLUSTER = 0, UNQUALIFIED = 1, RELAXED_CLUSTER = 2 };
enum { ACQ_CLUSTER = 0, DEFAULT_WAIT = 1, RELAXED_WAIT = 2 };

template <int A> DEVICE void arrive_remote(uint32_t remote) {
  if (A == REL_CLUSTER)
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  else if (A == UNQUALIFIED)
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  else
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

template <int W> DEVICE void wait_parity(uint32_t bar, uint32_t phase) {
  if (W == ACQ_CLUSTER)
    asm volatile("{\n\t.reg .pred p;\n\tWAIT%=:\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT%=;\n\t}" ::"r"(bar), "r"(phase) : "memory");
  else if (W == DEFAULT_WAIT)
    asm volatile("{\n\t.reg .pred p;\n\tWAIT%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT%=;\n\t}" ::"r"(bar), "r"(phase) : "memory");
  else
    asm volatile("{\n\t.reg .pred p;\n\tWAIT%=:\n\t"
                 "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p bra WAIT%=;\n\t}" ::"r"(bar), "r"(phase) : "memory");
}

// 2-CTA remote ping-pong: arrive on the peer's barrier, wait on the own one.
template <int A, int W> DEVICE void pingpong(long long *out, int iters) {
  __shared__ __align__(8) uint64_t bar;
  uint32_t local = smem_addr(&bar), rank = cluster_rank();
  init(local, 1);
  cluster_sync();
  uint32_t remote = mapa(local, rank ^ 1);
  uint32_t phase = 0;
  long long t0 = clock64();
  TIMED_LOOP
  for (int i = 0; i < iters; ++i) {
    arrive_remote<A>(remote);
    wait_parity<W>(local, phase);
    phase ^= 1;
  }
  out[rank] = clock64() - t0;
  cluster_sync();
}

#define PINGPONG(NAME, A, W)                                                   \
  extern "C" __global__ void __cluster_dims__(2, 1, 1)                        \
      NAME(long long *out, int iters) { pingpong<A, W>(out, iters); }
PINGPONG(ref_pp_release_cluster__acquire_cluster, REL_CLUSTER, ACQ_CLUSTER)
PINGPONG(ref_pp_release_cluster__default, REL_CLUSTER, DEFAULT_WAIT)
PINGPONG(ref_pp_unqualified__default, UNQUALIFIED, DEFAULT_WAIT)
PINGPONG(ref_pp_unqualified__acquire_cluster, UNQUALIFIED, ACQ_CLUSTER)
PINGPONG(ref_pp_relaxed_cluster__relaxed_cluster, RELAXED_CLUSTER, RELAXED_WAIT)
PINGPONG(ref_pp_relaxed_cluster__acquire_cluster, RELAXED_CLUSTER, ACQ_CLUSTER)

// Lane 0 of two warps of one CTA, two local barriers.
extern "C" __global__ void ref_local_two_warps(long long *out, int iters) {
  __shared__ __align__(8) uint64_t bars[2];
  uint32_t warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[0])) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[1])) : "memory");
  }
  __syncthreads();
  if (threadIdx.x % 32 != 0)
    return;
  uint32_t mine = smem_addr(&bars[warp]), other = smem_addr(&bars[warp ^ 1]);
  uint32_t phase = 0;
  long long t0 = clock64();
  TIMED_LOOP
  for (int i = 0; i < iters; ++i) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(other) : "memory");
    wait_parity<DEFAULT_WAIT>(mine, phase);
    phase ^= 1;
  }
  out[warp] = clock64() - t0;
}

// Cluster of 4: CTA 0 arrives on CTAs 1..3, each replies on CTA 0's barrier.
template <bool Fenced> DEVICE void broadcast4(long long *out, int iters) {
  __shared__ __align__(8) uint64_t bar;
  uint32_t local = smem_addr(&bar), rank = cluster_rank();
  init(local, rank == 0 ? 3 : 1);
  cluster_sync();
  uint32_t leaves[3] = {mapa(local, 1), mapa(local, 2), mapa(local, 3)};
  uint32_t root = mapa(local, 0);
  uint32_t phase = 0;
  long long t0 = clock64();
  TIMED_LOOP
  for (int i = 0; i < iters; ++i) {
    if (rank == 0) {
      if (Fenced) {
        asm volatile("fence.acq_rel.cluster;" ::: "memory");
        for (int r = 0; r < 3; ++r) arrive_remote<RELAXED_CLUSTER>(leaves[r]);
      } else {
        for (int r = 0; r < 3; ++r) arrive_remote<REL_CLUSTER>(leaves[r]);
      }
      wait_parity<ACQ_CLUSTER>(local, phase);
    } else {
      wait_parity<ACQ_CLUSTER>(local, phase);
      if (Fenced) {
        asm volatile("fence.acq_rel.cluster;" ::: "memory");
        arrive_remote<RELAXED_CLUSTER>(root);
      } else {
        arrive_remote<REL_CLUSTER>(root);
      }
    }
    phase ^= 1;
  }
  out[rank] = clock64() - t0;
  cluster_sync();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) ref_bcast4_release(long long *out, int iters) {
  broadcast4<false>(out, iters);
}
extern "C" __global__ void __cluster_dims__(4, 1, 1) ref_bcast4_fence_relaxed(long long *out, int iters) {
  broadcast4<true>(out, iters);
}
