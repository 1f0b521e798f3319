// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of fa2_fwd_cpasync.mlir (same public source: flash-attention
// csrc/flash_attn/src/flash_fwd_kernel.h compute_attn_1rowblock).
// BUG: the K copy of n_block - 1 is issued between cp_async_wait<0>() and the
// __syncthreads() that ends S = Q K^T, instead of after it: a fast thread's
// cp.async overwrites its chunk of sK while a slower warp still reads it for
// its S. (The barrier, now after the copy, still publishes sV.)
// Some launches fail: only where %n_blocks >= 2 (a next K block exists), and
// then as a race.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @sq() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @sk() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @sv() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @fa2_fwd_cpasync(%q: !llvm.ptr<1>, %k: !llvm.ptr<1>, %v: !llvm.ptr<1>, %o: !llvm.ptr<1>, %n_blocks: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %sq = llvm.mlir.addressof @sq : !llvm.ptr<3>
    %sk = llvm.mlir.addressof @sk : !llvm.ptr<3>
    %sv = llvm.mlir.addressof @sv : !llvm.ptr<3>
    // This thread's chunk, and the chunk (of the next warp) it reads.
    %mine = arith.muli %tid, %i16 : i32
    %t2 = arith.addi %tid, %i32 : i32
    %t3 = arith.andi %t2, %i127 : i32
    %theirs = arith.muli %t3, %i16 : i32
    %dq = llvm.getelementptr %sq[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dk = llvm.getelementptr %sk[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dv = llvm.getelementptr %sv[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rq = llvm.getelementptr %sq[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rk = llvm.getelementptr %sk[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %rv = llvm.getelementptr %sv[%theirs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %qrow = arith.muli %bid, %i128 : i32
    %qi = arith.addi %qrow, %tid : i32
    %gq = llvm.getelementptr %q[%qi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    nvvm.cp.async.shared.global %dq, %gq, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    %nb_last = arith.subi %n_blocks, %i1 : i32
    %k0 = arith.muli %nb_last, %i128 : i32
    %k0i = arith.addi %k0, %tid : i32
    %gk0 = llvm.getelementptr %k[%k0i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    nvvm.cp.async.shared.global %dk, %gk0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %acc_o = scf.for %i = %i0 to %n_blocks step %i1 iter_args(%acc = %zero) -> (vector<4xf32>) : i32 {
      %n_block = arith.subi %nb_last, %i : i32
      nvvm.cp.async.wait.group 0
      gpu.barrier
      // V of n_block into sV (every thread's reads of sV are behind the barrier).
      %vi0 = arith.muli %n_block, %i128 : i32
      %vi = arith.addi %vi0, %tid : i32
      %gv = llvm.getelementptr %v[%vi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
      nvvm.cp.async.shared.global %dv, %gv, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      // S = Q K^T.
      %qv = llvm.load %rq : !llvm.ptr<3> -> vector<4xf32>
      %kv = llvm.load %rk : !llvm.ptr<3> -> vector<4xf32>
      %s = arith.mulf %qv, %kv : vector<4xf32>
      nvvm.cp.async.wait.group 0
      // K of n_block - 1 into sK, if there is one.
      %more = arith.cmpi sgt, %n_block, %i0 : i32
      scf.if %more {
        %nbm = arith.subi %n_block, %i1 : i32
        %ki0 = arith.muli %nbm, %i128 : i32
        %ki = arith.addi %ki0, %tid : i32
        %gk = llvm.getelementptr %k[%ki] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        nvvm.cp.async.shared.global %dk, %gk, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1> // BUG
        nvvm.cp.async.commit.group
      }
      // __syncthreads() (too late for the sK readers).
      gpu.barrier
      // O += P V.
      %vv = llvm.load %rv : !llvm.ptr<3> -> vector<4xf32>
      %pv = arith.mulf %s, %vv : vector<4xf32>
      %acc2 = arith.addf %acc, %pv : vector<4xf32>
      scf.yield %acc2 : vector<4xf32>
    }
    %go = llvm.getelementptr %o[%qi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %acc_o, %go : vector<4xf32>, !llvm.ptr<1>
    gpu.return
  }
}
}
