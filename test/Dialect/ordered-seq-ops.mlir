// Ordered sequences (CUTLASS's OrderedSequenceBarrier; docs/pipelines.md,
// "Ordered sequences"): every op and type parses, verifies and prints back;
// the printed form parses again to the same IR.
// RUN: mbarrier-opt %s | FileCheck %s
// RUN: mbarrier-opt %s | mbarrier-opt | FileCheck %s
// RUN: %mlir_opt %mbarrier_plugin_opts %s | FileCheck %s

// CHECK-LABEL: gpu.func @pingpong_two_warpgroups
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<4>
// CHECK: %[[O:.*]] = mbarrier.seq.create %[[G]] : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
// CHECK: mbarrier.seq.init %[[O]] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
// CHECK: %[[ST:.*]] = mbarrier.seq.start %[[O]], %{{.*}} : !mbarrier.ordered_seq<2, 2, arrivals = 128>
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[ST]]) -> (!mbarrier.seq_state)
// CHECK: %[[T:.*]], %[[N:.*]] = mbarrier.seq.wait %[[O]], %[[S]] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
// CHECK: mbarrier.seq.arrive %[[O]][%[[T]]] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
// CHECK: %[[T2:.*]], %[[N2:.*]] = mbarrier.seq.wait %[[O]], %[[N]]
// CHECK: mbarrier.seq.arrive %[[O]][%[[T2]]]
// CHECK: scf.yield %[[N2]] : !mbarrier.seq_state
gpu.module @m {
  gpu.func @pingpong_two_warpgroups(%tiles: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %c128 : i32
    %first = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 128>
    scf.if %first {
      mbarrier.seq.init %o : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    mbarrier.fence_init
    nvvm.barrier0
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    %end = scf.for %i = %c0 to %tiles step %c1 iter_args(%s = %st) -> (!mbarrier.seq_state) {
      %turn, %next = mbarrier.seq.wait %o, %s : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %o[%turn] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %turn2, %next2 = mbarrier.seq.wait %o, %next : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %o[%turn2] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      scf.yield %next2 : !mbarrier.seq_state
    }
    gpu.return
  }
}

// One elected lane per warp arrives (arrivals = 4 warps); the default count
// (1) is not printed; a turn carried through an scf.if.
// CHECK-LABEL: gpu.func @elected_lanes_and_defaults
// CHECK: mbarrier.seq.arrive %{{.*}}[%{{.*}}] if %{{.*}} : !mbarrier.ordered_seq<1, 3, arrivals = 4>
// CHECK: mbarrier.seq.create %{{.*}} : !mbarrier.group<2> -> !mbarrier.ordered_seq<1, 2>
// CHECK: scf.if %{{.*}} -> (!mbarrier.seq_turn)
gpu.module @m2 {
  gpu.func @elected_lanes_and_defaults(%c: i1) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<3>
    %o = mbarrier.seq.create %g : !mbarrier.group<3> -> !mbarrier.ordered_seq<1, 3, arrivals = 4>
    %st = mbarrier.seq.start %o, %i0 : !mbarrier.ordered_seq<1, 3, arrivals = 4>
    %turn, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<1, 3, arrivals = 4>
    mbarrier.seq.arrive %o[%turn] if %lane0 : !mbarrier.ordered_seq<1, 3, arrivals = 4>
    %h = mbarrier.alloc : !mbarrier.group<2>
    %q = mbarrier.seq.create %h : !mbarrier.group<2> -> !mbarrier.ordered_seq<1, 2>
    %qs = mbarrier.seq.start %q, %i0 : !mbarrier.ordered_seq<1, 2>
    %qt, %qn = mbarrier.seq.wait %q, %qs : !mbarrier.ordered_seq<1, 2>
    %carried = scf.if %c -> (!mbarrier.seq_turn) {
      scf.yield %qt : !mbarrier.seq_turn
    } else {
      scf.yield %qt : !mbarrier.seq_turn
    }
    mbarrier.seq.arrive %q[%carried] : !mbarrier.ordered_seq<1, 2>
    gpu.return
  }
}
