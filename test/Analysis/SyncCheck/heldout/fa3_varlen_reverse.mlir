// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fa3_varlen_reverse(
// Follows Dao-AILab/flash-attention hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp
// with varlen (hopper/seqlen.h SeqlenInfoQKV: seqlen_k from cu_seqlens_k in
// device memory; hopper/block.h get_n_block_min_max: n_block_max =
// ceil(seqlen_k / kBlockN)) and the kv-block loop run backwards
// (n_block = n_block_max - 1 down to n_block_min, the order FA3 uses so that
// the masked block comes first), with hopper/tile_scheduler.hpp
// (the persistent DynamicPersistentTileScheduler's loop, here a static
// stride), and the pipeline state carried from tile to tile
// (smem_pipe_read / smem_pipe_write live outside the tile loop).
// 256 threads: thread 0 produces K|V (8192 bytes per stage) into a 2-stage
// pipe; warpgroup 1 consumes. %n_tiles is a parameter; a tile's batch is
// tile mod %batch; the kv loops are scf.while loops counting down.
!P = !mbarrier.pipe<2, tma>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_kv() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @fa3_varlen_reverse(%map_k: !llvm.ptr, %map_v: !llvm.ptr, %cu_seqlens_k: !llvm.ptr<1>, %out: !llvm.ptr<1>,
                               %n_tiles: i32, %batch: i32) kernel
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
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !P
    scf.if %is_tid0 {
      mbarrier.pipe.init %p : !P
    }
    mbarrier.fence_init
    gpu.barrier
    %kv_base = llvm.mlir.addressof @smem_kv : !llvm.ptr<3>

    scf.if %is_tid0 {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:2 = scf.while (%tile = %bid, %st = %s0) : (i32, !mbarrier.pipe_state<producer>) -> (i32, !mbarrier.pipe_state<producer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %st : i32, !mbarrier.pipe_state<producer>
      } do {
      ^bb0(%tile: i32, %st: !mbarrier.pipe_state<producer>):
        %b = arith.remui %tile, %batch : i32
        %b1 = arith.addi %b, %i1 : i32
        %lo_p = llvm.getelementptr %cu_seqlens_k[%b] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %hi_p = llvm.getelementptr %cu_seqlens_k[%b1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %lo = llvm.load %lo_p : !llvm.ptr<1> -> i32
        %hi = llvm.load %hi_p : !llvm.ptr<1> -> i32
        %len = arith.subi %hi, %lo : i32
        %len63 = arith.addi %len, %i63 : i32
        %nmax = arith.divsi %len63, %i64 : i32
        %top = arith.subi %nmax, %i1 : i32
        %end:2 = scf.while (%nb = %top, %s = %st) : (i32, !mbarrier.pipe_state<producer>) -> (i32, !mbarrier.pipe_state<producer>) {
          %go = arith.cmpi sge, %nb, %i0 : i32
          scf.condition(%go) %nb, %s : i32, !mbarrier.pipe_state<producer>
        } do {
        ^bb0(%nb: i32, %s: !mbarrier.pipe_state<producer>):
          %slot, %next = mbarrier.pipe.acquire %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i8192 : i32
          %kdst = llvm.getelementptr %kv_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %vdst = llvm.getelementptr %kdst[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %r0 = arith.muli %nb, %i64 : i32
          %row = arith.addi %lo, %r0 : i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %kdst, %map_k[%i0, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %vdst, %map_v[%i0, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.commit %p[%slot], bytes %i8192 : !P
          %nb1 = arith.subi %nb, %i1 : i32
          scf.yield %nb1, %next : i32, !mbarrier.pipe_state<producer>
        }
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %end#1 : i32, !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin#1 : !P
    }

    %is_mma = arith.cmpi eq, %wg, %i1 : i32
    scf.if %is_mma {
      %leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %fin:2 = scf.while (%tile = %bid, %cs = %c0s) : (i32, !mbarrier.pipe_state<consumer>) -> (i32, !mbarrier.pipe_state<consumer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %cs : i32, !mbarrier.pipe_state<consumer>
      } do {
      ^bb0(%tile: i32, %cs: !mbarrier.pipe_state<consumer>):
        %b = arith.remui %tile, %batch : i32
        %b1 = arith.addi %b, %i1 : i32
        %lo_p = llvm.getelementptr %cu_seqlens_k[%b] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %hi_p = llvm.getelementptr %cu_seqlens_k[%b1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %lo = llvm.load %lo_p : !llvm.ptr<1> -> i32
        %hi = llvm.load %hi_p : !llvm.ptr<1> -> i32
        %len = arith.subi %hi, %lo : i32
        %len63 = arith.addi %len, %i63 : i32
        %nmax = arith.divsi %len63, %i64 : i32
        %top = arith.subi %nmax, %i1 : i32
        %end:3 = scf.while (%nb = %top, %s = %cs, %o = %z) : (i32, !mbarrier.pipe_state<consumer>, !acc) -> (i32, !mbarrier.pipe_state<consumer>, !acc) {
          %go = arith.cmpi sge, %nb, %i0 : i32
          scf.condition(%go) %nb, %s, %o : i32, !mbarrier.pipe_state<consumer>, !acc
        } do {
        ^bb0(%nb: i32, %s: !mbarrier.pipe_state<consumer>, %o: !acc):
          %slot, %next = mbarrier.pipe.wait %p, %s : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i8192 : i32
          %ksrc = llvm.getelementptr %kv_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %vsrc = llvm.getelementptr %ksrc[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %ka32 = llvm.ptrtoint %ksrc : !llvm.ptr<3> to i32
          %ka = arith.extui %ka32 : i32 to i64
          %ksh = arith.shrui %ka, %c16 : i64
          %desc_k = arith.ori %ksh, %desc_hi : i64
          %va32 = llvm.ptrtoint %vsrc : !llvm.ptr<3> to i32
          %va = arith.extui %va32 : i32 to i64
          %vsh = arith.shrui %va, %c16 : i64
          %desc_v = arith.ori %vsh, %desc_hi : i64
          nvvm.wgmma.fence.aligned
          %o2 = nvvm.wgmma.mma_async %desc_k, %desc_v, %o, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          mbarrier.pipe.release %p[%slot] if %leader : !P
          %nb1 = arith.subi %nb, %i1 : i32
          scf.yield %nb1, %next, %o2 : i32, !mbarrier.pipe_state<consumer>, !acc
        }
        %e = llvm.extractvalue %end#2[0] : !acc
        %r0 = arith.muli %tile, %i128 : i32
        %r = arith.addi %r0, %wg_tid : i32
        %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %e, %op : f32, !llvm.ptr<1>
        %tile_next = arith.addi %tile, %grid : i32
        scf.yield %tile_next, %end#1 : i32, !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}
}
