// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of cutlass_pingpong.mlir): the staging buffer is rewritten before
// wait_group.read: the next tile's epilogue writes C into the warpgroup's staging
// buffer while the previous tile's TMA store may still read it (the hazard that
// CUTLASS's PipelineTmaStore::producer_acquire and its comments guard against).
// The op: the llvm.store into the staging buffer (marked // BUG); its guard,
// nvvm.cp.async.bulk.wait_group 0 {read}, is removed.
// Some launches (expected: a warning): a warpgroup with two or more tiles races
// with its own store; timing decides whether the store reads the new values.
//
// Follows NVIDIA/cutlass include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp
// (GemmUniversal::operator()) with include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync, OrderedSequenceBarrier, PipelineTmaStore) and the
// persistent tile scheduler (sm90_tile_scheduler.hpp: tile = blockIdx.x, += gridDim.x).
// 384 threads: thread 0 is the producer (loads A and B of every k-block of every
// tile of the CTA into a 4-stage ring); math warpgroups 1 and 2 take turns on
// alternate tiles: the OrderedSequenceBarrier (2 stages, 2 groups, 128 arrivals)
// orders their mainloops and their epilogues; each skips the other's k-blocks
// with pipe.advance. The epilogue writes C to the warpgroup's staging buffer,
// fences, and its thread 0 issues the TMA store; the next tile's writes wait for
// wait_group.read 0. %k_tiles (the k-loop bound) and %n_tiles are parameters.
!P = !mbarrier.pipe<4, tma, consumers = 1>
!S = !mbarrier.ordered_seq<2, 2, arrivals = 128>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  mbarrier.named_barrier @epilogue_wg1
  mbarrier.named_barrier @epilogue_wg2
  gpu.func @cutlass_pingpong(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr,
                             %n_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
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

    %pg = mbarrier.alloc : !mbarrier.group<8>
    %sg = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %pg : !mbarrier.group<8> -> !P
    %o = mbarrier.seq.create %sg : !mbarrier.group<4> -> !S
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
      mbarrier.seq.init %o : !S
    }
    mbarrier.fence_init
    gpu.barrier

    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    scf.if %is_tid0 {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:2 = scf.while (%tile = %bid, %st = %s0) : (i32, !mbarrier.pipe_state<producer>) -> (i32, !mbarrier.pipe_state<producer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %st : i32, !mbarrier.pipe_state<producer>
      } do {
      ^bb0(%tile: i32, %st: !mbarrier.pipe_state<producer>):
        %row = arith.muli %tile, %i64 : i32
        %end = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %st) -> (!mbarrier.pipe_state<producer>) : i32 {
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i32 : i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %adst, %map_a[%col, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %bdst, %map_b[%col, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.commit %p[%slot], bytes %i8192 : !P
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %end : i32, !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin#1 : !P
    }

    %is_math = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_math {
      %group = arith.subi %wg, %i1 : i32
      %second = arith.cmpi eq, %group, %i1 : i32
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %c_off = arith.muli %group, %i4096 : i32
      %c_mine = llvm.getelementptr %c_base[%c_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // Math warpgroup 2 starts one tile later: it skips warpgroup 1's k-blocks.
      %cs0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %skip = arith.muli %group, %k_tiles : i32
      %cs1 = mbarrier.pipe.advance %cs0, %skip : !mbarrier.pipe_state<consumer>
      %q0 = mbarrier.seq.start %o, %group : !S
      %first_off = arith.muli %group, %grid : i32
      %first = arith.addi %bid, %first_off : i32
      %stride = arith.muli %grid, %i2 : i32
      %z = llvm.mlir.zero : !acc
      %fin:3 = scf.while (%tile = %first, %cs = %cs1, %q = %q0) : (i32, !mbarrier.pipe_state<consumer>, !mbarrier.seq_state)
          -> (i32, !mbarrier.pipe_state<consumer>, !mbarrier.seq_state) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %cs, %q : i32, !mbarrier.pipe_state<consumer>, !mbarrier.seq_state
      } do {
      ^bb0(%tile: i32, %cs: !mbarrier.pipe_state<consumer>, %q: !mbarrier.seq_state):
        // Mainloop, in this warpgroup's turn.
        %turn, %qn = mbarrier.seq.wait %o, %q : !S
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
          mbarrier.pipe.release %p[%slot] if %wg_leader : !P
          scf.yield %next, %acc2 : !mbarrier.pipe_state<consumer>, !acc
        }
        mbarrier.seq.arrive %o[%turn] : !S
        // Epilogue, in this warpgroup's turn.
        %eturn, %qe = mbarrier.seq.wait %o, %qn : !S
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg2 threads 128
        } else {
          mbarrier.bar_sync @epilogue_wg1 threads 128
        }
        %e = llvm.extractvalue %r#1[0] : !acc
        %slot4 = arith.muli %wg_tid, %i32 : i32
        %dst = llvm.getelementptr %c_mine[%slot4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3> // BUG
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg2 threads 128
        } else {
          mbarrier.bar_sync @epilogue_wg1 threads 128
        }
        scf.if %wg_leader {
          %row = arith.muli %tile, %i64 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_mine, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
        mbarrier.seq.arrive %o[%eturn] : !S
        // Skip the other warpgroup's tile.
        %cs_next = mbarrier.pipe.advance %r#0, %k_tiles : !mbarrier.pipe_state<consumer>
        %tile_next = arith.addi %tile, %stride : i32
        scf.yield %tile_next, %cs_next, %qe : i32, !mbarrier.pipe_state<consumer>, !mbarrier.seq_state
      }
      scf.if %wg_leader {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}
}
