// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cute_sgemm_sm80.mlir (same public source: NVIDIA/cutlass
// examples/cute/tutorial/sgemm_sm80.cu, gemm_device).
// BUG: the mainloop's cp_async_wait<K_PIPE_MAX - 2>() is left out, leaving
// only the __syncthreads(): a CTA barrier does not wait for cp.async
// copies (they complete only through cp.async.wait_group / wait_all, per
// thread), so from tile 1 on a thread reads another warp's bytes of a stage
// whose copy may still be in flight (NVIDIA/Fuser#3428: a race reported for
// exactly this, fixed by a cp.async.wait_all before the __syncthreads).
// Some launches fail (a race: only with %k_tiles >= 2, and only when a copy
// is slower than the tile's compute).
// BUG-ALT: the read of the stage whose copy was never waited.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @sA() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  llvm.mlir.global internal @sB() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<6144 x i8>
  gpu.func @cute_sgemm_sm80(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %sA = llvm.mlir.addressof @sA : !llvm.ptr<3>
    %sB = llvm.mlir.addressof @sB : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    %other_t0 = arith.addi %tid, %i32 : i32
    %other_t = arith.remui %other_t0, %i128 : i32
    %other = arith.muli %other_t, %i16 : i32
    %gbase = arith.muli %bid, %k_tiles : i32

    // Prologue: tiles 0 and 1 (those below %k_tiles) into stages 0 and 1.
    scf.for %t = %i0 to %i2 step %i1 : i32 {
      %in_range = arith.cmpi slt, %t, %k_tiles : i32
      scf.if %in_range {
        %soff0 = arith.muli %t, %i2048 : i32
        %soff = arith.addi %soff0, %mine : i32
        %gt = arith.addi %gbase, %t : i32
        %goff0 = arith.muli %gt, %i2048 : i32
        %goff = arith.addi %goff0, %mine : i32
        %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %gb = llvm.getelementptr %b[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %db = llvm.getelementptr %sB[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.shared.global %db, %gb, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    // cp_async_wait<K_PIPE_MAX - 2>: tile 0 has landed; __syncthreads.
    nvvm.cp.async.wait.group 1
    gpu.barrier

    %z = arith.constant 0.0 : f32
    %acc = scf.for %t = %i0 to %k_tiles step %i1 iter_args(%sum = %z) -> (f32) : i32 {
      // Copy tile t + 2 into the stage tile t - 1 used.
      %tw = arith.addi %t, %i2 : i32
      %more = arith.cmpi slt, %tw, %k_tiles : i32
      scf.if %more {
        %ws = arith.remui %tw, %i3 : i32
        %woff0 = arith.muli %ws, %i2048 : i32
        %woff = arith.addi %woff0, %mine : i32
        %gt = arith.addi %gbase, %tw : i32
        %goff0 = arith.muli %gt, %i2048 : i32
        %goff = arith.addi %goff0, %mine : i32
        %ga = llvm.getelementptr %a[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %gb = llvm.getelementptr %b[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %da = llvm.getelementptr %sA[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %db = llvm.getelementptr %sB[%woff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %da, %ga, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.shared.global %db, %gb, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // The k_blocks of tile t: copy smem -> registers, gemm.
      %rs = arith.remui %t, %i3 : i32
      %roff0 = arith.muli %rs, %i2048 : i32
      %roff = arith.addi %roff0, %other : i32
      %pa = llvm.getelementptr %sA[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %pb = llvm.getelementptr %sB[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %xa = llvm.load %pa : !llvm.ptr<3> -> f32 // BUG-ALT
      %xb = llvm.load %pb : !llvm.ptr<3> -> f32 // BUG-ALT
      %prod = arith.mulf %xa, %xb : f32
      %sum2 = arith.addf %sum, %prod : f32
      // __syncthreads.
      gpu.barrier // BUG
      scf.yield %sum2 : f32
    }
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc, %op : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
