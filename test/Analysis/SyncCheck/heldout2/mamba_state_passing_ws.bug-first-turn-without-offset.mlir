// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of mamba_state_passing_ws.mlir (same public source: mamba
// mamba_ssm/ops/triton/ssd_state_passing.py; cutlass
// sm90_gemm_tma_warpspecialized_pingpong.hpp, OrderedSequenceBarrier).
// BUG: warpgroup 0's wait for its turn has no phase offset (the starter of the
// ping-pong treated like the other): it waits for phase 0 of turn[0], which
// warpgroup 1 completes only after chunk 1, which it starts only after
// warpgroup 0 hands it chunk 0's state: a wait-for cycle. A diagnostic on
// warpgroup 1's wait (BUG-ALT) is accepted.
// Every launch fails (a hang on chunk 0; n_chunks >= 1).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @state() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
  gpu.func @mamba_state_passing_ws(%chunk_states: !llvm.ptr<1>, %dA_cs: !llvm.ptr<1>, %states: !llvm.ptr<1>, %n_chunks: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i128 = arith.constant 128 : i32
    %zero = arith.constant 0.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %e = arith.remui %tid, %i128 : i32
    // turn[w]: warpgroup w may take the state (counts the other's 128 threads).
    %turn = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      mbarrier.init %turn[%c0], %i128 : !mbarrier.group<2>
      mbarrier.init %turn[%c1], %i128 : !mbarrier.group<2>
    }
    gpu.barrier
    %st = llvm.mlir.addressof @state : !llvm.ptr<3>
    %sp = llvm.getelementptr %st[0, %e] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<128 x f32>
    %is_wg0 = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_wg0 {
      llvm.store %zero, %sp : f32, !llvm.ptr<3>
      scf.for %c = %i0 to %n_chunks step %i2 : i32 {
        %j = arith.divui %c, %i2 : i32
        %ph = arith.andi %j, %i1 : i32
        // Warpgroup 0 goes first: its first wait passes on the fresh barrier.
        mbarrier.wait %turn[%c0], %ph : !mbarrier.group<2> // BUG
        %prev = llvm.load %sp : !llvm.ptr<3> -> f32
        %dp = llvm.getelementptr %dA_cs[%c] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %da = llvm.load %dp : !llvm.ptr<1> -> f32
        %scale = math.exp %da : f32
        %ci0 = arith.muli %c, %i128 : i32
        %ci = arith.addi %ci0, %e : i32
        %cp = llvm.getelementptr %chunk_states[%ci] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %cs = llvm.load %cp : !llvm.ptr<1> -> f32
        %m = arith.mulf %scale, %prev : f32
        %new = arith.addf %m, %cs : f32
        llvm.store %new, %sp : f32, !llvm.ptr<3>
        %op = llvm.getelementptr %states[%ci] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %new, %op : f32, !llvm.ptr<1>
        mbarrier.arrive %turn[%c1] : !mbarrier.group<2>
      }
    } else {
      scf.for %c = %i1 to %n_chunks step %i2 : i32 {
        %j = arith.divui %c, %i2 : i32
        %ph = arith.andi %j, %i1 : i32
        mbarrier.wait %turn[%c1], %ph : !mbarrier.group<2> // BUG-ALT
        %prev = llvm.load %sp : !llvm.ptr<3> -> f32
        %dp = llvm.getelementptr %dA_cs[%c] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %da = llvm.load %dp : !llvm.ptr<1> -> f32
        %scale = math.exp %da : f32
        %ci0 = arith.muli %c, %i128 : i32
        %ci = arith.addi %ci0, %e : i32
        %cp = llvm.getelementptr %chunk_states[%ci] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %cs = llvm.load %cp : !llvm.ptr<1> -> f32
        %m = arith.mulf %scale, %prev : f32
        %new = arith.addf %m, %cs : f32
        llvm.store %new, %sp : f32, !llvm.ptr<3>
        %op = llvm.getelementptr %states[%ci] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %new, %op : f32, !llvm.ptr<1>
        mbarrier.arrive %turn[%c0] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}
}
