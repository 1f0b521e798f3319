// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cutedsl_persistent_gemm(
// Follows NVIDIA/cutlass examples/python/CuTeDSL/hopper/dense_gemm_persistent.py
// (HopperWgmmaGemmPersistentKernel: a DMA warp and two MMA warpgroups
// (cooperative), pipeline.PipelineTmaAsync with producer group
// CooperativeGroup(Agent.Thread) and consumer group
// CooperativeGroup(Agent.Thread, consumer_arrive_cnt) where
// consumer_arrive_cnt = mcast_size * num_mma_warps: one release arrival per
// MMA warp (its elected lane, after the warp's warpgroup_wait), mcast_size
// 1 here; the producer and the consumers carry their PipelineState across
// the persistent tile loop of StaticPersistentTileScheduler
// (tile = bid, bid + grid, ...), and the DMA warp ends with
// mainloop_pipeline.producer_tail). 288 threads: MMA warpgroups 0 and 1
// (8 warps), thread 256 is the DMA warp's issuing lane. 4 stages, A and B
// boxes 4096 bytes. %k_tiles >= 1; %num_tiles >= the grid.
!acc = !llvm.struct<(f32, f32, f32, f32)>
!P = !mbarrier.pipe<4, tma, consumers = 8>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @cutedsl_persistent_gemm(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %c: !llvm.ptr<1>, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 288, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %lane = arith.remui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %pg = mbarrier.alloc : !mbarrier.group<8>
    %p = mbarrier.pipe.create %pg : !mbarrier.group<8> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // DMA warp.
    %is_dma = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_dma {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:2 = scf.while (%tile = %bid, %st = %s0) : (i32, !mbarrier.pipe_state<producer>) -> (i32, !mbarrier.pipe_state<producer>) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %st : i32, !mbarrier.pipe_state<producer>
      } do {
      ^bb0(%tile: i32, %st: !mbarrier.pipe_state<producer>):
        %row = arith.muli %tile, %i128 : i32
        %end = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %st) -> (!mbarrier.pipe_state<producer>) : i32 {
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i64 : i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %adst, %map_a[%col, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %bdst, %map_b[%col, %i0], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.commit %p[%slot], bytes %i8192 : !P
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %end : i32, !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin#1 : !P
    }

    // MMA warpgroups.
    %is_mma = arith.cmpi ult, %tid, %i256 : i32
    scf.if %is_mma {
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %z = llvm.mlir.zero : !acc
      %fin:2 = scf.while (%tile = %bid, %cs = %c0s) : (i32, !mbarrier.pipe_state<consumer>) -> (i32, !mbarrier.pipe_state<consumer>) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cs : i32, !mbarrier.pipe_state<consumer>
      } do {
      ^bb0(%tile: i32, %cs: !mbarrier.pipe_state<consumer>):
        %r:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %cs, %acc = %z) -> (!mbarrier.pipe_state<consumer>, !acc) : i32 {
          %slot, %next = mbarrier.pipe.wait %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
          %aa = arith.extui %aa32 : i32 to i64
          %ash = arith.shrui %aa, %c16 : i64
          %desc_a = arith.ori %ash, %desc_hi : i64
          %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
          %ba = arith.extui %ba32 : i32 to i64
          %bsh = arith.shrui %ba, %c16 : i64
          %desc_b = arith.ori %bsh, %desc_hi : i64
          nvvm.wgmma.fence.aligned
          %acc2 = nvvm.wgmma.mma_async %desc_a, %desc_b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          // consumer_release: one arrival per MMA warp.
          mbarrier.pipe.release %p[%slot] if %lane0 : !P
          scf.yield %next, %acc2 : !mbarrier.pipe_state<consumer>, !acc
        }
        %e = llvm.extractvalue %r#1[0] : !acc
        %o0 = arith.muli %tile, %i256 : i32
        %o = arith.addi %o0, %tid : i32
        %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %e, %op : f32, !llvm.ptr<1>
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %r#0 : i32, !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}
}
