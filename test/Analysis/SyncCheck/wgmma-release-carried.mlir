// Class 17, a release one stage behind (NVIDIA/cutlass
// sm90_mma_tma_gmma_ss_warpspecialized.hpp mma(): each trip waits its
// stage, issues and commits its MMA, warpgroup_wait<K_PIPE_MMAS>(), then
// consumer_release of the previous trip's stage, carried as an iter_arg).
// With K_PIPE_MMAS = 1 the previous trip's MMA is done at the release;
// with wait_group 2 it may still read the stage the producer refills: a
// warning at the release.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// warpgroup_wait<2>() with the release one stage behind: a warning.
gpu.module @lagging_release_after_wait_group_two {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    // Stages 0-3: full barriers; 4-7: empty barriers.
    %bars = mbarrier.alloc : !mbarrier.group<8>
    scf.if %leader {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<8>
        %e = arith.addi %s, %c4 : index
        mbarrier.init %bars[%e], %i1 : !mbarrier.group<8>
      }
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i4 : i32
        %s = arith.index_castui %s32 : i32 to index
        %round = arith.divui %i, %i4 : i32
        %parity = arith.andi %round, %i1 : i32
        %e = arith.addi %s, %c4 : index
        mbarrier.wait %bars[%e], %parity {phase_offset = 1 : i32} : !mbarrier.group<8>
        mbarrier.arrive %bars[%s] : !mbarrier.group<8>
      }
    }
    scf.if %consumer {
      // The prologue MMA on stage 0, committed, not released.
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      mbarrier.wait %bars[%c0], %i0 : !mbarrier.group<8>
      nvvm.wgmma.fence.aligned
      %d0 = nvvm.wgmma.mma_async %descA, %descB, %acc0, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      // Trip k waits stage k, issues and commits its MMA, waits, and
      // releases stage k - 1 (the slot carried from the previous trip).
      %r:2 = scf.for %i = %i1 to %n step %i1 iter_args(%prev = %c0, %acc = %d0) -> (index, !llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s32 = arith.remui %i, %i4 : i32
        %s = arith.index_castui %s32 : i32 to index
        %round = arith.divui %i, %i4 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %bars[%s], %parity : !mbarrier.group<8>
        nvvm.wgmma.fence.aligned
      // expected-note @+1 {{the wgmma.mma_async that reads the stage}}
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 2
        %e = arith.addi %prev, %c4 : index
        // expected-warning @+1 {{releases a stage while a wgmma.mma_async that reads it may still run: no nvvm.wgmma.wait.group.sync.aligned between them frees its group (wait_group N keeps the newest N groups pending), so the producer's next copy into the stage can overwrite operands the MMA has not read yet (facebookexperimental/triton#1278): the stage is the previous trip's, so wait with wait_group 1 at most (CUTLASS's warpgroup_wait<K_PIPE_MMAS>() with the release K_PIPE_MMAS stages behind)}}
        mbarrier.arrive %bars[%e] if %first : !mbarrier.group<8>
        scf.yield %s, %d : index, !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %last = arith.addi %r#0, %c4 : index
      mbarrier.arrive %bars[%last] if %first : !mbarrier.group<8>
    }
    gpu.return
  }
}

// -----

// warpgroup_wait<1>() (CUTLASS's K_PIPE_MMAS = 1): the previous trip's MMA
// is freed before its stage is released. Silent.
gpu.module @lagging_release_after_wait_group_one {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    // Stages 0-3: full barriers; 4-7: empty barriers.
    %bars = mbarrier.alloc : !mbarrier.group<8>
    scf.if %leader {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %bars[%s], %i1 : !mbarrier.group<8>
        %e = arith.addi %s, %c4 : index
        mbarrier.init %bars[%e], %i1 : !mbarrier.group<8>
      }
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s32 = arith.remui %i, %i4 : i32
        %s = arith.index_castui %s32 : i32 to index
        %round = arith.divui %i, %i4 : i32
        %parity = arith.andi %round, %i1 : i32
        %e = arith.addi %s, %c4 : index
        mbarrier.wait %bars[%e], %parity {phase_offset = 1 : i32} : !mbarrier.group<8>
        mbarrier.arrive %bars[%s] : !mbarrier.group<8>
      }
    }
    scf.if %consumer {
      // The prologue MMA on stage 0, committed, not released.
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      mbarrier.wait %bars[%c0], %i0 : !mbarrier.group<8>
      nvvm.wgmma.fence.aligned
      %d0 = nvvm.wgmma.mma_async %descA, %descB, %acc0, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      // Trip k waits stage k, issues and commits its MMA, waits, and
      // releases stage k - 1 (the slot carried from the previous trip).
      %r:2 = scf.for %i = %i1 to %n step %i1 iter_args(%prev = %c0, %acc = %d0) -> (index, !llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s32 = arith.remui %i, %i4 : i32
        %s = arith.index_castui %s32 : i32 to index
        %round = arith.divui %i, %i4 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %bars[%s], %parity : !mbarrier.group<8>
        nvvm.wgmma.fence.aligned
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 1
        %e = arith.addi %prev, %c4 : index
        mbarrier.arrive %bars[%e] if %first : !mbarrier.group<8>
        scf.yield %s, %d : index, !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %last = arith.addi %r#0, %c4 : index
      mbarrier.arrive %bars[%last] if %first : !mbarrier.group<8>
    }
    gpu.return
  }
}
