// States and slots that every path uses once, through each value that scf
// carries (docs/pipelines.md, "Rules", 2 and 3): these verify, and lower with
// no pipe op, state or slot left.
// RUN: mbarrier-opt %s | FileCheck %s
// RUN: mbarrier-opt %s --mbarrier-lower-pipes | FileCheck %s --check-prefix=LOWER --implicit-check-not=mbarrier.pipe --implicit-check-not=pipe_state --implicit-check-not=mbarrier.slot

// s1a as it should be: each loop carries its side's state.
// CHECK-LABEL: gpu.func @states_carried_by_loops(
// LOWER-LABEL: gpu.func @states_carried_by_loops(
// LOWER-COUNT-2: scf.for {{.*}} iter_args({{.*}}) -> (i32)
gpu.module @m {
  gpu.func @states_carried_by_loops(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %prod = arith.cmpi eq, %tid, %c0 : index
    %cons = arith.cmpi eq, %tid, %c32 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %prod {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    nvvm.barrier0
    scf.if %prod {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
        %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<producer>
      }
      mbarrier.pipe.tail %p, %e : !mbarrier.pipe<2, arrive>
    }
    scf.if %cons {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
        %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
        scf.yield %next : !mbarrier.pipe_state<consumer>
      }
    }
    gpu.return
  }
}

// Two loops in a row (the GEMM's unrolled loop and its remainder): the
// second starts from the first one's result. A trip that takes nothing hands
// on the state it was given.
// CHECK-LABEL: func.func @state_through_two_loops(
// LOWER-LABEL: func.func @state_through_two_loops(
func.func @state_through_two_loops(%p: !mbarrier.pipe<4, arrive>, %n: index, %m: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
    %s1, %n1 = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<4, arrive>
    mbarrier.pipe.release %p[%s1] : !mbarrier.pipe<4, arrive>
    %s2, %n2 = mbarrier.pipe.wait %p, %n1 : !mbarrier.pipe<4, arrive>
    mbarrier.pipe.release %p[%s2] : !mbarrier.pipe<4, arrive>
    scf.yield %n2 : !mbarrier.pipe_state<consumer>
  }
  %b = scf.for %i = %c0 to %m step %c1 iter_args(%s = %a) -> !mbarrier.pipe_state<consumer> {
    scf.yield %s : !mbarrier.pipe_state<consumer>
  }
  %s3, %n3 = mbarrier.pipe.wait %p, %b : !mbarrier.pipe<4, arrive>
  mbarrier.pipe.release %p[%s3] : !mbarrier.pipe<4, arrive>
  return
}

// A state through an scf.if: taken on one path, handed on unchanged on the
// other; the result is the state after the branch.
// CHECK-LABEL: func.func @state_through_a_branch(
// LOWER-LABEL: func.func @state_through_a_branch(
// LOWER: scf.if {{.*}} -> (i32)
func.func @state_through_a_branch(%p: !mbarrier.pipe<2, arrive>, %n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
    %r = scf.if %c -> !mbarrier.pipe_state<producer> {
      %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
      mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
      scf.yield %next : !mbarrier.pipe_state<producer>
    } else {
      scf.yield %s : !mbarrier.pipe_state<producer>
    }
    scf.yield %r : !mbarrier.pipe_state<producer>
  }
  mbarrier.pipe.tail %p, %e : !mbarrier.pipe<2, arrive>
  return
}

// A persistent tile loop (scf.while): the state is carried through the before
// and after regions; the before region tests it (a test takes nothing).
// CHECK-LABEL: func.func @state_through_a_while(
// LOWER-LABEL: func.func @state_through_a_while(
// LOWER: scf.while ({{.*}}) : (i32) -> i32
func.func @state_through_a_while(%p: !mbarrier.pipe<2, arrive>, %more: i1) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  %end = scf.while (%s = %st) : (!mbarrier.pipe_state<consumer>) -> !mbarrier.pipe_state<consumer> {
    %ok = mbarrier.pipe.try_wait %p, %s : !mbarrier.pipe<2, arrive>
    scf.condition(%more) %s : !mbarrier.pipe_state<consumer>
  } do {
  ^bb0(%s: !mbarrier.pipe_state<consumer>):
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
    scf.yield %next : !mbarrier.pipe_state<consumer>
  }
  %slot, %next = mbarrier.pipe.wait %p, %end : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// Polling (CUTLASS's try_acquire): the state defined outside the loop is
