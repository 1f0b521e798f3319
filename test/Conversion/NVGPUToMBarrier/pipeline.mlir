// nvgpu kernels through mbarrier-to-ptx{raise-nvgpu=true}: the raise runs
// first, the PTX is this dialect's (no nvgpu op is left to the upstream
// lowering here), in mbarrier-opt and in the stock mlir-opt with our plugin.
// What changes against nvgpu's own lowering (the third RUN, NVGPU prefix):
// - the wait of a cluster kernel acquires at .cluster scope
//   (`try_wait.parity.acquire.cluster`), nvgpu's at .cta (`.shared.b64`, the
//   PTX default .acquire.cta) whatever the kernel;
// - the wait is this dialect's loop around one try_wait with the ticks as
//   its suspendTimeHint, not nvgpu's inline-asm loop (`waitLoop:`).
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx{chip=sm_90 raise-nvgpu=true})" \
// RUN:   | FileCheck %s --implicit-check-not=waitLoop
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-to-ptx{chip=sm_90 raise-nvgpu=true})" \
// RUN:   | FileCheck %s --implicit-check-not=waitLoop
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(gpu.module(convert-nvgpu-to-nvvm))" | FileCheck %s --check-prefix=NVGPU
// Stage 1 alone: the raised ops are lowered, nothing of nvgpu is left.
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{chip=sm_90 raise-nvgpu=true})" \
// RUN:   | FileCheck %s --check-prefix=STAGE1 --implicit-check-not=" nvgpu." --implicit-check-not=" mbarrier."

// CHECK: gpu.binary @kernels
// The non-cluster kernel's wait: .cta (no qualifier), suspend hint 1000.
// CHECK-SAME: .entry local_wait(
// CHECK-SAME: mbarrier.init.shared.b64
// CHECK-SAME: mbarrier.arrive.shared.b64
// CHECK-SAME: mbarrier.try_wait.parity.shared.b64 [[P:%p[0-9]+]], [%rd{{[0-9]+}}], %r{{[0-9]+}}, %r{{[0-9]+}};
// The cluster kernel's wait: .acquire.cluster.
// CHECK-SAME: .entry cluster_wait(
// CHECK-SAME: mbarrier.try_wait.parity.acquire.cluster.shared.b64
// The TMA kernel: the expect_tx, the multicast tensor copy on the barrier.
// CHECK-SAME: .entry tma_multicast(
// CHECK-SAME: mbarrier.arrive.expect_tx.shared.b64
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster

// NVGPU-LABEL: gpu.func @local_wait(
// NVGPU: nvvm.mbarrier.try_wait.parity
// NVGPU-LABEL: gpu.func @cluster_wait(
// NVGPU: nvvm.mbarrier.try_wait.parity

// STAGE1-LABEL: gpu.func @local_wait(
// STAGE1: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// STAGE1-LABEL: gpu.func @cluster_wait(
// STAGE1: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i32 -> i1
// STAGE1-LABEL: gpu.func @tma_multicast(
// STAGE1-SAME: %{{[^:]*}}: !llvm.ptr)
// STAGE1: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!half = memref<32x8xf32, 3>
!desc = !nvgpu.tensormap.descriptor<tensor = !half, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tile : memref<2048xi8, 3> {alignment = 128 : i64}

    gpu.func @local_wait() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %false = arith.constant false
      %ticks = arith.constant 1000 : index
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %g = nvgpu.mbarrier.create -> !barriers
      scf.if %leader {
        nvgpu.mbarrier.init %g[%c0], %c1 : !barriers
      }
      gpu.barrier
      scf.if %leader {
        %t = nvgpu.mbarrier.arrive %g[%c0] : !barriers -> !nvgpu.mbarrier.token
      }
      nvgpu.mbarrier.try_wait.parity %g[%c0], %false, %ticks : !barriers
      gpu.return
    }

    gpu.func @cluster_wait() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %false = arith.constant false
      %ticks = arith.constant 1000 : index
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %g = nvgpu.mbarrier.create -> !barriers
      scf.if %leader {
        nvgpu.mbarrier.init %g[%c0], %c1 : !barriers
      }
      gpu.barrier
      scf.if %leader {
        %t = nvgpu.mbarrier.arrive %g[%c0] : !barriers -> !nvgpu.mbarrier.token
      }
      nvgpu.mbarrier.try_wait.parity %g[%c0], %false, %ticks : !barriers
      gpu.return
    }

    // Each CTA of a 2-CTA cluster loads its half of the 64x8 tile (a box
    // of 32x8 f32, 1024 bytes) into that half of the tile in both CTAs
    // (multicast): each CTA's barrier receives 2 * 1024 bytes, which is what
    // its leader expects (the checker counts the multicast bytes per CTA).
    gpu.func @tma_multicast(%d: !desc) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c1024 = arith.constant 1024 : index
      %c2048 = arith.constant 2048 : index
      %mask = arith.constant 3 : i16
      %false = arith.constant false
      %ticks = arith.constant 1000 : index
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %g = nvgpu.mbarrier.create -> !barriers
      scf.if %leader {
        nvgpu.mbarrier.init %g[%c0], %c1 : !barriers
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %tile = memref.get_global @tile : memref<2048xi8, 3>
      %rank32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %rank = arith.index_cast %rank32 : i32 to index
      %offset = arith.muli %rank, %c1024 : index
      %buf = memref.view %tile[%offset][] : memref<2048xi8, 3> to !half
      %row = arith.muli %rank, %c32 : index
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %g[%c0], %c2048 : !barriers
        nvgpu.tma.async.load %d[%c0, %row], %g[%c0] to %buf multicast_mask = %mask : !desc, !barriers -> !half
      }
      nvgpu.mbarrier.try_wait.parity %g[%c0], %false, %ticks : !barriers
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
  }
}
