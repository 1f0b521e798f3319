// Correct-kernel corpus (issue 20): CuTe's TMA multicast test kernel, whose
// cluster synchronization is a called helper (cute::cluster_sync()), after
// the barrier init and at the end of every stage. The checker must say
// nothing about it.
//
// Source: NVIDIA/cutlass, test/unit/cute/hopper/tma_mcast_load_testbed.hpp
// (tma_test_device_cute: 32 threads per CTA, a cluster of cluster_size
// CTAs; the elected thread initializes the TMA barrier with 1,
// __syncthreads(), cute::cluster_sync(); per stage: the elected thread
// sets the transaction bytes (the whole tile, kTmaTransactionBytes) and
// issues its part of the tile multicast to every CTA of the cluster (mask
// (1 << cluster_size) - 1), __syncthreads(), wait_barrier(phase bit),
// phase ^= 1, CTA 0 writes the tile out, __syncthreads(),
// cute::cluster_sync()), include/cute/arch/cluster_sm90.hpp
// (cluster_sync() = cluster_arrive() + cluster_wait(): barrier.cluster.arrive,
// not .relaxed, so it also publishes the init; there is no
// fence.mbarrier_init in the source). The tensor copy of each CTA's part is
// a bulk copy of its 1024 bytes.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: .func cluster_sync
// CHECK: barrier.cluster.arrive;
// CHECK: .multicast::cluster

gpu.module @cute_tma_mcast_testbed {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  // cute::cluster_sync()
  func.func private @cluster_sync() {
    nvvm.cluster.arrive
    nvvm.cluster.wait
    return
  }
  gpu.func @k(%gin: !llvm.ptr<1>, %gout: !llvm.ptr<1>, %stages: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %tile_bytes = arith.constant 4096 : i32
    %part_bytes = arith.constant 1024 : i32
    %mask = arith.constant 15 : i16
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %elect_one_cta = arith.cmpi eq, %rank, %i0 : i32
    %elect_one_thr = nvvm.elect.sync -> i1
    %sA = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %tma_load_mbar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %elect_one_thr {
      // cute::initialize_barrier(tma_load_mbar[0], /* num_threads */ 1)
      mbarrier.init %tma_load_mbar[%c0], %i1 : !mbarrier.group<1>
    }
    // Ensures all CTAs in the Cluster have initialized
    gpu.barrier
    func.call @cluster_sync() : () -> ()
    %part_off = arith.muli %rank, %part_bytes : i32
    %dst = llvm.getelementptr %sA[%part_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
    %final = scf.for %stage = %c0 to %stages step %c1 iter_args(%tma_phase_bit = %i0) -> (i32) {
      %stage32 = arith.index_cast %stage : index to i32
      %goff0 = arith.muli %stage32, %tile_bytes : i32
      %goff = arith.addi %goff0, %part_off : i32
      scf.if %elect_one_thr {
        // set_barrier_transaction_bytes: arrive + expect the whole tile.
        mbarrier.arrive_expect_tx %tma_load_mbar[%c0], %tile_bytes : !mbarrier.group<1>
        %bar = mbarrier.ptr %tma_load_mbar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        %src = llvm.getelementptr %gin[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.bulk.shared.cluster.global %dst7, %src, %bar, %part_bytes multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
      }
      gpu.barrier
      mbarrier.wait %tma_load_mbar[%c0], %tma_phase_bit : !mbarrier.group<1>
      %next_bit = arith.xori %tma_phase_bit, %i1 : i32
      // CTA 0 writes the tile out.
      %writer = arith.andi %elect_one_cta, %elect_one_thr : i1
      scf.if %writer {
        %v = llvm.load %sA : !llvm.ptr<3> -> i32
        %o = llvm.getelementptr %gout[%goff0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        llvm.store %v, %o : i32, !llvm.ptr<1>
      }
      gpu.barrier
      func.call @cluster_sync() : () -> ()
      scf.yield %next_bit : i32
    }
    gpu.return
  }
}
