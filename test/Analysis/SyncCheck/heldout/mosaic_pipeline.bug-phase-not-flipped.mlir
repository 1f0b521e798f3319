// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of mosaic_pipeline.mlir (same public source: jax
// jax/experimental/mosaic/gpu/examples/matmul.py, utils.py BarrierRef.wait).
// BUG: the loop yields the phases bitfield it received, not the flipped one
// (the missing phase flip): from the second lap on, a step waits parity 0 on
// a barrier whose phase 0 has already completed, returns at once, and its
// wgmma reads the slot while the TMA copy of this lap is still landing.
// A diagnostic on the wait that uses the stale parity (BUG-ALT) is accepted.
// Some launches fail (wrong values, for %k_steps >= 4; %k_steps <= 3 is right).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @mosaic_pipeline(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_steps: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i64 : i32
    %bars = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    // Prologue: fetch steps 0 and 1 (max_concurrent_steps - 1).
    scf.if %is_tid0 {
      scf.for %ki = %i0 to %i2 step %i1 : i32 {
        %live = arith.cmpi slt, %ki, %k_steps : i32
        scf.if %live {
          %s = arith.index_cast %ki : i32 to index
          %off = arith.muli %ki, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %ki, %i64 : i32
          mbarrier.arrive_expect_tx %bars[%s], %i8192 : !mbarrier.group<3>
          mbarrier.cp_async_bulk_tensor %bars[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %bars[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        }
      }
    }
    %z = llvm.mlir.zero : !acc
    %r:2 = scf.for %ki = %i0 to %k_steps step %i1 iter_args(%phases = %i0, %acc = %z) -> (i32, !acc) : i32 {
      %slot32 = arith.remui %ki, %i3 : i32
      %slot = arith.index_cast %slot32 : i32 to index
      // BarrierRef.wait: this barrier's parity bit, then flip it.
      %sh = arith.shrui %phases, %slot32 : i32
      %par = arith.andi %sh, %i1 : i32
      mbarrier.wait %bars[%slot], %par : !mbarrier.group<3> // BUG-ALT
      %bit = arith.shli %i1, %slot32 : i32
      %phases2 = arith.xori %phases, %bit : i32
      %off = arith.muli %slot32, %i4096 : i32
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
      // The previous step's wgmma has finished reading its slot.
      nvvm.wgmma.wait.group.sync.aligned 1
      gpu.barrier
      %fetch = arith.addi %ki, %i2 : i32
      %more = arith.cmpi slt, %fetch, %k_steps : i32
      %go = arith.andi %more, %is_tid0 : i1
      scf.if %go {
        %fs32 = arith.remui %fetch, %i3 : i32
        %fs = arith.index_cast %fs32 : i32 to index
        %foff = arith.muli %fs32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%foff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%foff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %fetch, %i64 : i32
        mbarrier.arrive_expect_tx %bars[%fs], %i8192 : !mbarrier.group<3>
        mbarrier.cp_async_bulk_tensor %bars[%fs], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %bars[%fs], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
      scf.yield %phases, %acc2 : i32, !acc // BUG
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    %e = llvm.extractvalue %r#1[0] : !acc
    %idx0 = arith.muli %bid, %i64 : i32
    %idx = arith.addi %idx0, %tid : i32
    %op = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %e, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
