// Upstream's usual TMA shape: the destination is a memref.subview of a
// shared-memory global (a strided memref with an offset). mbarrier-to-ptx
// expands the strided metadata (expand-strided-metadata, lower-affine)
// before gpu-to-nvvm, as upstream's gpu-lower-to-nvvm-pipeline does; without
// it, serialization failed on a builtin.unrealized_conversion_cast.
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx{chip=sm_90 raise-nvgpu=true})" \
// RUN:   | FileCheck %s
// RUN: mbarrier-compile %s --raise-nvgpu --emit ptx | FileCheck %s --check-prefix=PTX
// The destination's offset (32 rows of 8 f32: 1024 bytes) is in the address.
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{chip=sm_90 raise-nvgpu=true}, mbarrier-to-ptx-stage-llvm)" \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=unrealized_conversion_cast --implicit-check-not=memref.

// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: .entry tma_subview(
// CHECK-SAME: mbarrier.arrive.expect_tx.shared.b64
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// PTX-LABEL: .entry tma_subview(
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: unrealized

// LLVM-LABEL: llvm.func @tma_subview(
// LLVM: llvm.mlir.addressof @tile
// LLVM: [[OFFSET:%[0-9]+]] = llvm.mlir.constant(1024 : index) : i64
// LLVM: [[BASE:%[0-9]+]] = llvm.ptrtoint
// LLVM-NEXT: [[SUM:%[0-9]+]] = llvm.add [[BASE]], [[OFFSET]] : i64
// LLVM-NEXT: [[PTR:%[0-9]+]] = llvm.inttoptr [[SUM]] : i64 to !llvm.ptr<3>
// LLVM-NEXT: [[DST:%[0-9]+]] = llvm.addrspacecast [[PTR]] : !llvm.ptr<3> to !llvm.ptr<7>
// LLVM-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[DST]], %arg0,

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!tile = memref<32x8xf32, 3>
!desc = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tile : memref<64x8xf32, 3> {alignment = 128 : i64}
    gpu.func @tma_subview(%d: !desc) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c1024 = arith.constant 1024 : index
      %false = arith.constant false
      %ticks = arith.constant 1000 : index
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %g = nvgpu.mbarrier.create -> !barriers
      scf.if %leader {
        nvgpu.mbarrier.init %g[%c0], %c1 : !barriers
      }
      gpu.barrier
      %all = memref.get_global @tile : memref<64x8xf32, 3>
      %buf = memref.subview %all[32, 0] [32, 8] [1, 1] : memref<64x8xf32, 3> to memref<32x8xf32, strided<[8, 1], offset: 256>, 3>
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %g[%c0], %c1024 : !barriers
        nvgpu.tma.async.load %d[%c0, %c0], %g[%c0] to %buf : !desc, !barriers -> memref<32x8xf32, strided<[8, 1], offset: 256>, 3>
      }
      nvgpu.mbarrier.try_wait.parity %g[%c0], %false, %ticks : !barriers
      gpu.return
    }
  }
}
