// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry quack_cluster_reduce(
// Follows Dao-AILab/quack quack/reduce.py (cluster_reduce /
// block_or_cluster_reduce) and quack/rmsnorm.py with cluster_n = 4: thread 0
// of each CTA initializes the reduction mbarrier (mbarrier_init +
// mbarrier_init_fence), cluster_arrive_relaxed() + cluster_wait(); each
// warp reduces its row slice, and lane l < cluster_n of every warp writes the
// warp's value into CTA l's reduction buffer at [rank][warp]; every thread
// waits for phase 0 of its own barrier, then reads all cluster_n x num_warps
// values. quack sends each value with st.async.shared::cluster.mbarrier::
// complete_tx::bytes against an expect-tx of num_warps * cluster_n * 4 bytes;
// here each value is a mapped store followed by a release.cluster arrival on
// the target CTA's barrier, which therefore counts cluster_n x num_warps = 16
// arrivals. No CTA exits before every value sent to it has arrived, so no
// trailing cluster barrier is needed.
// A 4 x 1 cluster of 128-thread CTAs (4 warps); %n_cols columns per row.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @red_buf() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x f32>
  gpu.func @quack_cluster_reduce(%x: !llvm.ptr<1>, %rstd: !llvm.ptr<1>, %n_cols: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i5 = arith.constant 5 : i32
    %i16 = arith.constant 16 : i32
    %i128 = arith.constant 128 : i32
    %i32 = arith.constant 32 : i32
    %i512 = arith.constant 512 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %cid_x = gpu.cluster_id x
    %row = arith.index_cast %cid_x : index to i32
    %mbar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %mbar[%c0], %i16 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    // This thread's partial sum of squares over its columns of the row.
    %zero = arith.constant 0.0 : f32
    %rowoff = arith.muli %row, %n_cols : i32
    %lo = arith.muli %rank, %i512 : i32
    %start = arith.addi %lo, %tid : i32
    %end0 = arith.addi %lo, %i512 : i32
    %end = arith.minui %end0, %n_cols : i32
    %part = scf.for %j = %start to %end step %i128 iter_args(%s = %zero) -> (f32) : i32 {
      %g = arith.addi %rowoff, %j : i32
      %p = llvm.getelementptr %x[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %v2 = arith.mulf %v, %v : f32
      %s2 = arith.addf %s, %v2 : f32
      scf.yield %s2 : f32
    }
    // Warp reduction (butterfly shuffles).
    %full_mask = arith.constant -1 : i32
    %clamp = arith.constant 31 : i32
    %w = scf.for %k = %i0 to %i5 step %i1 iter_args(%acc = %part) -> (f32) : i32 {
      %off = arith.shli %i1, %k : i32
      %o = nvvm.shfl.sync bfly %full_mask, %acc, %off, %clamp : f32 -> f32
      %a2 = arith.addf %acc, %o : f32
      scf.yield %a2 : f32
    }
    // Lane l < cluster_n sends the warp's value to CTA l, slot [rank][warp].
    %buf = llvm.mlir.addressof @red_buf : !llvm.ptr<3>
    %is_sender = arith.cmpi ult, %lane, %i4 : i32
    scf.if %is_sender {
      %s0 = arith.muli %rank, %i4 : i32
      %slot = arith.addi %s0, %warp : i32
      %mine = llvm.getelementptr %buf[0, %slot] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16 x f32>
      %theirs = nvvm.mapa %mine, %lane : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %w, %theirs : f32, !llvm.ptr<7>
      %peer = mbarrier.remote_view %mbar, %lane : !mbarrier.group<1>
      mbarrier.arrive %peer[%c0] : !mbarrier.remote<1>
    }
    mbarrier.wait %mbar[%c0], %i0 {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
    %sum = scf.for %k = %i0 to %i16 step %i1 iter_args(%acc = %zero) -> (f32) : i32 {
      %p = llvm.getelementptr %buf[0, %k] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<16 x f32>
      %v = llvm.load %p : !llvm.ptr<3> -> f32
      %a2 = arith.addf %acc, %v : f32
      scf.yield %a2 : f32
    }
    %is_out = arith.cmpi eq, %tid, %i0 : i32
    %rank0 = arith.cmpi eq, %rank, %i0 : i32
    %writer = arith.andi %is_out, %rank0 : i1
    scf.if %writer {
      %op = llvm.getelementptr %rstd[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %sum, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
