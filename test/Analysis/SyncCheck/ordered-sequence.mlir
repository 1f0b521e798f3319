// Ordered sequences under the checker (docs/checker.md, "Ordered
// sequences"): the lowering folds the indices and parities of a group whose
// code is specialized (a constant group, straight-line or unrolled turns),
// so the checker counts the arrivals of every barrier: the correct ping-pong
// is silent, a group that hands its turn on from one thread instead of all
// 128 leaves the next group waiting forever (an error at that wait). A
// group computed from the thread id and carried through a loop gives the
// checker indices it cannot evaluate: silence (corpus/cutlass-ordered-
// sequence-ops.mlir).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync

gpu.module @m {
  gpu.func @pingpong_two_tiles_specialized() kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
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
      %b, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%b] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %c, %s3 = mbarrier.seq.wait %order, %s2 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%c] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %d, %s4 = mbarrier.seq.wait %order, %s3 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%d] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    } else {
      %st = mbarrier.seq.start %order, %i1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %a, %s1 = mbarrier.seq.wait %order, %st : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%a] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %b, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%b] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %c, %s3 = mbarrier.seq.wait %order, %s2 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%c] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %d, %s4 = mbarrier.seq.wait %order, %s3 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%d] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @missing_arrivals_stop_the_next_group() kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %wg = arith.divui %t, %i128 : i32
    %is0 = arith.cmpi eq, %wg, %i0 : i32
    %leader1 = arith.cmpi eq, %tid, %c128 : index
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
      %b, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%b] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      // Group 1 handed stage 0 back from one thread: 1 of 128 arrivals.
      // expected-error @+1 {{waits for a phase that never completes}}
      %c, %s3 = mbarrier.seq.wait %order, %s2 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%c] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    } else {
      %st = mbarrier.seq.start %order, %i1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %a, %s1 = mbarrier.seq.wait %order, %st : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%a] if %leader1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      %b, %s2 = mbarrier.seq.wait %order, %s1 : !mbarrier.ordered_seq<2, 2, arrivals = 128>
      mbarrier.seq.arrive %order[%b] : !mbarrier.ordered_seq<2, 2, arrivals = 128>
    }
    gpu.return
  }
}