// tested in every trip, and taken once after it.
// CHECK-LABEL: func.func @state_tested_in_a_polling_loop(
// LOWER-LABEL: func.func @state_tested_in_a_polling_loop(
func.func @state_tested_in_a_polling_loop(%p: !mbarrier.pipe<2, arrive>) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %true = arith.constant true
  %ready = scf.while (%go = %true) : (i1) -> i1 {
    scf.condition(%go) %go : i1
  } do {
  ^bb0(%go: i1):
    %ok = mbarrier.pipe.try_acquire %p, %st : !mbarrier.pipe<2, arrive>
    %again = arith.xori %ok, %true : i1
    scf.yield %again : i1
  }
  %slot, %next = mbarrier.pipe.acquire %p, %st ready %ready : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// Two pipes advance in lockstep on one state: each takes it once.
// CHECK-LABEL: func.func @two_pipes_in_lockstep(
// LOWER-LABEL: func.func @two_pipes_in_lockstep(
func.func @two_pipes_in_lockstep(%a: !mbarrier.pipe<2, arrive>, %b: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
    %sa, %na = mbarrier.pipe.wait %a, %s : !mbarrier.pipe<2, arrive>
    %sb, %nb = mbarrier.pipe.wait %b, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %a[%sa] : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %b[%sb] : !mbarrier.pipe<2, arrive>
    scf.yield %na : !mbarrier.pipe_state<consumer>
  }
  return
}

// A slot released once on every path: in each branch of an scf.if.
// CHECK-LABEL: func.func @slot_released_in_each_branch(
// LOWER-LABEL: func.func @slot_released_in_each_branch(
// LOWER-COUNT-2: mbarrier.arrive
func.func @slot_released_in_each_branch(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %c: i1, %lead: i1) {
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  scf.if %c {
    mbarrier.pipe.release %p[%slot] if %lead : !mbarrier.pipe<2, arrive>
  } else {
    %i = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  }
  return
}

// A slot carried out of an scf.if (one of two slots, by a branch) and
// released after it; the other one in the branch.
// CHECK-LABEL: func.func @slot_carried_out_of_a_branch(
// LOWER-LABEL: func.func @slot_carried_out_of_a_branch(
// LOWER: scf.if {{.*}} -> (index)
func.func @slot_carried_out_of_a_branch(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %c: i1) {
  %a, %na = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  %b, %nb = mbarrier.pipe.wait %p, %na : !mbarrier.pipe<2, arrive>
  %later = scf.if %c -> !mbarrier.slot<consumer> {
    mbarrier.pipe.release %p[%a] : !mbarrier.pipe<2, arrive>
    scf.yield %b : !mbarrier.slot<consumer>
  } else {
    mbarrier.pipe.release %p[%a] : !mbarrier.pipe<2, arrive>
    scf.yield %b : !mbarrier.slot<consumer>
  }
  mbarrier.pipe.release %p[%later] : !mbarrier.pipe<2, arrive>
  return
}

// The lagging release through a persistent scf.while: the slot of one trip
// is released in the next, the last one after the loop.
// CHECK-LABEL: func.func @slot_carried_by_a_while(
// LOWER-LABEL: func.func @slot_carried_by_a_while(
// LOWER: scf.while ({{.*}}) : (index, i32) -> (index, i32)
func.func @slot_carried_by_a_while(%p: !mbarrier.pipe<4, tma>, %more: i1) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<4, tma>
  %r:2 = scf.while (%prev = %first, %s = %st1) : (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    scf.condition(%more) %prev, %s : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  } do {
  ^bb0(%prev: !mbarrier.slot<consumer>, %s: !mbarrier.pipe_state<consumer>):
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<4, tma>
    mbarrier.pipe.release %p[%prev] : !mbarrier.pipe<4, tma>
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  mbarrier.pipe.release %p[%r#0] : !mbarrier.pipe<4, tma>
  return
}

// An scf.index_switch carries a slot out of its cases like an scf.if.
// CHECK-LABEL: func.func @slot_through_a_switch(
// LOWER-LABEL: func.func @slot_through_a_switch(
// LOWER: scf.index_switch {{.*}} -> index
func.func @slot_through_a_switch(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %k: index) {
  %a, %na = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  %r = scf.index_switch %k -> !mbarrier.slot<consumer>
  case 0 {
    scf.yield %a : !mbarrier.slot<consumer>
  }
  default {
    scf.yield %a : !mbarrier.slot<consumer>
  }
  mbarrier.pipe.release %p[%r] : !mbarrier.pipe<2, arrive>
  return
}
