// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of deepgemm_fp8_sf.mlir (same public source: DeepGEMM
// deep_gemm/include/deep_gemm/fp8_gemm.cuh, the fine-grained-scaling kernel).
// BUG: the full barrier's expect-tx counts the A and B tiles only (8192
// bytes) and leaves out the 512-byte SFA copy that also completes on it:
// the phase can complete while the scale factors are still in flight (and
// their complete-tx then lands on the stage's next phase), or never, when
// the SFA bytes land first and the count goes negative before it reaches 0.
// Some launches fail: a stage's first phase hangs unless the SFA copy lands
// last (then it completes early: stale scales), and the -512 carried into its
// second phase keeps that one from ever reaching 0 (a hang). A launch whose
// CTAs use each stage once and whose SFA copies land last is right.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_sfa() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @deepgemm_fp8_sf(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_sfa: !llvm.ptr, %out: !llvm.ptr<1>,
                            %num_blocks: i32, %shape_k: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i512 = arith.constant 512 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %lane = arith.remui %tid, %i32 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %k_blocks = arith.divui %shape_k, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    %is_tma = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_tma {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i8 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %sf_base = llvm.mlir.addressof @smem_sfa : !llvm.ptr<3>

    scf.if %is_tma {
      %fin:2 = scf.while (%blk = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %blk, %num_blocks : i32
        scf.condition(%more) %blk, %it0 : i32, i32
      } do {
      ^bb0(%blk: i32, %it0: i32):
        %row = arith.muli %blk, %i128 : i32
        %itn = scf.for %k = %i0 to %k_blocks step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s32 = arith.remui %it, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %it, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          %pph = arith.xori %ph, %i1 : i32
          mbarrier.wait %empty[%s], %pph : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<4> // BUG
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %sfoff = arith.muli %s32, %i512 : i32
          %sfdst = llvm.getelementptr %sf_base[%sfoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i128 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %sfdst, %map_sfa[%row, %k], bytes 512 : !mbarrier.group<4>, !llvm.ptr
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1 : i32
        }
        %blk_next = arith.addi %blk, %grid : i32
        scf.yield %blk_next, %itn : i32, i32
      }
    }

    %is_math = arith.cmpi ult, %wg, %i2 : i32
    scf.if %is_math {
      %lane0 = arith.cmpi eq, %lane, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %zero = arith.constant 0.0 : f32
      %fin:2 = scf.while (%blk = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %blk, %num_blocks : i32
        scf.condition(%more) %blk, %it0 : i32, i32
      } do {
      ^bb0(%blk: i32, %it0: i32):
        %r:2 = scf.for %k = %i0 to %k_blocks step %i1 iter_args(%it = %it0, %fin_acc = %zero) -> (i32, f32) : i32 {
          %s32 = arith.remui %it, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %it, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph : !mbarrier.group<4>
          %off = arith.muli %s32, %i4096 : i32
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
          %acc = nvvm.wgmma.mma_async %desc_a, %desc_b, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          // Promote with this row's scale factor from the stage's SFA.
          %sfoff = arith.muli %s32, %i512 : i32
          %r4 = arith.muli %wg_tid, %i4 : i32
          %sfo = arith.addi %sfoff, %r4 : i32
          %sfp = llvm.getelementptr %sf_base[%sfo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %sf = llvm.load %sfp : !llvm.ptr<3> -> f32
          scf.if %lane0 {
            mbarrier.arrive %empty[%s] : !mbarrier.group<4>
          }
          %e = llvm.extractvalue %acc[0] : !acc
          %pe = arith.mulf %e, %sf : f32
          %f2 = arith.addf %fin_acc, %pe : f32
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1, %f2 : i32, f32
        }
        %row = arith.muli %blk, %i256 : i32
        %idx = arith.addi %row, %tid : i32
        %op = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %r#1, %op : f32, !llvm.ptr<1>
        %blk_next = arith.addi %blk, %grid : i32
        scf.yield %blk_next, %r#0 : i32, i32
      }
    }
    gpu.return
  }
}
}
