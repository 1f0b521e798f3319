// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry ptx_isa_bar_arrive(
// Follows the PTX ISA, "Parallel Synchronization and Communication
// Instructions: bar, barrier" (the producer/consumer example of bar.arrive:
// "Producer threads execute: st.shared [r0],r1; bar.arrive 0,64;
// ld.global r1,[r2]; bar.sync 1,64; ...  Consumer threads execute:
// bar.sync 0,64; ld.shared r1,[r0]; bar.arrive 1,64; ...": one warp
// deposits a value per lane, the other takes it, over two barriers with
// 64 threads each), repeated over %rounds rounds through the one buffer.
// 64 threads: warp 0 produces, warp 1 consumes. The two barriers are named
// (the allocator gives them two hardware ids).
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
        mbarrier.bar_sync @taken threads 64
        scf.yield %next : i32
      }
    } else {
      scf.for %r = %i0 to %rounds step %i1 : i32 {
        mbarrier.bar_sync @deposited threads 64
        %v = llvm.load %slot : !llvm.ptr<3> -> i32
        mbarrier.bar_arrive @taken threads 64
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
