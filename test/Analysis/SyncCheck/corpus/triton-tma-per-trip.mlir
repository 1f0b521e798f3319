// Correct-kernel corpus (issue 20): Triton's lowering of a TMA descriptor load
// that is not pipelined, inside a loop: every trip allocates, initializes,
// arms, waits on phase 0 and invalidates one barrier. The checker must say
// nothing about it.
//
// Source: triton-lang/triton, lib/Dialect/TritonNvidiaGPU/Transforms/
// TMALowering.cpp (TMALoadLowering: local_alloc of the barrier,
// InitBarrierOp count 1, BarrierExpectOp with the tile's bytes,
// AsyncTMACopyGlobalToLocalOp on that barrier, WaitBarrierOp phase 0,
// InvalBarrierOp, then the local_load), as lowered to PTX by Triton: init,
// expect and inval by thread 0, the copy by warp 0's elected lane, the wait
// by every thread; the bar.sync that Triton's membar analysis puts between
// the barrier's init and its uses, and between the waits and the inval
// (test/TritonGPU/membar.mlir: "local_alloc / gpu.barrier / init_barrier").
// The tensor copy is a bulk copy of the same 8192 bytes.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: mbarrier.init.shared.b64
// CHECK: mbarrier.arrive.expect_tx
// CHECK: mbarrier.inval.shared.b64

gpu.module @triton_descriptor_load_loop {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i8>
  gpu.func @k(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %bytes = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %thread0 = arith.cmpi eq, %t, %i0 : i32
    %warp = arith.divui %t, %i32 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %barp = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%sum = %i0) -> (i32) {
      // ttg.local_alloc of the barrier (the same shared memory every trip).
      %g = mbarrier.view %barp : !llvm.ptr<3> -> !mbarrier.group<1>
      gpu.barrier
      scf.if %thread0 {
        mbarrier.init %g[%c0], %i1 : !mbarrier.group<1>
      }
      gpu.barrier
      // ttng.barrier_expect (pred true) and ttng.async_tma_copy_global_to_local.
      scf.if %thread0 {
        mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
      }
      scf.if %warp0 {
        %elected = nvvm.elect.sync -> i1
        scf.if %elected {
          %mb = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
          %i32v = arith.index_cast %i : index to i32
          %goff = arith.muli %i32v, %bytes : i32
          %s = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
          nvvm.cp.async.bulk.shared.cluster.global %buf, %s, %mb, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
        }
      }
      // ttng.wait_barrier %bar, phase 0
      mbarrier.wait %g[%c0], %i0 : !mbarrier.group<1>
      // ttg.local_load
      %off = arith.muli %t, %i4 : i32
      %p = llvm.getelementptr %buf[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %v = llvm.load %p : !llvm.ptr<3> -> i32
      %next = arith.addi %sum, %v : i32
      gpu.barrier
      // ttng.inval_barrier
      scf.if %thread0 {
        mbarrier.inval %g[%c0] : !mbarrier.group<1>
      }
      scf.yield %next : i32
    }
    %o = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %acc, %o : i32, !llvm.ptr<1>
    gpu.return
  }
}
