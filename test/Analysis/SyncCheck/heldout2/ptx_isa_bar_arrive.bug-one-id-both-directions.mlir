// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of ptx_isa_bar_arrive.mlir (same public source: the PTX ISA,
// bar / barrier, the bar.arrive producer/consumer example).
// BUG: the consumer's hand-back arrives on the data barrier (`deposited`,
// id 0 in the ISA's example) instead of `taken` (id 1), a copy-paste of the
// line above it: nobody but the producer warp ever reaches `taken`, so the
// producer's bar.sync on it (64 threads, 32 arrive) never completes in round 0
// (meanwhile the consumer's extra arrivals on `deposited` let it run on with
// stale values). A diagnostic on the producer's bar.sync on `taken` (BUG-ALT)
// is accepted.
// Every launch fails (the producer warp hangs in round 0; rounds >= 1).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @box() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i32>
  mbarrier.named_barrier @deposited
  mbarrier.named_barrier @taken
  gpu.func @ptx_isa_bar_arrive(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %rounds: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %lane = arith.remui %tid, %i32 : i32
    %box = llvm.mlir.addressof @box : !llvm.ptr<3>
    %slot = llvm.getelementptr %box[0, %lane] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x i32>
    %is_producer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_producer {
      %first = llvm.load %in : !llvm.ptr<1> -> i32
      %last = scf.for %r = %i0 to %rounds step %i1 iter_args(%v = %first) -> (i32) : i32 {
        llvm.store %v, %slot : i32, !llvm.ptr<3>
        mbarrier.bar_arrive @deposited threads 64
        %r1 = arith.addi %r, %i1 : i32
        %g0 = arith.muli %r1, %i32 : i32
        %g = arith.addi %g0, %lane : i32
        %src = llvm.getelementptr %in[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        %next = llvm.load %src : !llvm.ptr<1> -> i32
        // The consumer has taken this round's value: the box may be reused.
        mbarrier.bar_sync @taken threads 64 // BUG-ALT
        scf.yield %next : i32
      }
    } else {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        mbarrier.bar_sync @deposited threads 64
        %v = llvm.load %slot : !llvm.ptr<3> -> i32
        mbarrier.bar_arrive @deposited threads 64 // BUG
        %g0 = arith.muli %r, %i32 : i32
        %g = arith.addi %g0, %lane : i32
        %dst = llvm.getelementptr %out[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %dst : i32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
}
