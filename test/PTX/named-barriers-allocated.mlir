// Through mbarrier-to-ptx, which assigns the ids first (0 reserved by
// default; `named-barrier-reserved=0,1-7` for kernels next to CUTLASS's ids).
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --implicit-check-not="bar.sync" --implicit-check-not="bar.arrive"
// RUN: mbarrier-opt %s --mbarrier-to-ptx-stage-nvvm="named-barrier-reserved=0,1-7" | FileCheck %s --check-prefix=CUTLASS --implicit-check-not=" mbarrier."

// CHECK-LABEL: .entry k(
// CUTLASS-LABEL: gpu.func @k(
gpu.module @allocated {
  mbarrier.named_barrier @wg1
  mbarrier.named_barrier @wg2
  gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    // CHECK: bar.arrive 1, 256;
    // CUTLASS: %[[ID8:.*]] = llvm.mlir.constant(8 : i32) : i32
    // CUTLASS: nvvm.barrier.arrive id = %[[ID8]]
    mbarrier.bar_arrive @wg1 threads 256
    // CHECK: bar.sync 2, 256;
    // CUTLASS: %[[ID9:.*]] = llvm.mlir.constant(9 : i32) : i32
    // CUTLASS: nvvm.barrier id = %[[ID9]]
    mbarrier.bar_sync @wg2 threads 256
    gpu.return
  }
}
