// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of flashinfer_decode.mlir (same public source: flashinfer
// include/flashinfer/attention/decode.cuh, cp_async.cuh).
// BUG: the main loop waits with cp_async::wait_group<2> instead of
// wait_group<num_stages - 1> = 1: with two groups committed ahead, chunk c's
// own group may still be in flight when the slices read its stage (the
// off-by-one of a hand-written multistage cp.async ring).
// Some launches fail (wrong values, a read racing the cp.async writes; when
// the copies land in time the result is right).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @kv() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @part() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
  gpu.func @flashinfer_decode(%k: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n_chunks: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %tz = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %kv = llvm.mlir.addressof @kv : !llvm.ptr<3>
    %part = llvm.mlir.addressof @part : !llvm.ptr<3>
    %my16 = arith.muli %tid, %i16 : i32
    // Prologue: chunks 0 and 1 (each its own group, empty if past the end).
    scf.for %c = %i0 to %i2 step %i1 : i32 {
      %live = arith.cmpi slt, %c, %n_chunks : i32
      scf.if %live {
        %soff = arith.muli %c, %i2048 : i32
        %doff = arith.addi %soff, %my16 : i32
        %dst = llvm.getelementptr %kv[%doff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %c, %i2048 : i32
        %goff = arith.addi %g, %my16 : i32
        %src = llvm.getelementptr %k[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
    }
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %c = %i0 to %n_chunks step %i1 iter_args(%a = %zero) -> (f32) : i32 {
      // Chunk c has landed (one younger group may still be in flight).
      nvvm.cp.async.wait.group 2 // BUG
      gpu.barrier
      %stage = arith.remui %c, %i2 : i32
      %soff = arith.muli %stage, %i2048 : i32
      %w = arith.muli %lane, %i16 : i32
      %t = arith.muli %tz, %i32 : i32
      %rd0 = arith.addi %soff, %w : i32
      %rd = arith.addi %rd0, %t : i32
      %rp = llvm.getelementptr %kv[%rd] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %rp : !llvm.ptr<3> -> f32
      %a2 = arith.addf %a, %x : f32
      // Every slice finished reading the stage before it is refilled.
      gpu.barrier
      %nc = arith.addi %c, %i2 : i32
      %live = arith.cmpi slt, %nc, %n_chunks : i32
      scf.if %live {
        %doff = arith.addi %soff, %my16 : i32
        %dst = llvm.getelementptr %kv[%doff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %g = arith.muli %nc, %i2048 : i32
        %goff = arith.addi %g, %my16 : i32
        %src = llvm.getelementptr %k[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      scf.yield %a2 : f32
    }
    nvvm.cp.async.wait.group 0
    // sync_bdz_states: partials to smem, block.sync(), slice 0 merges.
    %pp = llvm.getelementptr %part[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
    llvm.store %acc, %pp : f32, !llvm.ptr<3>
    gpu.barrier
    %is_tz0 = arith.cmpi eq, %tz, %i0 : i32
    scf.if %is_tz0 {
      %r1 = arith.addi %lane, %i32 : i32
      %r2 = arith.addi %r1, %i32 : i32
      %r3 = arith.addi %r2, %i32 : i32
      %p0 = llvm.getelementptr %part[0, %lane] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
      %p1 = llvm.getelementptr %part[0, %r1] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
      %p2 = llvm.getelementptr %part[0, %r2] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
      %p3 = llvm.getelementptr %part[0, %r3] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
      %v0 = llvm.load %p0 : !llvm.ptr<3> -> f32
      %v1 = llvm.load %p1 : !llvm.ptr<3> -> f32
      %v2 = llvm.load %p2 : !llvm.ptr<3> -> f32
      %v3 = llvm.load %p3 : !llvm.ptr<3> -> f32
      %s1 = arith.addf %v0, %v1 : f32
      %s2 = arith.addf %v2, %v3 : f32
      %sum = arith.addf %s1, %s2 : f32
      %o = llvm.getelementptr %out[%lane] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %sum, %o : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
