// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry gluon_ws_matmul(
// Follows triton-lang/triton python/tutorials/gluon/08-warp-specialization.py
// (the Hopper persistent matmul: gl.warp_specialize with a 1-warp load
// partition and the default MMA partition; ready_bars / empty_bars of
// num_buffers = 3 slots, mbarrier.init(count=1) each; the load partition
// waits empty_bars[index] with phase ^ 1, mbarrier.expect(ready_bars[index],
// a_bytes + b_bytes) and two tma.async_copy_global_to_shared; the MMA
// partition waits ready_bars[index] with phase, warpgroup_mma,
// warpgroup_mma_wait(0), mbarrier.arrive(empty_bars[index]); index / phase
// advance through one counter carried across the tiles of the persistent
// loop, tile = pid, pid + num_programs, ... < num_tiles).
// 160 threads: warpgroup 0 is the MMA partition (thread 0 arrives), thread
// 128 is the load partition's issuing lane. BLOCK 64 x 64, K step 64 (bf16):
// A box 4096 bytes, B box 4096 bytes per K step.
// %k_tiles >= 1 K steps per tile; the grid is at most %num_tiles CTAs.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @gluon_ws_matmul(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %c: !llvm.ptr<1>, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
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
    %pid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %nprog = arith.index_cast %grid_x : index to i32
    %ready = mbarrier.alloc : !mbarrier.group<3>
    %empty = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %ready[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // Load partition.
    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      %lf = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
        %row = arith.muli %tile, %i64 : i32
        %cn = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %idx = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %idx : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %phase = arith.andi %lap, %i1 : i32
          %pp = arith.xori %phase, %i1 : i32
          mbarrier.wait %empty[%s], %pp : !mbarrier.group<3>
          mbarrier.arrive_expect_tx %ready[%s], %i8192 : !mbarrier.group<3>
          %off = arith.muli %idx, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kt, %i64 : i32
          mbarrier.cp_async_bulk_tensor %ready[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %ready[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          %cnt2 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt2 : i32
        }
        scf.yield %cn : i32
      }
    }

    // MMA partition (default, 4 warps).
    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      %mf = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
        %z = llvm.mlir.zero : !acc
        %r:2 = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0, %a = %z) -> (i32, !acc) : i32 {
          %idx = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %idx : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %phase = arith.andi %lap, %i1 : i32
          mbarrier.wait %ready[%s], %phase : !mbarrier.group<3>
          %off = arith.muli %idx, %i4096 : i32
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
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<3>
          %cnt2 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt2, %a2 : i32, !acc
        }
        %e = llvm.extractvalue %r#1[0] : !acc
        %o0 = arith.muli %tile, %i128 : i32
        %o = arith.addi %o0, %tid : i32
        %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %e, %op : f32, !llvm.ptr<1>
        scf.yield %r#0 : i32
      }
    }
    gpu.return
  }
}
}
