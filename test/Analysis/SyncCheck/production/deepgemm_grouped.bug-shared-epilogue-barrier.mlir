// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of deepgemm_grouped.mlir): one named-barrier id used by two
// roles with the same count: warpgroup 1's epilogue meets on @epilogue_wg0
// (threads 128), the id warpgroup 0 uses. 256 threads arrive on a 128-thread
// barrier: a phase completes with any 128 of them, so a warpgroup may read its
// neighbour's slot before that neighbour wrote it.
// The op: warpgroup 1's first mbarrier.bar_sync (marked // BUG).
// Some launches (expected: a warning): which threads complete a phase depends
// on timing; wrong values, not a hang.
//
// Follows deepseek-ai/DeepGEMM deep_gemm/include/deep_gemm/fp8_gemm.cuh in its
// masked grouped form (GemmType::GroupedMasked, m_grouped_gemm_fp8_fp8_bf16_nt_masked:
// the scheduler reads the group's valid rows masked_m[group] from device memory
// and walks only the blocks below it) with the same TMA warpgroup / math
// warpgroup ring as the dense kernel (full / empty barriers, the producer's
// empty wait one phase ahead).
// 384 threads: warpgroups 0-1 math, thread 256 the producer; 4 stages; 4
// k-blocks per block; the block count ceil(masked_m[blockIdx.y] / 128) is a
// value loaded from memory. Epilogue per math warpgroup: it writes its rows to
// shared memory, meets on its own named barrier (128), and each thread stores
// its neighbour's value; a second meet before the next block's writes.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<1024 x f32>
  mbarrier.named_barrier @epilogue_wg0
  mbarrier.named_barrier @epilogue_wg1
  gpu.func @deepgemm_grouped(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>,
                             %masked_m: !llvm.ptr<1>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %k_blocks = arith.constant 4 : i32
    %grp_y = gpu.block_id y
    %grp = arith.index_cast %grp_y : index to i32
    %grp64 = arith.extui %grp : i32 to i64
    %mp = llvm.getelementptr %masked_m[%grp64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    %m = llvm.load %mp : !llvm.ptr<1> -> i32
    %i127 = arith.constant 127 : i32
    %m_up = arith.addi %m, %i127 : i32
    %num_blocks = arith.divui %m_up, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    %is_tma = arith.cmpi eq, %tid, %i256 : i32
    scf.if %is_tma {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<4>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %d_base = llvm.mlir.addressof @smem_d : !llvm.ptr<3>

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
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<4>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i128 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1 : i32
        }
        %blk_next = arith.addi %blk, %grid : i32
        scf.yield %blk_next, %itn : i32, i32
      }
    }

    %is_math = arith.cmpi ult, %wg, %i2 : i32
    scf.if %is_math {
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %fin:2 = scf.while (%blk = %bid, %it0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %blk, %num_blocks : i32
        scf.condition(%more) %blk, %it0 : i32, i32
      } do {
      ^bb0(%blk: i32, %it0: i32):
        %r:2 = scf.for %k = %i0 to %k_blocks step %i1 iter_args(%it = %it0, %acc = %z) -> (i32, !acc) : i32 {
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
          %acc2 = nvvm.wgmma.mma_async %desc_a, %desc_b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          scf.if %wg_leader {
            mbarrier.arrive %empty[%s] : !mbarrier.group<4>
          }
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1, %acc2 : i32, !acc
        }
        // Epilogue of this warpgroup: write, meet, read the neighbour, meet.
        %e = llvm.extractvalue %r#1[0] : !acc
        %dst = llvm.getelementptr %d_base[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
        llvm.store %e, %dst : f32, !llvm.ptr<3>
        %second = arith.cmpi eq, %wg, %i1 : i32
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg0 threads 128 // BUG
        } else {
          mbarrier.bar_sync @epilogue_wg0 threads 128
        }
        %nb = arith.xori %tid, %i1 : i32
        %src = llvm.getelementptr %d_base[0, %nb] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
        %y = llvm.load %src : !llvm.ptr<3> -> f32
        %row = arith.muli %blk, %i256 : i32
        %gy = arith.muli %grp, %i4096 : i32
        %base = arith.addi %row, %gy : i32
        %idx = arith.addi %base, %tid : i32
        %idx64 = arith.extui %idx : i32 to i64
        %q = llvm.getelementptr %out[%idx64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %y, %q : f32, !llvm.ptr<1>
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg1 threads 128
        } else {
          mbarrier.bar_sync @epilogue_wg0 threads 128
        }
        %blk_next = arith.addi %blk, %grid : i32
        scf.yield %blk_next, %r#0 : i32, i32
      }
    }
    gpu.return
  }
}
}
