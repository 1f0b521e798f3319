// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cute_wgmma_tma_tutorial(
// Follows NVIDIA/cutlass examples/cute/tutorial/hopper/wgmma_tma_sm90.cu
// (gemm_device: no warp specialization; warp 0's elected lane initializes
// producer_mbar[pipe] with 1 (ClusterTransactionBarrier) and
// consumer_mbar[pipe] with 128 (ClusterBarrier, every thread of the
// warpgroup arrives); it prefetches the first K_PIPE_MAX k-tiles with
// arrive_and_expect_tx + the A and B TMA copies; the main loop waits
// producer_mbar[read_pipe] at read_state.phase(), runs the wgmma,
// warpgroup_wait<0>, ConsumerBarType::arrive(&consumer_mbar[read_pipe]) by
// every thread, and the elected lane then waits consumer_mbar[write_pipe]
// at write_state.phase() (the phase the 128 arrivals just completed) and
// refills that pipe with k-tile k + K_PIPE_MAX). Here the prefetch and the
// refills are issued only for k-tiles that exist (the tutorial lets TMA read
// out of bounds past the last k-tile; a CTA would then exit with those
// copies in flight).
// 128 threads (one warpgroup, thread 0 issues TMA), K_PIPE_MAX = 3,
// %k_tiles >= 1 k-tiles of A 4096 + B 4096 bytes. One output tile per CTA.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @cute_wgmma_tma_tutorial(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i64 : i32
    %producer_mbar = mbarrier.alloc : !mbarrier.group<3>
    %consumer_mbar = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %producer_mbar[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %consumer_mbar[%s], %i128 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    // Prefetch: pipes 0 .. min(K_PIPE_MAX, k_tiles) - 1.
    %npre = arith.minui %k_tiles, %i3 : i32
    scf.if %is_tid0 {
      scf.for %p = %i0 to %npre step %i1 : i32 {
        %s = arith.index_cast %p : i32 to index
        mbarrier.arrive_expect_tx %producer_mbar[%s], %i8192 : !mbarrier.group<3>
        %off = arith.muli %p, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %p, %i64 : i32
        mbarrier.cp_async_bulk_tensor %producer_mbar[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %producer_mbar[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
    }
    %z = llvm.mlir.zero : !acc
    %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
      %p = arith.remui %k, %i3 : i32
      %s = arith.index_cast %p : i32 to index
      %lap = arith.divui %k, %i3 : i32
      %phase = arith.andi %lap, %i1 : i32
      mbarrier.wait %producer_mbar[%s], %phase : !mbarrier.group<3>
      %off = arith.muli %p, %i4096 : i32
      %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
      %aa = arith.extui %aa32 : i32 to i64
      %ash = arith.shrui %aa, %c16 : i64
      %da = arith.ori %ash, %desc_hi : i64
      %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
      %ba = arith.extui %ba32 : i32 to i64
      %bsh = arith.shrui %ba, %c16 : i64
      %db = arith.ori %bsh, %desc_hi : i64
      nvvm.wgmma.fence.aligned
      %a2 = nvvm.wgmma.mma_async %da, %db, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      // ConsumerBarType::arrive by every thread.
      mbarrier.arrive %consumer_mbar[%s] : !mbarrier.group<3>
      // The elected lane refills this pipe with k-tile k + 3, if it exists.
      %next = arith.addi %k, %i3 : i32
      %more = arith.cmpi ult, %next, %k_tiles : i32
      %refill = arith.andi %is_tid0, %more : i1
      scf.if %refill {
        mbarrier.wait %consumer_mbar[%s], %phase : !mbarrier.group<3>
        mbarrier.arrive_expect_tx %producer_mbar[%s], %i8192 : !mbarrier.group<3>
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %next, %i64 : i32
        mbarrier.cp_async_bulk_tensor %producer_mbar[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %producer_mbar[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
      scf.yield %a2 : !acc
    }
    %e = llvm.extractvalue %acc[0] : !acc
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %e, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
