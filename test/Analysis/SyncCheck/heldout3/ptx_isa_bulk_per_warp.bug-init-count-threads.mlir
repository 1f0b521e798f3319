// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of ptx_isa_bulk_per_warp.mlir (same public source: the PTX ISA
// cp.async.bulk and mbarrier.arrive.expect_tx; cutlass SM90_BULK_COPY_G2S).
// BUG: the barrier is initialized with the block's thread count (128), as for
// a barrier every thread arrives on, while only lane 0 of each warp arrives
// (with its slice's bytes): 4 arrivals of 128, and the first round's wait,
// which every thread makes, never returns (BUG-ALT: a diagnostic on that
// wait is accepted).
// Every launch fails (for every %rounds >= 1).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @ptx_isa_bulk_per_warp(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %rounds: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i127 = arith.constant 127 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i256 = arith.constant 256 : i32
    %i1024 = arith.constant 1024 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %lane = arith.remui %tid, %i32 : i32
    %warp = arith.divui %tid, %i32 : i32
    %is_lane0 = arith.cmpi eq, %lane, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %bar = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %bar[%c0], %i128 : !mbarrier.group<1> // BUG
    }
    mbarrier.fence_init
    gpu.barrier
    %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %bp = mbarrier.ptr %bar[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
    %soff = arith.muli %warp, %i1024 : i32
    %slice = llvm.getelementptr %tile[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %t2 = arith.addi %tid, %i32 : i32
    %t3 = arith.andi %t2, %i127 : i32
    %ro = arith.muli %t3, %i32 : i32
    %rp = llvm.getelementptr %tile[%ro] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %sum = scf.for %r = %i0 to %rounds step %i1 iter_args(%acc = %zero) -> (vector<4xf32>) : i32 {
      scf.if %is_lane0 {
        %g0 = arith.muli %bid, %rounds : i32
        %g1 = arith.addi %g0, %r : i32
        %g2 = arith.muli %g1, %i256 : i32
        %w64 = arith.muli %warp, %i64 : i32
        %g = arith.addi %g2, %w64 : i32
        %gp = llvm.getelementptr %src[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        mbarrier.arrive_expect_tx %bar[%c0], %i1024 : !mbarrier.group<1>
        nvvm.cp.async.bulk.shared.cluster.global %slice, %gp, %bp, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
      }
      %ph = arith.andi %r, %i1 : i32
      mbarrier.wait %bar[%c0], %ph : !mbarrier.group<1> // BUG-ALT
      %x = llvm.load %rp : !llvm.ptr<3> -> vector<4xf32>
      %acc2 = arith.addf %acc, %x : vector<4xf32>
      gpu.barrier
      scf.yield %acc2 : vector<4xf32>
    }
    %o0 = arith.muli %bid, %i128 : i32
    %o = arith.addi %o0, %tid : i32
    %op = llvm.getelementptr %out[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %sum, %op : vector<4xf32>, !llvm.ptr<1>
    gpu.return
  }
}
}
