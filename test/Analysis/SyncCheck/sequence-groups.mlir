// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync -o /dev/null
// The groups of an ordered sequence (docs/checker.md, "Ordered sequences";
// class 5): `mbarrier-lower-pipes` folds `seq.start` into the state it
// starts and leaves a marker beside it (the group, the sequence and its
// length, at the seq.start's location), so the checker sees which groups the
// threads start, evaluated per point. A group of [0, L) that no thread
// starts: a warning at the seq.start (the group after it waits for turns
// nobody hands on, once its released turns are taken; threads that share a
// group take their turns together). After NVIDIA/cutlass
// include/cutlass/pipeline/sm90_pipeline.hpp OrderedSequenceBarrier as the
// ping-pong kernel's MathWarpGroupOrderBarrier (group_id = warp group).

// Both math warp groups start as group 0 (a constant instead of the warp
// group): group 1 is never played.
gpu.module @both_warp_groups_group_0 {
  gpu.func @pingpong_order(%tiles: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %i128 : i32
    %bars = mbarrier.alloc : !mbarrier.group<4>
    %order = mbarrier.seq.create %bars : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      mbarrier.seq.init %order : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %i0 = arith.constant 0 : i32
    // expected-warning @+1 {{starts the ordered sequence of 2 groups only as group(s) 0: no thread starts group(s) 1, so group 0 waits for turns that nobody hands on (a hang once its released turns are taken) and the threads that share a group take their turns together, out of order (each role starts as its own group: seq.start with the role's index, CUTLASS's warp group - 1)}}
    %st = mbarrier.seq.start %order, %i0 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %end = scf.for %i = %c0 to %tiles step %c1 iter_args(%s = %st) -> (!mbarrier.seq_state) {
      %mma, %s1 = mbarrier.seq.wait %order, %s : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's MMA ...
      mbarrier.seq.arrive %order[%mma] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %epi, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's epilogue ...
      mbarrier.seq.arrive %order[%epi] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      scf.yield %s2 : !mbarrier.seq_state
    }
    gpu.return
  }
}

// -----

// Correct: each warp group starts as its own group (group_id = warp group):
// silent.
gpu.module @each_warp_group_its_group {
  gpu.func @pingpong_order(%tiles: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %i128 : i32
    %bars = mbarrier.alloc : !mbarrier.group<4>
    %order = mbarrier.seq.create %bars : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      mbarrier.seq.init %order : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %st = mbarrier.seq.start %order, %wg : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %end = scf.for %i = %c0 to %tiles step %c1 iter_args(%s = %st) -> (!mbarrier.seq_state) {
      %mma, %s1 = mbarrier.seq.wait %order, %s : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's MMA ...
      mbarrier.seq.arrive %order[%mma] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %epi, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // ... the math warp group's epilogue ...
      mbarrier.seq.arrive %order[%epi] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      scf.yield %s2 : !mbarrier.seq_state
    }
    gpu.return
  }
}

// -----

// Correct: one seq.start per role branch, group 0 and group 1: silent.
gpu.module @one_start_per_role {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %i128 : i32
    %is0 = arith.cmpi eq, %wg, %i0 : i32
    %bars = mbarrier.alloc : !mbarrier.group<4>
    %order = mbarrier.seq.create %bars : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      mbarrier.seq.init %order : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    mbarrier.fence_init
    nvvm.barrier0
    scf.if %is0 {
      %st = mbarrier.seq.start %order, %i0 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %a, %s1 = mbarrier.seq.wait %order, %st : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%a] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    } else {
      %st = mbarrier.seq.start %order, %i1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %a, %s1 = mbarrier.seq.wait %order, %st : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%a] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    gpu.return
  }
}
