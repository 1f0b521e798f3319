// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_consumer_try_wait.mlir (same public source: cutlass
// sm90_mma_tma_gmma_ss_warpspecialized.hpp mma(), PipelineTmaAsync
// consumer_release, which arrives only where is_signalling_thread).
// BUG: the release is made by every thread of the consumer warpgroup (128
// arrivals on an empty barrier of count 1, the pipe's one consumer): the
// first arrival frees the stage, the other 127 complete later phases of it
// ahead of time, so the producer's later producer_acquire of that stage
// passes before the consumer has read the data it overwrites.
// Some launches fail: only where a stage is refilled (%k_tiles x tiles per
// CTA > 4), and then as a race.
// (A stale barrier token, consumer_wait with a token from another state, is
// rejected by the verifier: `takes a ready flag that tested another state`.)
!P = !mbarrier.pipe<4, tma, consumers = 1>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
  gpu.func @cutlass_consumer_try_wait(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %d: !llvm.ptr<1>, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
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

    scf.if %is_tid0 {
      %s0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin = scf.for %tile = %bid to %num_tiles step %grid iter_args(%st = %s0) -> (!mbarrier.pipe_state<producer>) : i32 {
        %row = arith.muli %tile, %i64 : i32
        %end = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%s = %st) -> (!mbarrier.pipe_state<producer>) : i32 {
          %tok = mbarrier.pipe.try_acquire %p, %s : !P
          %slot, %next = mbarrier.pipe.acquire %p, %s ready %tok : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kt, %i64 : i32
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %adst, %map_a[%col, %row], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %bdst, %map_b[%col, %i0], bytes 4096 : !P, !llvm.ptr
          mbarrier.pipe.commit %p[%slot], bytes %i8192 : !P
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        scf.yield %end : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %fin : !P
    }

    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %ctid = arith.subi %tid, %i128 : i32
      %leader = arith.cmpi eq, %ctid, %i0 : i32
      %c0s = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %fin = scf.for %tile = %bid to %num_tiles step %grid iter_args(%cst = %c0s) -> (!mbarrier.pipe_state<consumer>) : i32 {
        %z = llvm.mlir.zero : !acc
        %r:2 = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cs = %cst, %acc = %z) -> (!mbarrier.pipe_state<consumer>, !acc) : i32 {
          %tok = mbarrier.pipe.try_wait %p, %cs : !P
          %slot, %next = mbarrier.pipe.wait %p, %cs ready %tok : !P
          %stage = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
          %st32 = arith.index_cast %stage : index to i32
          %off = arith.muli %st32, %i4096 : i32
          %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %aa = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
          %aax = arith.extui %aa : i32 to i64
          %ash = arith.shrui %aax, %c16 : i64
          %da = arith.ori %ash, %desc_hi : i64
          %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %ba = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
          %bax = arith.extui %ba : i32 to i64
          %bsh = arith.shrui %bax, %c16 : i64
          %db = arith.ori %bsh, %desc_hi : i64
          nvvm.wgmma.fence.aligned
          %acc2 = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          mbarrier.pipe.release %p[%slot] : !P // BUG
          scf.yield %next, %acc2 : !mbarrier.pipe_state<consumer>, !acc
        }
        %e = llvm.extractvalue %r#1[0] : !acc
        %o0 = arith.muli %tile, %i128 : i32
        %o1 = arith.addi %o0, %ctid : i32
        %op = llvm.getelementptr %d[%o1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %e, %op : f32, !llvm.ptr<1>
        scf.yield %r#0 : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}
}
