// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of cutlass_cooperative.mlir): arrival count vs init count. The
// empty barriers of stages 0-2 are initialized with count 3, but exactly two
// threads (thread 0 of each math warpgroup) arrive on each per phase.
// The op: the mbarrier.init of %empty in the init loop (marked // BUG).
// Every launch (expected: an error): each CTA has at least one tile of 8
// k-blocks over 4 stages, so the producer's second-lap wait on empty[0] waits
// for a phase that never completes; the kernel hangs.
//
// Follows NVIDIA/cutlass include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp
// (GemmUniversal::operator()) and include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync: producer_acquire waits the empty barrier with the
// producer's phase offset, then arrive_and_expect_tx on the full barrier;
// consumer_wait / consumer_release), written on raw mbarriers.
// 384 threads: thread 0 loads A and B of each of the 8 k-blocks of a tile into
// a 4-stage ring (full: count 1 + bytes; empty: count 2, one release per math
// warpgroup); math warpgroups 1 and 2 work on the same tile (64 rows each) and
// store C directly. The k-block counter is carried across the persistent tile
// loop (tile = blockIdx.x; tile < %n_tiles; tile += gridDim.x).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @cutlass_cooperative(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %n_tiles: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
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
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i3 : !mbarrier.group<4> // BUG
      }
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
      mbarrier.init %empty[%c3], %i2 : !mbarrier.group<4>
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    scf.if %is_tid0 {
      %last = scf.for %tile = %bid to %n_tiles step %grid iter_args(%it0 = %i0) -> (i32) : i32 {
        %row = arith.muli %tile, %i128 : i32
        %itn = scf.for %k = %i0 to %i8 step %i1 iter_args(%it = %it0) -> (i32) : i32 {
          %s32 = arith.remui %it, %i4 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %it, %i4 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<4>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i32 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
          %it1 = arith.addi %it, %i1 : i32
          scf.yield %it1 : i32
        }
        scf.yield %itn : i32
      }
    }

    %is_math = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_math {
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %last = scf.for %tile = %bid to %n_tiles step %grid iter_args(%it0 = %i0) -> (i32) : i32 {
        %r:2 = scf.for %k = %i0 to %i8 step %i1 iter_args(%it = %it0, %acc = %z) -> (i32, !acc) : i32 {
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
        %e = llvm.extractvalue %r#1[0] : !acc
        %base = arith.muli %tile, %i128 : i32
        %wrow = arith.subi %tid, %i128 : i32
        %idx = arith.addi %base, %wrow : i32
        %idx64 = arith.extui %idx : i32 to i64
        %ptr = llvm.getelementptr %out[%idx64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %e, %ptr : f32, !llvm.ptr<1>
        scf.yield %r#0 : i32
      }
    }
    gpu.return
  }
}
}
