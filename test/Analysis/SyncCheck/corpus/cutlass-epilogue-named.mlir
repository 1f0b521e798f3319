// Correct-kernel corpus (issue 22): CUTLASS's epilogue named barrier around
// the reuse of the shared-memory staging buffer by the math warp groups.
// The checker must say nothing about it.
//
// Source: NVIDIA/cutlass,
// include/cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp
// (NamedBarrier::sync(size(TiledMma), EpilogueBarrier) before the warps
// write the staging buffer again and after they wrote it, with
// fence_view_async_shared before the TMA store of the elected thread),
// include/cutlass/arch/barrier.h (ReservedNamedBarriers::EpilogueBarrier =
// 1). Two math warp groups (256 threads) of a 384-thread CTA; the producer
// warp group does not take part; the TMA store is left out.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: bar.sync 1, 256;
// CHECK: st.shared
// CHECK: bar.sync 1, 256;
// CHECK: ld.shared

gpu.module @cutlass_epilogue {
  mbarrier.named_barrier @epilogue id 1
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<256 x i32>
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %i1 = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %math = arith.cmpi uge, %tid, %c128 : index
    %d = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    scf.if %math {
      %t = arith.subi %tid, %c128 : index
      %t32 = arith.index_cast %t : index to i32
      %slot = llvm.getelementptr %d[%t32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      scf.for %subtile = %c0 to %c2 step %c1 {
        // The previous subtile's store has read the buffer.
        mbarrier.bar_sync @epilogue threads 256
        llvm.store %t32, %slot : i32, !llvm.ptr<3>
        // Every warp wrote its part before the store reads it (here: each
        // thread reads its neighbour's element and writes it out).
        mbarrier.bar_sync @epilogue threads 256
        %nb = arith.xori %t32, %i1 : i32
        %nslot = llvm.getelementptr %d[%nb] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
        %v = llvm.load %nslot : !llvm.ptr<3> -> i32
        %o = llvm.getelementptr %out[%t32] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %v, %o : i32, !llvm.ptr<1>
      }
    }
    gpu.return
  }
}
