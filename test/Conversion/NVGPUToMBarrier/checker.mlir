// mbarrier-check-sync on raised nvgpu code: upstream MLIR's sm90 GEMM
// integration test (gemm_f32_f16_f16_128x128x128.mlir, its kernel after
// gpu-kernel-outlining; the wgmma part left out) initializes the barriers in
// every thread with no CTA barrier before thread 0 arrives: the
// NVIDIA/Fuser#1552 shape, which no tool flags upstream. After raising, the
// checker reports it (class 8, "init by several threads"; a warning: within
// one warp the inits are one instruction). The corrected twin (thread 0
// inits, gpu.barrier) is silent, and so are its TMA bytes: the three loads
// bring 16384 + 8192 + 8192 bytes (the boxes of their descriptors), the
// 32768 its arrive.expect_tx posts. With 16384 posted, class 6 is an error.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-raise-nvgpu --mbarrier-check-sync
// The same in the pipeline (the checker runs after the raise):
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(mbarrier-to-ptx-stage-nvvm{raise-nvgpu=true})"

// Upstream's shape: every thread initializes, no CTA barrier.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!lhs = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!rhs = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @every_thread_inits {
  gpu.func @gemm(%descA: !lhs, %descB: !rhs) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c32768 = arith.constant 32768 : index
    %c40960 = arith.constant 40960 : index
    %txcount = arith.constant 32768 : index
    %tidx = gpu.thread_id x
    %dynsmem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %barrier = nvgpu.mbarrier.create -> !barriers
    %cnd = arith.cmpi eq, %tidx, %c0 : index
    // expected-warning @+1 {{is executed by 128 threads of a CTA for the same barrier: an mbarrier.init of a barrier that another thread already initialized is undefined, and an arrival made before another thread's init is lost (NVIDIA/Fuser#1552); initialize from one thread (tid == 0, or elect.sync in one warp) and synchronize the CTA before any use}}
    nvgpu.mbarrier.init %barrier[%c0], %c1 : !barriers
    // expected-warning @+1 {{is executed by 128 threads of a CTA for the same barrier}}
    nvgpu.mbarrier.init %barrier[%c1], %c1 : !barriers
    scf.if %cnd {
      %lhsSlice = memref.view %dynsmem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
      %halfFirst = memref.view %dynsmem[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %halfSecond = memref.view %dynsmem[%c40960][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.arrive.expect_tx %barrier[%c0], %txcount : !barriers
      nvgpu.tma.async.load %descA[%c0, %c0], %barrier[%c0] to %lhsSlice : !lhs, !barriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c0, %c0], %barrier[%c0] to %halfFirst : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c64, %c0], %barrier[%c0] to %halfSecond : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %ticks = arith.constant 10000000 : index
    %phase_c0 = arith.constant 0 : i1
    nvgpu.mbarrier.try_wait.parity %barrier[%c0], %phase_c0, %ticks : !barriers
    gpu.return
  }
}

// -----

// The corrected twin: thread 0 initializes, then gpu.barrier. Silent.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!lhs = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!rhs = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @thread_zero_inits {
  gpu.func @gemm(%descA: !lhs, %descB: !rhs) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c32768 = arith.constant 32768 : index
    %c40960 = arith.constant 40960 : index
    %txcount = arith.constant 32768 : index
    %tidx = gpu.thread_id x
    %dynsmem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %barrier = nvgpu.mbarrier.create -> !barriers
    %cnd = arith.cmpi eq, %tidx, %c0 : index
    scf.if %cnd {
      nvgpu.mbarrier.init %barrier[%c0], %c1 : !barriers
      nvgpu.mbarrier.init %barrier[%c1], %c1 : !barriers
    }
    gpu.barrier
    scf.if %cnd {
      %lhsSlice = memref.view %dynsmem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
      %halfFirst = memref.view %dynsmem[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %halfSecond = memref.view %dynsmem[%c40960][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.arrive.expect_tx %barrier[%c0], %txcount : !barriers
      nvgpu.tma.async.load %descA[%c0, %c0], %barrier[%c0] to %lhsSlice : !lhs, !barriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c0, %c0], %barrier[%c0] to %halfFirst : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c64, %c0], %barrier[%c0] to %halfSecond : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %ticks = arith.constant 10000000 : index
    %phase_c0 = arith.constant 0 : i1
    nvgpu.mbarrier.try_wait.parity %barrier[%c0], %phase_c0, %ticks : !barriers
    gpu.return
  }
}

// -----

// The twin with half the bytes posted: the phase completes before the data lands.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!lhs = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!rhs = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @half_the_bytes {
  gpu.func @gemm(%descA: !lhs, %descB: !rhs) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c32768 = arith.constant 32768 : index
    %c40960 = arith.constant 40960 : index
    %txcount = arith.constant 16384 : index
    %tidx = gpu.thread_id x
    %dynsmem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %barrier = nvgpu.mbarrier.create -> !barriers
    %cnd = arith.cmpi eq, %tidx, %c0 : index
    scf.if %cnd {
      nvgpu.mbarrier.init %barrier[%c0], %c1 : !barriers
      nvgpu.mbarrier.init %barrier[%c1], %c1 : !barriers
    }
    gpu.barrier
    scf.if %cnd {
      %lhsSlice = memref.view %dynsmem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
      %halfFirst = memref.view %dynsmem[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %halfSecond = memref.view %dynsmem[%c40960][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      // expected-error @+1 {{expects 16384 transaction bytes on the barrier, but the bulk copies that complete on it bring 32768 bytes: the phase can complete before all the data has landed}}
      nvgpu.mbarrier.arrive.expect_tx %barrier[%c0], %txcount : !barriers
      nvgpu.tma.async.load %descA[%c0, %c0], %barrier[%c0] to %lhsSlice : !lhs, !barriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c0, %c0], %barrier[%c0] to %halfFirst : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %descB[%c64, %c0], %barrier[%c0] to %halfSecond : !rhs, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %ticks = arith.constant 10000000 : index
    %phase_c0 = arith.constant 0 : i1
    nvgpu.mbarrier.try_wait.parity %barrier[%c0], %phase_c0, %ticks : !barriers
    gpu.return
  }
}
