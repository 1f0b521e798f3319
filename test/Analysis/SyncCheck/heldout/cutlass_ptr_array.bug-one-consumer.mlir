// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_ptr_array.mlir (same public source: cutlass
// sm90_gemm_array_tma_warpspecialized_cooperative.hpp, sm90_pipeline.hpp
// PipelineTmaAsync, sm90_tile_scheduler_group.hpp).
// BUG: the pipe counts one consumer (the ping-pong kernel's
// num_consumers = 1 WG carried into the cooperative kernel) while both math
// warpgroups release every stage: the empty barrier completes on the first
// warpgroup's release, and the producer refills a stage the other warpgroup's
// wgmma may still be reading; the second release completes a phase early.
// A diagnostic on the releases (BUG-ALT) is accepted.
// Some launches fail (wrong values when the refill overtakes the slower
// warpgroup's reads; no hang: the extra completions only run ahead).
!P = !mbarrier.pipe<4, tma, consumers = 1> // BUG
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  mbarrier.named_barrier @epilogue
  gpu.func @cutlass_ptr_array(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr,
                              %tile_group: !llvm.ptr<1>, %problem_k: !llvm.ptr<1>, %n_tiles: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
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
    %p = mbarrier.pipe.create %pg : !mbarrier.group<8> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
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
        %gp = llvm.getelementptr %tile_group[%tile] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %group = llvm.load %gp : !llvm.ptr<1> -> i32
        %kp = llvm.getelementptr %problem_k[%group] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %kk = llvm.load %kp : !llvm.ptr<1> -> i32
        %k_tiles = arith.divui %kk, %i64 : i32
        %row = arith.muli %tile, %i128 : i32
        %end = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%s = %st) -> (!mbarrier.pipe_state<producer>) : i32 {
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i64 : i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %adst, %map_a[%col, %row, %group], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %bdst, %map_b[%col, %row, %group], bytes 4096 : !P, !llvm.ptr
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
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %math_tid = arith.subi %tid, %i128 : i32
      %is_store = arith.cmpi eq, %math_tid, %i0 : i32
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %z = llvm.mlir.zero : !acc
      %fin:2 = scf.while (%tile = %bid, %cs = %c0s) : (i32, !mbarrier.pipe_state<consumer>) -> (i32, !mbarrier.pipe_state<consumer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %cs : i32, !mbarrier.pipe_state<consumer>
      } do {
      ^bb0(%tile: i32, %cs: !mbarrier.pipe_state<consumer>):
        %gp = llvm.getelementptr %tile_group[%tile] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %group = llvm.load %gp : !llvm.ptr<1> -> i32
        %kp = llvm.getelementptr %problem_k[%group] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %kk = llvm.load %kp : !llvm.ptr<1> -> i32
        %k_tiles = arith.divui %kk, %i64 : i32
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
          mbarrier.pipe.release %p[%slot] if %wg_leader : !P // BUG-ALT
          scf.yield %next, %acc2 : !mbarrier.pipe_state<consumer>, !acc
        }
        // Epilogue: the previous store has read the staging buffer (thread 0
        // waited before it reached the barrier); write C, fence, meet, store.
        mbarrier.bar_sync @epilogue threads 256
        %e = llvm.extractvalue %r#1[0] : !acc
        %off4 = arith.muli %math_tid, %i32 : i32
        %dst = llvm.getelementptr %c_base[%off4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_sync @epilogue threads 256
        scf.if %is_store {
          %row = arith.muli %tile, %i128 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_base, box[%i0, %row, %group] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %r#0 : i32, !mbarrier.pipe_state<consumer>
      }
      scf.if %is_store {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}
}
