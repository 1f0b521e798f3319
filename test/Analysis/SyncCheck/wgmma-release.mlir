// Class 17: a stage released while a wgmma that reads it may still run
// (facebookexperimental/triton#1278; NVIDIA/Fuser#3561: no
// wgmma.commit_group / wgmma.wait before the WAR arrive of the compute
// warps). The producer's next copy into the stage races with the MMA's
// operand reads: wrong results in the launches where the copy wins, so a
// warning. A wgmma group is freed by wait_group N once N groups were
// committed after it.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A consumer warp group issues its MMA on the stage, commits it, and one
// thread releases the stage with no wait_group: the MMA may still read it.
gpu.module @release_without_wait_group {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    }
    scf.if %consumer {
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %accN = scf.for %i = %i0 to %n step %i1 iter_args(%acc = %acc0) -> (!llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        nvvm.wgmma.fence.aligned
      // expected-note @+1 {{the wgmma.mma_async that reads the stage}}
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        scf.if %first {
          // expected-warning @+1 {{releases a stage while a wgmma.mma_async that reads it may still run: no nvvm.wgmma.wait.group.sync.aligned between them frees its group (wait_group N keeps the newest N groups pending), so the producer's next copy into the stage can overwrite operands the MMA has not read yet (facebookexperimental/triton#1278): wait for it with wait_group 0, or release the stage one trip later after wait_group 1}}
          mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
        }
        scf.yield %d : !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// wait_group 1 keeps the newest group pending, the one that reads this
// trip's stage: the release is still early.
gpu.module @release_after_wait_group_one {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    }
    scf.if %consumer {
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %accN = scf.for %i = %i0 to %n step %i1 iter_args(%acc = %acc0) -> (!llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        nvvm.wgmma.fence.aligned
      // expected-note @+1 {{the wgmma.mma_async that reads the stage}}
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 1
        scf.if %first {
          // expected-warning @+1 {{releases a stage while a wgmma.mma_async that reads it may still run: no nvvm.wgmma.wait.group.sync.aligned between them frees its group}}
          mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
        }
        scf.yield %d : !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// The MMA is never committed before the release: no wait frees it.
gpu.module @release_before_commit {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    }
    scf.if %consumer {
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %accN = scf.for %i = %i0 to %n step %i1 iter_args(%acc = %acc0) -> (!llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        nvvm.wgmma.fence.aligned
      // expected-note @+1 {{the wgmma.mma_async that reads the stage}}
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        scf.if %first {
          // expected-warning @+1 {{releases a stage while a wgmma.mma_async that reads it may still run: its group is not committed (nvvm.wgmma.commit.group.sync.aligned) before the release, and no wait frees an open group}}
          mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
        }
        scf.yield %d : !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// The correct twin (CUTLASS's consumer: warpgroup_wait<0> before
// consumer_release): commit, wait_group 0, release. Silent.
gpu.module @release_after_wait_group_zero {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %leader {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    nvvm.barrier0
    scf.if %leader {
      scf.for %i = %i0 to %n step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %empty[%stage], %parity {phase_offset = 1 : i32} : !mbarrier.group<2>
        mbarrier.arrive %full[%stage] : !mbarrier.group<2>
      }
    }
    scf.if %consumer {
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %accN = scf.for %i = %i0 to %n step %i1 iter_args(%acc = %acc0) -> (!llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %s = arith.remui %i, %i2 : i32
        %stage = arith.index_cast %s : i32 to index
        %round = arith.divui %i, %i2 : i32
        %parity = arith.andi %round, %i1 : i32
        mbarrier.wait %full[%stage], %parity : !mbarrier.group<2>
        nvvm.wgmma.fence.aligned
        %d = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.if %first {
          mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
        }
        scf.yield %d : !llvm.struct<(f32, f32, f32, f32)>
      }
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// examples/gemm.py's unrolled consumer: two tiles per trip; the first
// tile's stage is released after the second tile's MMA is committed and
// `wait_group 1` has freed the first tile's group, the second after
// `wait_group 0`. The second tile's MMA reads another stage. Silent.
gpu.module @unrolled_trip_releases_after_wait_group_one {
  gpu.func @k(%n: i32, %descA: i64, %descB: i64) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %i0 : i32
    %consumer = arith.cmpi uge, %t, %i32 : i32
    %first = arith.cmpi eq, %t, %i32 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    %c4 = arith.constant 4 : index
    scf.if %leader {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<4>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<4>
      }
    }
    nvvm.barrier0
    scf.if %consumer {
      %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %accN = scf.for %i = %i0 to %n step %i1 iter_args(%acc = %acc0) -> (!llvm.struct<(f32, f32, f32, f32)>) : i32 {
        %j0 = arith.muli %i, %i2 : i32
        %j1 = arith.addi %j0, %i1 : i32
        %s0 = arith.remui %j0, %i4 : i32
        %s1 = arith.remui %j1, %i4 : i32
        %stage0 = arith.index_cast %s0 : i32 to index
        %stage1 = arith.index_cast %s1 : i32 to index
        mbarrier.wait %full[%stage0], %i0 : !mbarrier.group<4>
        %d0 = nvvm.wgmma.mma_async %descA, %descB, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        mbarrier.wait %full[%stage1], %i0 : !mbarrier.group<4>
        %d1 = nvvm.wgmma.mma_async %descA, %descB, %d0, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 1
        scf.if %first {
          mbarrier.arrive %empty[%stage0] : !mbarrier.group<4>
        }
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.if %first {
          mbarrier.arrive %empty[%stage1] : !mbarrier.group<4>
        }
        scf.yield %d1 : !llvm.struct<(f32, f32, f32, f32)>
      }
    }
    gpu.return
  }
}
