// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of deepgemm_persistent.mlir): the producer's phase offset is
// missing. The producer waits empty_barriers[s] with the lap parity itself
// instead of (parity ^ 1), so its very first wait waits for a phase of a
// barrier that nobody has arrived on yet (the math warpgroups wait for the
// load the producer never issues): a startup deadlock.
// The op: the mbarrier.wait on %empty (marked // BUG).
// Every launch (expected: an error): every CTA with a block reaches the first
// wait with trip 0; the kernel hangs.
//
// Follows deepseek-ai/DeepGEMM deep_gemm/include/deep_gemm/fp8_gemm.cuh
// (fp8_gemm_kernel: the TMA warpgroup is the last one; full_barriers /
// empty_barriers per stage; the producer waits empty_barriers[s] with the
// phase one ahead ((phase ^ 1): every stage starts free); the math warpgroups
// wait full_barriers[s] and empty_barrier_arrive after warpgroup_wait<0>) and
// its Scheduler::get_next_block (block = iter * gridDim.x + blockIdx.x while
// < num_blocks), with the TMA-store epilogue (tma_store_arrive / wait<0>).
// 384 threads: warpgroups 0-1 are math, thread 256 the producer; 4 stages;
// k-blocks per tile = %shape_k / 128 (a parameter); the iteration counter is
// carried across tiles. The epilogue meets on a 256-thread named barrier.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  mbarrier.named_barrier @math_epilogue
  gpu.func @deepgemm_persistent(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_d: !llvm.ptr,
                                %num_blocks: i32, %shape_k: i32) kernel
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
    %k_blocks = arith.divui %shape_k, %i128 : i32
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
          mbarrier.wait %empty[%s], %ph : !mbarrier.group<4> // BUG
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
        // Epilogue: thread 0 waited for the previous store's reads before it
        // reached this barrier; both math warpgroups write D, fence, meet.
        mbarrier.bar_sync @math_epilogue threads 256
        %e = llvm.extractvalue %r#1[0] : !acc
        %off4 = arith.muli %tid, %i32 : i32
        %dst = llvm.getelementptr %d_base[%off4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_sync @math_epilogue threads 256
        scf.if %is_tid0 {
          %row = arith.muli %blk, %i128 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_d, %d_base, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        %blk_next = arith.addi %blk, %grid : i32
        scf.yield %blk_next, %r#0 : i32, i32
      }
      scf.if %is_tid0 {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}
}
