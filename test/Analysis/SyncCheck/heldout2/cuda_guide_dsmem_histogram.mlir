// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cuda_guide_dsmem_histogram(
// Follows the CUDA C++ Programming Guide, "Distributed Shared Memory"
// (clusterHist_kernel: each CTA zeroes its bins_per_block bins in shared
// memory, cluster.sync(); every thread adds its inputs into the bin of
// rank binid / bins_per_block through cluster.map_shared_rank(smem, rank) and
// atomicAdd; cluster.sync() "to ensure all distributed shared memory
// operations are completed and no thread block exits while other thread
// blocks are still accessing distributed shared memory"; then each CTA adds
// its bins into the global histogram).
// A 2 x 1 cluster of 256-thread CTAs; nbins = 512, bins_per_block = 256 (so
// the clamped binid names rank 0 or 1); %array_size inputs (a parameter).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i32>
  gpu.func @cuda_guide_dsmem_histogram(%bins: !llvm.ptr<1>, %input: !llvm.ptr<1>, %array_size: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i256 = arith.constant 256 : i32
    %i511 = arith.constant 511 : i32
    %tid_x = gpu.thread_id x
    %tx = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %b0 = arith.muli %bid, %i256 : i32
    %tid = arith.addi %b0, %tx : i32
    %stride = arith.muli %grid, %i256 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    // for (i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
    %mine = llvm.getelementptr %smem[0, %tx] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
    llvm.store %i0, %mine : i32, !llvm.ptr<3>
    // cluster.sync(): every CTA's bins are zero before anyone adds.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.for %i = %tid to %array_size step %stride : i32 {
      %ip = llvm.getelementptr %input[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      %ldata = llvm.load %ip : !llvm.ptr<1> -> i32
      %lo = arith.maxsi %ldata, %i0 : i32
      %binid = arith.minsi %lo, %i511 : i32
      %dst_block_rank = arith.divui %binid, %i256 : i32
      %dst_offset = arith.remui %binid, %i256 : i32
      %local = llvm.getelementptr %smem[0, %dst_offset] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x i32>
      %dst_smem = nvvm.mapa %local, %dst_block_rank : !llvm.ptr<3> -> !llvm.ptr<7>
      %old = llvm.atomicrmw add %dst_smem, %i1 monotonic : !llvm.ptr<7>, i32
    }
    // cluster.sync(): all distributed adds are done, and no CTA exits while
    // another still adds into its shared memory.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %lb0 = arith.muli %rank, %i256 : i32
    %lb = arith.addi %lb0, %tx : i32
    %gp = llvm.getelementptr %bins[%lb] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %count = llvm.load %mine : !llvm.ptr<3> -> i32
    %old2 = llvm.atomicrmw add %gp, %count monotonic : !llvm.ptr<1>, i32
    gpu.return
  }
}
}
