// RUN: mbarrier-compile %s --chip sm_100a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cute_bw_tma_umma(
// Follows NVIDIA/cutlass examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu
// (the CuTe tutorial's TMA + UMMA GEMM, no pipelining): shared storage holds
// one A and one B tile, tma_barrier and mma_barrier, each initialized with
// count 1 by the elected thread (cute::initialize_barrier); per k-tile the
// elected thread of warp 0 sets the transaction bytes
// (set_barrier_transaction_bytes) and issues the two TMA loads, every thread
// waits tma_barrier with tma_barrier_phase_bit and flips it, the elected
// thread issues the tcgen05.mma and umma_arrive(&mma_barrier)
// (tcgen05.commit), every thread waits mma_barrier with mma_barrier_phase_bit
// and flips it, so the next k-tile's TMA never overwrites a tile the MMA
// still reads. A CTA barrier ends each k-tile, so that no thread is still
// waiting for phase k of a barrier when the elected thread completes phase
// k + 1 (such a thread would then wait for phase k + 2: the deadlock
// triton#10035 describes for a leader warp's arrivals). Warp 0 allocates
// the accumulator in tensor memory; the epilogue loads it with tcgen05.ld.
// 128 threads; A and B boxes 4096 bytes each; %k_tiles >= 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1 x i32>
  gpu.func @cute_bw_tma_umma(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32, %idesc: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %elected = arith.cmpi eq, %tid, %i0 : i32
    %is_warp0 = arith.cmpi eq, %warp, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i128 : i32
    %tma_bar = mbarrier.alloc : !mbarrier.group<1>
    %mma_bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %elected {
      mbarrier.init %tma_bar[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %mma_bar[%c0], %i1 : !mbarrier.group<1>
    }
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    scf.if %is_warp0 {
      nvvm.tcgen05.alloc %slot, %i32 : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit
    }
    mbarrier.fence_init
    gpu.barrier
    %taddr = llvm.load %slot : !llvm.ptr<3> -> i32
    %tmem = llvm.inttoptr %taddr : i32 to !llvm.ptr<6>
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %aa32 = llvm.ptrtoint %a_base : !llvm.ptr<3> to i32
    %aa = arith.extui %aa32 : i32 to i64
    %ash = arith.shrui %aa, %c16 : i64
    %desc_a = arith.ori %ash, %desc_hi : i64
    %ba32 = llvm.ptrtoint %b_base : !llvm.ptr<3> to i32
    %ba = arith.extui %ba32 : i32 to i64
    %bsh = arith.shrui %ba, %c16 : i64
    %desc_b = arith.ori %bsh, %desc_hi : i64

    %ph:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%tma_phase = %i0, %mma_phase = %i0) -> (i32, i32) : i32 {
      scf.if %elected {
        mbarrier.arrive_expect_tx %tma_bar[%c0], %i8192 : !mbarrier.group<1>
        %col = arith.muli %k, %i64 : i32
        mbarrier.cp_async_bulk_tensor %tma_bar[%c0], %a_base, %map_a[%col, %row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %tma_bar[%c0], %b_base, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
      }
      mbarrier.wait %tma_bar[%c0], %tma_phase : !mbarrier.group<1>
      %tma_next = arith.xori %tma_phase, %i1 : i32
      scf.if %elected {
        %accumulate = arith.cmpi ugt, %k, %i0 : i32
        nvvm.tcgen05.mma %tmem, %desc_a, %desc_b, %idesc, %accumulate {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        mbarrier.tcgen05_commit %mma_bar[%c0] : !mbarrier.group<1>
      }
      mbarrier.wait %mma_bar[%c0], %mma_phase : !mbarrier.group<1>
      %mma_next = arith.xori %mma_phase, %i1 : i32
      // No thread may lag a whole phase behind the elected one.
      gpu.barrier
      scf.yield %tma_next, %mma_next : i32, i32
    }
    %v = nvvm.tcgen05.ld %tmem {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
    nvvm.tcgen05.wait <load>
    %o = arith.addi %row, %tid : i32
    %op = llvm.getelementptr %out[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %v, %op : i32, !llvm.ptr<1>
    gpu.barrier
    scf.if %is_warp0 {
      nvvm.tcgen05.dealloc %tmem, %i32 : !llvm.ptr<6>, i32
    }
    gpu.return
  }
}
}
