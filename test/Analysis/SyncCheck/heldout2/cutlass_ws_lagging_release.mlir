// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cutlass_ws_lagging_release(
// Follows NVIDIA/cutlass include/cutlass/gemm/kernel/
// sm90_gemm_tma_warpspecialized.hpp (KernelTmaWarpSpecialized: not
// persistent; warpgroup 0 is the producer, its first warp's elected thread
// loads; warpgroup 1 is the one consumer; the producer ends with
// producer_tail) with include/cutlass/gemm/collective/
// sm90_mma_tma_gmma_ss_warpspecialized.hpp (mma(): K_PIPE_MMAS = 1; the
// prologue GMMA waits stage 0, issues and commits without releasing; each
// mainloop step waits its stage, issues, commits, warpgroup_wait<K_PIPE_MMAS>()
// and only then consumer_release(smem_pipe_release) of the previous stage;
// mma_tail(): warpgroup_wait<0>() and the release of the last stage) and
// PipelineTmaAsync (include/cutlass/pipeline/sm90_pipeline.hpp).
// 256 threads; a 4-stage pipe, A and B 4096 bytes each per stage;
// k_tile_count = max(ceil_div(%k, 64), 1).
!P = !mbarrier.pipe<4, tma, consumers = 1>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @cutlass_ws_lagging_release(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %d: !llvm.ptr<1>, %k: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i63 = arith.constant 63 : i32
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
    %pg = mbarrier.alloc : !mbarrier.group<8>
    %p = mbarrier.pipe.create %pg : !mbarrier.group<8> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %kr = arith.addi %k, %i63 : i32
    %kd = arith.divui %kr, %i64 : i32
    %k_tiles = arith.maxui %kd, %i1 : i32
    %row = arith.muli %bid, %i128 : i32

    scf.if %is_tid0 {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %end = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%s = %s0) -> (!mbarrier.pipe_state<producer>) : i32 {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
        %st32 = arith.index_cast %stage : index to i32
        %off = arith.muli %st32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %kt, %i64 : i32
        mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %adst, %map_a[%col, %row], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %bdst, %map_b[%col, %i0], bytes 4096 : !P, !llvm.ptr
        mbarrier.pipe.commit %p[%slot], bytes %i8192 : !P
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      // producer_tail
      mbarrier.pipe.tail %p, %end : !P
    }

    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      %leader = arith.cmpi eq, %ctid, %i0 : i32
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %z = llvm.mlir.zero : !acc
      // Prologue GMMA: stage 0, not released yet.
      %slot0, %cs1 = mbarrier.pipe.wait %p, %c0s : !P
      %stage0 = mbarrier.pipe.stage %slot0 : !mbarrier.slot<consumer>
      %st0 = arith.index_cast %stage0 : index to i32
      %off0 = arith.muli %st0, %i4096 : i32
      %asrc0 = llvm.getelementptr %a_base[%off0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %aa0 = llvm.ptrtoint %asrc0 : !llvm.ptr<3> to i32
      %aa0x = arith.extui %aa0 : i32 to i64
      %ash0 = arith.shrui %aa0x, %c16 : i64
      %da0 = arith.ori %ash0, %desc_hi : i64
      %bsrc0 = llvm.getelementptr %b_base[%off0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %ba0 = llvm.ptrtoint %bsrc0 : !llvm.ptr<3> to i32
      %ba0x = arith.extui %ba0 : i32 to i64
      %bsh0 = arith.shrui %ba0x, %c16 : i64
      %db0 = arith.ori %bsh0, %desc_hi : i64
      nvvm.wgmma.fence.aligned
      %acc0 = nvvm.wgmma.mma_async %da0, %db0, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      // Mainloop GMMAs: wait k, issue k, wait for k - 1's GMMA, release k - 1.
      %r:3 = scf.for %kt = %i1 to %k_tiles step %i1 iter_args(%cs = %cs1, %prev = %slot0, %acc = %acc0) -> (!mbarrier.pipe_state<consumer>, !mbarrier.slot<consumer>, !acc) : i32 {
        %slot, %next = mbarrier.pipe.wait %p, %cs : !P
        %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
        %st32 = arith.index_cast %stage : index to i32
        %off = arith.muli %st32, %i4096 : i32
        %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %aa = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
        %aax = arith.extui %aa : i32 to i64
        %ash = arith.shrui %aax, %c16 : i64
        %da = arith.ori %ash, %desc_hi : i64
        %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %ba = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
        %bax = arith.extui %ba : i32 to i64
        %bsh = arith.shrui %bax, %c16 : i64
        %db = arith.ori %bsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %acc2 = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        // warpgroup_wait<K_PIPE_MMAS>(): the previous stage's GMMA is done.
        nvvm.wgmma.wait.group.sync.aligned 1
        mbarrier.pipe.release %p[%prev] if %leader : !P
        scf.yield %next, %slot, %acc2 : !mbarrier.pipe_state<consumer>, !mbarrier.slot<consumer>, !acc
      }
      // mma_tail(): every GMMA done, then the last stage.
      nvvm.wgmma.wait.group.sync.aligned 0
      mbarrier.pipe.release %p[%r#1] if %leader : !P
      %e = llvm.extractvalue %r#2[0] : !acc
      %o0 = arith.addi %row, %ctid : i32
      %op = llvm.getelementptr %d[%o0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
