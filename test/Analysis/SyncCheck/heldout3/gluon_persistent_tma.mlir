// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry gluon_persistent_tma(
// Follows triton-lang/triton python/tutorials/gluon/07-persistence.py (the
// persistent Hopper matmul without warp specialization: one program per SM
// walks tiles pid, pid + num_programs, ... < num_tiles; the load counter
// and its phase carry across tiles; per k-step mbarrier.expect(bars[index],
// a_desc.block_type.nbytes + b_desc.block_type.nbytes), two
// tma.async_copy_global_to_shared, mbarrier.wait(bars[index], phase),
// warpgroup_mma; the epilogue stores the tile into c_smem, fence_async_shared(),
// tma.async_copy_shared_to_global and, before c_smem is written again for
// the next tile, tma.store_wait(pendings=0)) with 04-tma.py (expect / wait
// phase bookkeeping) and 05-wgmma.py. Here the loads run one k-step ahead on
// two buffers; a CTA barrier at the top of each k-step keeps every warp's
// wgmma of the previous step (on the buffer being refilled) behind it.
// 128 threads (thread 0 issues TMA). A and B boxes 4096 bytes each; c_smem
// 2048 bytes; %k_tiles >= 1 k-steps per tile; the grid is at most %num_tiles.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @c_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @gluon_persistent_tma(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i64 = arith.constant 64 : i32
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
    %bars = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %c_smem = llvm.mlir.addressof @c_smem : !llvm.ptr<3>
    %fin = scf.for %tile = %pid to %num_tiles step %nprog iter_args(%cnt0 = %i0) -> (i32) : i32 {
      %row = arith.muli %tile, %i64 : i32
      // The tile's first k-step.
      scf.if %is_tid0 {
        %idx = arith.remui %cnt0, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %off = arith.muli %idx, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %bars[%s], %i8192 : !mbarrier.group<2>
        mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%i0, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%i0, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
      }
      %z = llvm.mlir.zero : !acc
      %r:2 = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0, %a = %z) -> (i32, !acc) : i32 {
        // Every warp is past the wgmma of k-step kt - 1 (the buffer refilled below).
        gpu.barrier
        %kn = arith.addi %kt, %i1 : i32
        %more = arith.cmpi ult, %kn, %k_tiles : i32
        %issue = arith.andi %is_tid0, %more : i1
        scf.if %issue {
          %cn = arith.addi %cnt, %i1 : i32
          %nidx = arith.remui %cn, %i2 : i32
          %ns = arith.index_cast %nidx : i32 to index
          %noff = arith.muli %nidx, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kn, %i64 : i32
          mbarrier.arrive_expect_tx %bars[%ns], %i8192 : !mbarrier.group<2>
          mbarrier.cp_async_bulk_tensor %bars[%ns], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bars[%ns], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        }
        %idx = arith.remui %cnt, %i2 : i32
        %s = arith.index_cast %idx : i32 to index
        %lap = arith.divui %cnt, %i2 : i32
        %phase = arith.andi %lap, %i1 : i32
        mbarrier.wait %bars[%s], %phase : !mbarrier.group<2>
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
        %cnt2 = arith.addi %cnt, %i1 : i32
        scf.yield %cnt2, %a2 : i32, !acc
      }
      // Epilogue: tma.store_wait(0) of the previous tile's store, then c_smem.
      scf.if %is_tid0 {
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      gpu.barrier
      %e = llvm.extractvalue %r#1[0] : !acc
      %co = arith.muli %tid, %i16 : i32
      %cp = llvm.getelementptr %c_smem[%co] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      llvm.store %e, %cp : f32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      scf.if %is_tid0 {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_smem, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
      scf.yield %r#0 : i32
    }
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
}
