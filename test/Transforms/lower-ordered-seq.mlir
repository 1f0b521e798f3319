// mbarrier-lower-pipes on ordered sequences: every seq op becomes the
// mbarrier ops it stands for; no seq op or type survives.
// RUN: mbarrier-opt %s --mbarrier-lower-pipes | FileCheck %s --implicit-check-not=mbarrier.seq --implicit-check-not=ordered_seq --implicit-check-not=seq_state --implicit-check-not=seq_turn

// Every barrier (D x L) is initialized with the sequence's arrivals.
// CHECK-LABEL: func.func @init_counts(
func.func @init_counts() {
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<6>
  %g = mbarrier.alloc : !mbarrier.group<6>
  %o = mbarrier.seq.create %g : !mbarrier.group<6> -> !mbarrier.ordered_seq<2, 3, arrivals = 128>
  // CHECK: %[[N:.*]] = arith.constant 128 : i32
  // CHECK-COUNT-6: mbarrier.init %[[G]][%{{.*}}], %[[N]] : !mbarrier.group<6>
  // CHECK-NOT: mbarrier.init
  mbarrier.seq.init %o : !mbarrier.ordered_seq<2, 3, arrivals = 128>
  return
}

// A group's loop: the state is the i32 `turns * L + group`, carried by
// scf.for; start is the group itself; wait is on barrier stage * L + g with
// parity ((turns div D) & 1) ^ (g == 0) (group 0 goes first), the next
// state adds L; arrive is on barrier stage * L + (g + 1) mod L.
// CHECK-LABEL: func.func @group_loop(
// CHECK-SAME: %[[GROUP:[^:]*]]: i32, %[[P:[^:]*]]: i1
func.func @group_loop(%group: i32, %pred: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<4>
  %g = mbarrier.alloc : !mbarrier.group<4>
  %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2, arrivals = 4>
  // The start leaves its marker for the checker (sequence 0, length 2),
  // unused: the loop starts from the group value itself.
  // CHECK: arith.ori %[[GROUP]], %{{.*}} {mbarrier.group_start = array<i64: 0, 2>} : i32
  %st = mbarrier.seq.start %o, %group : !mbarrier.ordered_seq<2, 2, arrivals = 4>
  // CHECK: %[[END:.*]] = scf.for {{.*}} iter_args(%[[S:.*]] = %[[GROUP]]) -> (i32) {
  %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> (!mbarrier.seq_state) {
    // CHECK: %[[L:.*]] = arith.constant 2 : i32
    // CHECK: %[[GW:.*]] = arith.remui %[[S]], %[[L]] : i32
    // CHECK: %[[TURNS:.*]] = arith.divui %[[S]], %[[L]] : i32
    // CHECK: %[[D:.*]] = arith.constant 2 : i32
    // CHECK: %[[STAGE:.*]] = arith.remui %[[TURNS]], %[[D]] : i32
    // CHECK: %[[ROUND:.*]] = arith.divui %[[TURNS]], %[[D]] : i32
    // CHECK: %[[PAR:.*]] = arith.andi %[[ROUND]], %{{.*}} : i32
    // CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[GW]], %{{.*}} : i32
    // CHECK: %[[FIRST:.*]] = arith.extui %[[IS0]] : i1 to i32
    // CHECK: %[[PHASE:.*]] = arith.xori %[[PAR]], %[[FIRST]] : i32
    // CHECK: %[[ROW:.*]] = arith.muli %[[STAGE]], %{{.*}} : i32
    // CHECK: %[[AT:.*]] = arith.addi %[[ROW]], %[[GW]] : i32
    // CHECK: %[[IDX:.*]] = arith.index_castui %[[AT]] : i32 to index
    // CHECK: mbarrier.wait %[[G]][%[[IDX]]], %[[PHASE]] : !mbarrier.group<4>
    // CHECK: %[[NEXT:.*]] = arith.addi %[[S]], %{{.*}} : i32
    %turn, %next = mbarrier.seq.wait %o, %s : !mbarrier.ordered_seq<2, 2, arrivals = 4>
    // CHECK: %[[GA:.*]] = arith.remui %[[S]], %{{.*}} : i32
    // CHECK: %[[ASTAGE:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
    // CHECK: %[[SUCC:.*]] = arith.addi %[[GA]], %{{.*}} : i32
    // CHECK: %[[TO:.*]] = arith.remui %[[SUCC]], %{{.*}} : i32
    // CHECK: %[[AROW:.*]] = arith.muli %[[ASTAGE]], %{{.*}} : i32
    // CHECK: %[[AAT:.*]] = arith.addi %[[AROW]], %[[TO]] : i32
    // CHECK: %[[AIDX:.*]] = arith.index_castui %[[AAT]] : i32 to index
    // CHECK: mbarrier.arrive %[[G]][%[[AIDX]]] if %[[P]] : !mbarrier.group<4>
    mbarrier.seq.arrive %o[%turn] if %pred : !mbarrier.ordered_seq<2, 2, arrivals = 4>
    // CHECK: scf.yield %[[NEXT]] : i32
    scf.yield %next : !mbarrier.seq_state
  }
  return
}

// A state of a constant group, not carried: the indices and parities fold
// to constants as they are built (so the checker can count the arrivals of
// each barrier). Group 1's second turn is at stage 1 (barrier 1 * 2 + 1),
// parity 0, and hands on to group 0 (barrier 2); its first turn waits on
// barrier 1 (parity 0) and hands on to barrier 0.
// CHECK-LABEL: func.func @constant_group(
func.func @constant_group() {
  %i1 = arith.constant 1 : i32
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<4>
  %g = mbarrier.alloc : !mbarrier.group<4>
  %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
  %st = mbarrier.seq.start %o, %i1 : !mbarrier.ordered_seq<2, 2>
  // (arith.constant names its result by its value: %c1 is index 1, %c0_i32
  // the i32 0.)
  // CHECK: mbarrier.wait %[[G]][%c1], %c0_i32{{(_[0-9]+)?}} : !mbarrier.group<4>
  // CHECK: mbarrier.arrive %[[G]][%c0] : !mbarrier.group<4>
  %t1, %s1 = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
  mbarrier.seq.arrive %o[%t1] : !mbarrier.ordered_seq<2, 2>
  // CHECK: mbarrier.wait %[[G]][%c3], %c0_i32{{(_[0-9]+)?}} : !mbarrier.group<4>
  // CHECK: mbarrier.arrive %[[G]][%c2] : !mbarrier.group<4>
  %t2, %s2 = mbarrier.seq.wait %o, %s1 : !mbarrier.ordered_seq<2, 2>
  mbarrier.seq.arrive %o[%t2] : !mbarrier.ordered_seq<2, 2>
  return
}
