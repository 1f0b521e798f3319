// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fa2_bwd_cpasync(
// Follows Dao-AILab/flash-attention csrc/flash_attn/src/flash_bwd_kernel.h
// (compute_dq_dk_dv_1colblock, the FA2 backward on sm80+: K and V of the
// column block loaded once with cp.async, Q and dO of each row block
// double-buffered (Double_buffer: the copy of m_block - 1 issued into the
// other buffer while m_block is processed, cute::cp_async_fence after each
// batch), cute::cp_async_wait<1> + __syncthreads() before a block is read,
// dS written to shared memory (sdS) and a __syncthreads() before the
// dK = dS^T Q and dQ = dS K GEMMs read it back, and a __syncthreads() at the
// end of the block before its buffers are refilled). 128 threads; each
// thread copies 16 bytes of each tile and reads another warp's rows (so
// every read of shared memory depends on the CTA barriers). Row blocks
// m = 0 .. %m_blocks - 1 (FA2 walks them in reverse; the order does not
// matter to the synchronization). %m_blocks >= 1.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @sK() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @sV() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @sQ() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @sdO() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @sdS() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<512 x i8>
  gpu.func @fa2_bwd_cpasync(%k: !llvm.ptr<1>, %v: !llvm.ptr<1>, %q: !llvm.ptr<1>, %do: !llvm.ptr<1>, %dk: !llvm.ptr<1>, %dv: !llvm.ptr<1>, %m_blocks: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %sK = llvm.mlir.addressof @sK : !llvm.ptr<3>
    %sV = llvm.mlir.addressof @sV : !llvm.ptr<3>
    %sQ = llvm.mlir.addressof @sQ : !llvm.ptr<3>
    %sdO = llvm.mlir.addressof @sdO : !llvm.ptr<3>
    %sdS = llvm.mlir.addressof @sdS : !llvm.ptr<3>
    %mine = arith.muli %tid, %i16 : i32
    // Another warp's 16 bytes: (tid + 32) % 128.
    %other_t0 = arith.addi %tid, %i32 : i32
    %other_t = arith.remui %other_t0, %i128 : i32
    %other = arith.muli %other_t, %i16 : i32

    // K and V of this column block, one cp.async group.
    %kv0 = arith.muli %bid, %i2048 : i32
    %kvo = arith.addi %kv0, %mine : i32
    %gk = llvm.getelementptr %k[%kvo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %gv = llvm.getelementptr %v[%kvo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %dk_s = llvm.getelementptr %sK[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dv_s = llvm.getelementptr %sV[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    nvvm.cp.async.shared.global %dk_s, %gk, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.shared.global %dv_s, %gv, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    // Q and dO of row block 0 into buffer 0.
    %gq0 = llvm.getelementptr %q[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %gdo0 = llvm.getelementptr %do[%mine] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
    %sq0 = llvm.getelementptr %sQ[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %sdo0 = llvm.getelementptr %sdO[%mine] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    nvvm.cp.async.shared.global %sq0, %gq0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.shared.global %sdo0, %gdo0, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group

    %z = arith.constant 0.0 : f32
    %acc:2 = scf.for %m = %i0 to %m_blocks step %i1 iter_args(%adk = %z, %adv = %z) -> (f32, f32) : i32 {
      // Double buffer: issue row block m + 1 into the other buffer.
      %mn = arith.addi %m, %i1 : i32
      %more = arith.cmpi slt, %mn, %m_blocks : i32
      scf.if %more {
        %nbuf = arith.remui %mn, %i2 : i32
        %nboff = arith.muli %nbuf, %i2048 : i32
        %nso = arith.addi %nboff, %mine : i32
        %ngo0 = arith.muli %mn, %i2048 : i32
        %ngo = arith.addi %ngo0, %mine : i32
        %gq = llvm.getelementptr %q[%ngo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %gdo = llvm.getelementptr %do[%ngo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %sq = llvm.getelementptr %sQ[%nso] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %sdo = llvm.getelementptr %sdO[%nso] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        nvvm.cp.async.shared.global %sq, %gq, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.shared.global %sdo, %gdo, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      }
      nvvm.cp.async.commit.group
      // cp_async_wait<1>: everything but the batch just issued has landed.
      nvvm.cp.async.wait.group 1
      gpu.barrier
      %buf = arith.remui %m, %i2 : i32
      %boff = arith.muli %buf, %i2048 : i32
      %ro = arith.addi %boff, %other : i32
      // S = Q K^T, dP = dO V^T (another warp's rows).
      %pq = llvm.getelementptr %sQ[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %pk = llvm.getelementptr %sK[%other] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %pdo = llvm.getelementptr %sdO[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %pv = llvm.getelementptr %sV[%other] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %xq = llvm.load %pq : !llvm.ptr<3> -> f32
      %xk = llvm.load %pk : !llvm.ptr<3> -> f32
      %xdo = llvm.load %pdo : !llvm.ptr<3> -> f32
      %xv = llvm.load %pv : !llvm.ptr<3> -> f32
      %s = arith.mulf %xq, %xk : f32
      %dp = arith.mulf %xdo, %xv : f32
      %ds = arith.mulf %s, %dp : f32
      // dS to shared memory, then the barrier before the GEMMs read it.
      %mine4 = arith.muli %tid, %i4 : i32
      %other4 = arith.muli %other_t, %i4 : i32
      %pds_w = llvm.getelementptr %sdS[%mine4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      llvm.store %ds, %pds_w : f32, !llvm.ptr<3>
      gpu.barrier
      %pds_r = llvm.getelementptr %sdS[%other4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %xds = llvm.load %pds_r : !llvm.ptr<3> -> f32
      // dV += P^T dO, dK += dS^T Q.
      %pv2 = arith.mulf %s, %xdo : f32
      %adv2 = arith.addf %adv, %pv2 : f32
      %pk2 = arith.mulf %xds, %xq : f32
      %adk2 = arith.addf %adk, %pk2 : f32
      // End of the block: its buffers and sdS are free.
      gpu.barrier
      scf.yield %adk2, %adv2 : f32, f32
    }
    %oo0 = arith.muli %bid, %i128 : i32
    %oo = arith.addi %oo0, %tid : i32
    %pdk = llvm.getelementptr %dk[%oo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %pdv = llvm.getelementptr %dv[%oo] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %acc#0, %pdk : f32, !llvm.ptr<1>
    llvm.store %acc#1, %pdv : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
