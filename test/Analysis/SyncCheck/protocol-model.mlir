// The protocol model (docs/checker.md, "The protocol model"): class 12's
// wait-for run over loops whose trips come from a kernel parameter, with the
// ring's stage and phase carried by the loop, TMA copies, and the CTAs of a
// cluster. Each buggy kernel after a correct twin that stays silent.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// A 2-stage TMA ring (CUTLASS PipelineTmaAsync): the producer's lane waits
// on the empty barrier with the producer's phase offset (its first pass
// through the ring does not wait), posts the bytes and issues the copy; the
// consumer warp waits on the full barrier and releases the stage. The trip
// count is the kernel parameter %n; stage and phase are loop-carried.
gpu.module @tma_ring_by_parameter_m {
  gpu.func @tma_ring_by_parameter(%n: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %t0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %t0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %t0 {
        %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %ph = %i0) -> (index, i32) {
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<2>
          %x = arith.index_cast %i : index to i32
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%x], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          %s1 = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %s1, %c2 : index
          %s2 = arith.select %wrap, %c0, %s1 : index
          %flip = arith.xori %ph, %i1 : i32
          %ph2 = arith.select %wrap, %flip, %ph : i32
          scf.yield %s2, %ph2 : index, i32
        }
      }
    } else {
      // The consumer computes stage and phase from the trip: i mod 2, i / 2 & 1.
      %lead = arith.cmpi eq, %tid, %c32 : index
      scf.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c2 : index
        %q = arith.divui %i, %c2 : index
        %qi = arith.index_cast %q : index to i32
        %ph = arith.andi %qi, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] if %lead : !mbarrier.group<2>
      }
    }
    gpu.return
  }
}

// -----

// The same ring with the producer's empty wait missing its phase offset (a
// startup deadlock): its first wait is for a release no consumer has made,
// while the consumer waits for the first copy. Class 5 reports it (the first
// trip's parity-0 wait on a fresh empty barrier); the cycle that the protocol
// model finds is its consequence, and class 12 does not report it again.
gpu.module @tma_ring_without_the_producer_phase_offset_m {
  gpu.func @tma_ring_without_the_producer_phase_offset(%n: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %t0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %t0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c0], %i1 : !mbarrier.group<2>
      mbarrier.init %empty[%c1], %i1 : !mbarrier.group<2>
    }
    mbarrier.fence_init
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %t0 {
        %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %ph = %i0) -> (index, i32) {
          // expected-error @+1 {{waits for phase 0 of a fresh barrier in the first trip (parity 0)}}
          mbarrier.wait %empty[%s], %ph : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<2>
          %x = arith.index_cast %i : index to i32
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%x], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
          %s1 = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %s1, %c2 : index
          %s2 = arith.select %wrap, %c0, %s1 : index
          %flip = arith.xori %ph, %i1 : i32
          %ph2 = arith.select %wrap, %flip, %ph : i32
          scf.yield %s2, %ph2 : index, i32
        }
      }
    } else {
      %lead = arith.cmpi eq, %tid, %c32 : index
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %ph = %i0) -> (index, i32) {
        // expected-note @+1 {{the other wait of the hand-off}}
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        mbarrier.arrive %empty[%s] if %lead : !mbarrier.group<2>
        %s1 = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %s1, %c2 : index
        %s2 = arith.select %wrap, %c0, %s1 : index
        %flip = arith.xori %ph, %i1 : i32
        %ph2 = arith.select %wrap, %flip, %ph : i32
        scf.yield %s2, %ph2 : index, i32
      }
    }
    gpu.return
  }
}

// -----

// A ping-pong of two warp groups over a parameter's trips without the
// first turn: each waits for the other's arrive, which comes after the
// other's wait, whatever the trip count (at least one).
gpu.module @pingpong_by_parameter_without_first_turn_m {
  mbarrier.named_barrier @turn0 id 9
  mbarrier.named_barrier @turn1 id 10
  gpu.func @pingpong_by_parameter_without_first_turn(%n: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : index
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.if %wg0 {
        // expected-error @+1 {{deadlock: a cycle in the wait-for graph: warps 0-3 wait here on named barrier @turn0 (id 9) for warps 4-7, which wait on named barrier @turn1 (id 10) for the first ones, before arriving on it}}
        mbarrier.bar_sync @turn0 threads 256
        mbarrier.bar_arrive @turn1 threads 256
      } else {
        // expected-note @+1 {{warps 4-7 wait here}}
        mbarrier.bar_sync @turn1 threads 256
        mbarrier.bar_arrive @turn0 threads 256
      }
    }
    gpu.return
  }
}

// -----

// Its correct twin: warp group 0 takes the first turn before the loop.
gpu.module @pingpong_by_parameter_m {
  mbarrier.named_barrier @turn0 id 9
  mbarrier.named_barrier @turn1 id 10
  gpu.func @pingpong_by_parameter(%n: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : index
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    %wg1 = arith.cmpi uge, %tid, %c128 : index
    scf.if %wg1 {
      mbarrier.bar_arrive @turn0 threads 256
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.if %wg0 {
        mbarrier.bar_sync @turn0 threads 256
        mbarrier.bar_arrive @turn1 threads 256
      } else {
        mbarrier.bar_sync @turn1 threads 256
        mbarrier.bar_arrive @turn0 threads 256
      }
    }
    gpu.return
  }
}

// -----

// Two CTAs of a cluster, the mirror image of each other: CTA 0 waits on its
// barrier A before arriving on CTA 1's B, CTA 1 waits on its B before
// arriving on CTA 0's A: a cycle across the cluster.
gpu.module @cluster_mirror {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %a = mbarrier.alloc : !mbarrier.group<1>
    %b = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %a[%c0], %one : !mbarrier.group<1>
      mbarrier.init %b[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      // expected-error @+1 {{deadlock: a cycle in the wait-for graph: warp 0 of CTA 0 wait here on an mbarrier of CTA 0 for warp 0 of CTA 1, which wait on an mbarrier of CTA 1 for the first ones, before arriving on it}}
      mbarrier.wait %a[%c0], %zero : !mbarrier.group<1>
      mbarrier.arrive %b[%c0] on %peer if %leader : !mbarrier.group<1>
    } else {
      // expected-note @+1 {{warp 0 of CTA 1 wait here}}
      mbarrier.wait %b[%c0], %zero : !mbarrier.group<1>
      mbarrier.arrive %a[%c0] on %peer if %leader : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}

// -----

// Its correct twin: CTA 0 arrives on CTA 1's B first, then waits on its A.
gpu.module @cluster_hand_off {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %one : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    %a = mbarrier.alloc : !mbarrier.group<1>
    %b = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %a[%c0], %one : !mbarrier.group<1>
      mbarrier.init %b[%c0], %one : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      mbarrier.arrive %b[%c0] on %peer if %leader : !mbarrier.group<1>
      mbarrier.wait %a[%c0], %zero : !mbarrier.group<1>
    } else {
      mbarrier.wait %b[%c0], %zero : !mbarrier.group<1>
      mbarrier.arrive %a[%c0] on %peer if %leader : !mbarrier.group<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
