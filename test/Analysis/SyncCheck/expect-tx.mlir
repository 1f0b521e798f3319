// Class 6: expected transaction bytes different from the bytes of the bulk
// copies that complete on the barrier (triton#9046: a wrong expect byte
// count, which Triton's ConSan cannot see; triton#9005: under multicast each
// receiving CTA must expect the bytes that land on it, not its own share).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Thread 0 expects 4096 bytes, but its copy brings 2048: the phase never
// completes and every thread hangs in the wait.
gpu.module @too_many_bytes {
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %expect = arith.constant 4096 : i32
    %size = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      // expected-error @+1 {{expects 4096 transaction bytes on the barrier, but the bulk copies that complete on it bring 2048 bytes: the phase never completes}}
      mbarrier.arrive_expect_tx %g[%c0], %expect : !mbarrier.group<1>
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
}

// -----

// Too few bytes expected: the phase completes when 1024 of the 4096 bytes
// have landed, and the threads read the rest of the tile too early.
gpu.module @too_few_bytes {
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %expect = arith.constant 1024 : i32
    %size = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %leader {
      // expected-error @+1 {{expects 1024 transaction bytes on the barrier, but the bulk copies that complete on it bring 4096 bytes: the phase can complete before all the data has landed}}
      mbarrier.arrive_expect_tx %g[%c0], %expect : !mbarrier.group<1>
      %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %size : !llvm.ptr<3>, !llvm.ptr<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
}

// -----

// Multicast (triton#9005): CTA 0 copies a 4096-byte tile into both CTAs of
// the cluster (mask 0b11); each CTA expects only its "share", 2048 bytes.
gpu.module @multicast_share {
  gpu.func @k(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %share = arith.constant 2048 : i32
    %size = arith.constant 4096 : i32
    %mask = arith.constant 3 : i16
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      // expected-error @+1 {{expects 2048 transaction bytes on the barrier of CTA 0, but the bulk copies that complete on it bring 4096 bytes: the phase can complete before all the data has landed}}
      mbarrier.arrive_expect_tx %g[%c0], %share : !mbarrier.group<1>
      scf.if %first {
        %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        %dst = llvm.addrspacecast %buf : !llvm.ptr<3> to !llvm.ptr<7>
        nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %size multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
      }
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
}

// -----

// Correct: the bytes expected are the bytes copied, per CTA: every CTA
// expects the whole multicast tile, and the local copy loop expects 2 x 2048
// per trip.
gpu.module @bytes_match {
  gpu.func @multicast(%src: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %size = arith.constant 4096 : i32
    %mask = arith.constant 3 : i16
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %leader {
      mbarrier.arrive_expect_tx %g[%c0], %size : !mbarrier.group<1>
      scf.if %first {
        %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        %dst = llvm.addrspacecast %buf : !llvm.ptr<3> to !llvm.ptr<7>
        nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %size multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
      }
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
  gpu.func @loop(%src: !llvm.ptr<1>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %total = arith.constant 4096 : i32
    %half = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
      scf.if %leader {
        mbarrier.arrive_expect_tx %g[%c0], %total : !mbarrier.group<1>
        %bar = mbarrier.ptr %g[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
        nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
        nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
      }
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      nvvm.barrier0
      %next = arith.xori %phase, %one : i32
      scf.yield %next : i32
    }
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
}

// -----

// A 2-stage TMA ring: an elected producer thread posts the bytes of stage
// `i % 2` and issues its copies; the consumer warps wait on the stage. The
// correct ring stays silent; the other one expects one copy too many per
// stage.
gpu.module @tma_ring {
  gpu.func @right(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %total = arith.constant 4096 : i32
    %half = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      %c1 = arith.constant 1 : index
      mbarrier.init %full[%c0], %one : !mbarrier.group<2>
      mbarrier.init %full[%c1], %one : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %c64 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %c64 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %producer {
      %elected = nvvm.elect.sync -> i1
      scf.for %i = %zero to %n step %one : i32 {
        %s = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %phase = arith.andi %round, %one : i32
        %stage = arith.index_cast %s : i32 to index
        mbarrier.wait %empty[%stage], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
        scf.if %elected {
          mbarrier.arrive_expect_tx %full[%stage], %total : !mbarrier.group<2>
          %bar = mbarrier.ptr %full[%stage] : !mbarrier.group<2> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
          nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
        }
      }
    } else {
      scf.for %i = %zero to %n step %one : i32 {
        %s = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %phase = arith.andi %round, %one : i32
        %stage = arith.index_cast %s : i32 to index
        mbarrier.wait %full[%stage], %phase : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
  gpu.func @wrong(%src: !llvm.ptr<1>, %n: i32) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %total = arith.constant 6144 : i32
    %half = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %warp = arith.divui %t, %c32 : i32
    %producer = arith.cmpi eq, %warp, %zero : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %buf = llvm.mlir.addressof @tile : !llvm.ptr<3>
    scf.if %leader {
      %c1 = arith.constant 1 : index
      mbarrier.init %full[%c0], %one : !mbarrier.group<2>
      mbarrier.init %full[%c1], %one : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %c64 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %c64 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %producer {
      %elected = nvvm.elect.sync -> i1
      scf.for %i = %zero to %n step %one : i32 {
        %s = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %phase = arith.andi %round, %one : i32
        %stage = arith.index_cast %s : i32 to index
        mbarrier.wait %empty[%stage], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
        scf.if %elected {
          // expected-error @+1 {{expects 6144 transaction bytes on the barrier, but the bulk copies that complete on it bring 4096 bytes: the phase never completes}}
          mbarrier.arrive_expect_tx %full[%stage], %total : !mbarrier.group<2>
          %bar = mbarrier.ptr %full[%stage] : !mbarrier.group<2> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
          nvvm.cp.async.bulk.shared.cluster.global %buf, %src, %bar, %half : !llvm.ptr<3>, !llvm.ptr<1>
        }
      }
    } else {
      scf.for %i = %zero to %n step %one : i32 {
        %s = arith.remui %i, %two : i32
        %round = arith.divui %i, %two : i32
        %phase = arith.andi %round, %one : i32
        %stage = arith.index_cast %s : i32 to index
        mbarrier.wait %full[%stage], %phase : !mbarrier.group<2>
        mbarrier.arrive %empty[%stage] : !mbarrier.group<2>
      }
    }
    gpu.return
  }
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
}
