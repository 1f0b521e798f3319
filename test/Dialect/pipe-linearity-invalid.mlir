// Linearity of pipe states and slots (docs/pipelines.md, "Rules", 2 and 3):
// a state is taken at most once on every path, never once per trip of a loop
// it enters from outside, and a loop hands on the state its trip produced; a
// slot is committed (released) exactly once on every path and used only
// before that. Each value is followed through scf.for, scf.if and scf.while.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics

// A reproducer: the producer's state is defined outside the
// loop and taken inside it, so every trip takes stage 0 with the same parity.
gpu.module @m {
  gpu.func @state_from_outside_taken_in_every_trip(%n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %prod = arith.cmpi eq, %tid, %c0 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
    scf.if %prod {
      mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    }
    nvvm.barrier0
    scf.if %prod {
      %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      // expected-note @+1 {{the loop}}
      scf.for %i = %c0 to %n step %c1 {
        // expected-error @+1 {{'mbarrier.pipe.acquire' op takes a state defined outside the enclosing 'scf.for' in every trip: each trip would take the same stage and phase; carry the state through the loop (an iter_arg) and use the one each trip returns}}
        %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
        mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
      }
    }
    gpu.return
  }
}

// -----

// The consumer side of the same bug, in the before region of an scf.while.
func.func @consumer_state_from_outside_waited_in_a_while(%p: !mbarrier.pipe<2, arrive>, %c: i1) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // expected-note @+1 {{the loop}}
  scf.while : () -> () {
    // expected-error @+1 {{'mbarrier.pipe.wait' op takes a state defined outside the enclosing 'scf.while' in every trip}}
    %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}

// -----

// A state skipped forward by the same amount in every trip is the same state
// in every trip.
func.func @state_from_outside_advanced_in_every_trip(%p: !mbarrier.pipe<2, arrive>, %n: index, %k: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // expected-note @+1 {{the loop}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'mbarrier.pipe.advance' op advances a state defined outside the enclosing 'scf.for' in every trip}}
    %s = mbarrier.pipe.advance %st, %k : !mbarrier.pipe_state<consumer>
  }
  return
}

// -----

// A reproducer: the loop carries the state but yields the
// one it was given.
func.func @loop_yields_the_state_it_took(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
    // expected-error @+1 {{'mbarrier.pipe.acquire' op takes a state that 'scf.yield' hands on as well: hand on the state it returned (each state names one stage and phase)}}
    %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
    // expected-note @+1 {{handed on here}}
    scf.yield %s : !mbarrier.pipe_state<producer>
  }
  return
}

// -----

// A loop that yields its initial state: every trip starts from it again.
func.func @loop_yields_its_initial_state(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // expected-note @+1 {{handed on here}}
  %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
    // expected-error @+1 {{'scf.yield' op hands on the state that the enclosing 'scf.for' started from: hand on the state the trip produced (each state names one stage and phase)}}
    scf.yield %st : !mbarrier.pipe_state<consumer>
  }
  return
}

// -----

// A reproducer: taken in a block and again in a nested
// scf.if.
func.func @state_taken_again_in_a_branch(%c: i1) {
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-note @+1 {{taken here}}
  %s1, %n1 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%s1] : !mbarrier.pipe<2, arrive>
  scf.if %c {
    // expected-error @+1 {{'mbarrier.pipe.acquire' op takes a state that 'mbarrier.pipe.acquire' already took on this pipe: use the state it returned (each state names one stage and phase)}}
    %s2, %n2 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.commit %p[%s2] : !mbarrier.pipe<2, arrive>
  }
  return
}

// -----

// Taken in one branch (a path), then again after the scf.if.
func.func @state_taken_in_a_branch_then_after_it(%p: !mbarrier.pipe<2, arrive>, %c: i1) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  scf.if %c {
    // expected-note @+1 {{taken here}}
    %s1, %n1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%s1] : !mbarrier.pipe<2, arrive>
  }
  // expected-error @+1 {{'mbarrier.pipe.wait' op takes a state that 'mbarrier.pipe.wait' already took on this pipe}}
  %s2, %n2 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.release %p[%s2] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A state handed to a loop is the loop's: take its result, not the state.
func.func @state_taken_after_a_loop_took_it(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-note @+1 {{handed on here}}
  %e = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
    %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
    scf.yield %next : !mbarrier.pipe_state<producer>
  }
  // expected-error @+1 {{'mbarrier.pipe.tail' op takes a state that 'scf.for' already handed on: use the value it hands the state on to (each state names one stage and phase)}}
  mbarrier.pipe.tail %p, %st : !mbarrier.pipe<2, arrive>
  return
}

// -----

// Two loops that start from one state both take its stage and phase.
func.func @state_handed_to_a_loop_twice(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-error @+2 {{'scf.for' op hands on a pipe state that 'scf.for' already handed on (each state names one stage and phase)}}
  // expected-note @+1 {{handed on here}}
  %e:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %st, %b = %st) -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>) {
    scf.yield %a, %b : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
  }
  return
}

// -----

// A test of a state already taken tests a stage the side has left.
func.func @state_tested_after_it_was_taken(%p: !mbarrier.pipe<2, arrive>) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-note @+1 {{taken here}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{'mbarrier.pipe.try_acquire' op tests a state that 'mbarrier.pipe.acquire' already took on this pipe: test the state it returned}}
  %ok = mbarrier.pipe.try_acquire %p, %st : !mbarrier.pipe<2, arrive>
  return
}

// -----

// Pipe states follow structured control flow; a state used in another block
// (through a cf branch) is rejected.
func.func @state_used_in_another_block(%p: !mbarrier.pipe<2, arrive>) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  cf.br ^next
^next:
  // expected-error @+2 {{'mbarrier.pipe.acquire' op uses a pipe state defined in another block of the region: pipe states and slots follow structured control flow (scf.for, scf.if, scf.while)}}
  // expected-note @+1 {{used here}}
  %slot, %n = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A slot made outside a loop and committed inside it is committed in every
// trip.
func.func @slot_from_outside_committed_in_every_trip(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-error @+1 {{'mbarrier.pipe.acquire' op makes a slot that is committed in every trip of the enclosing 'scf.for', which it enters from outside: carry it into the loop (an iter_arg) and hand on the slot each trip makes}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{the loop}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @+1 {{here}}
    mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  }
  return
}

// -----

// Released on one path, then again after the branch.
func.func @slot_released_in_a_branch_then_after_it(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %c: i1) {
  // expected-error @+1 {{'mbarrier.pipe.wait' op makes a slot that is released twice: each slot is released exactly once}}
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  scf.if %c {
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  }
  // expected-note @+1 {{second pipe.release}}
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A slot carried into a loop is the loop's: it is released there (as the
// iter_arg) or after it (as the result), not as itself.
func.func @slot_released_after_a_loop_carried_it(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'mbarrier.pipe.wait' op makes a slot that is handed on and then released again: each slot is released (or carried on to a value that is) exactly once}}
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{first here}}
  %last, %end = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%prev] : !mbarrier.pipe<2, arrive>
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  mbarrier.pipe.release %p[%last] : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{again here}}
  mbarrier.pipe.release %p[%first] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// Use after release, with no use before it (the stage read only after).
func.func @stage_read_only_after_release(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>) -> index {
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{released here}}
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{'mbarrier.pipe.stage' op uses a slot after it was released}}
  %i = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
  return %i : index
}

// -----

// Use after release, with a use before it: the same error.
func.func @stage_read_before_and_after_release(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>) -> index {
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  %i = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
  // expected-note @+1 {{released here}}
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{'mbarrier.pipe.stage' op uses a slot after it was released}}
  %j = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
  %k = arith.addi %i, %j : index
  return %k : index
}

// -----

// Use after a release on one path is a use after release.
func.func @stage_read_after_release_on_one_path(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %c: i1) -> index {
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  scf.if %c {
    // expected-note @+1 {{released here}}
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  }
  // expected-error @+1 {{'mbarrier.pipe.stage' op uses a slot after it was released}}
  %i = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
  return %i : index
}

// -----

// A slot used after a loop took it over.
func.func @copy_into_a_slot_after_a_loop_carried_it(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %n: index, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.constant 4096 : i32
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  // expected-note @+1 {{handed on here}}
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%s = %slot) -> !mbarrier.slot<producer> {
    scf.yield %s : !mbarrier.slot<producer>
  }
  // expected-error @+1 {{'mbarrier.pipe.cp_async_bulk' op uses a slot after it was handed on}}
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %b : !mbarrier.pipe<2, tma>
  mbarrier.pipe.commit %p[%last], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

// A slot carried out of an scf.if must be committed after it.
func.func @slot_carried_out_of_an_if_never_committed(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>, %c: i1) {
  // expected-error @+1 {{'mbarrier.pipe.acquire' op makes a slot that (carried out of the scf.if as result #0) is never committed: pipe.commit it exactly once on every path}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  %r = scf.if %c -> !mbarrier.slot<producer> {
    scf.yield %slot : !mbarrier.slot<producer>
  } else {
    scf.yield %slot : !mbarrier.slot<producer>
  }
  return
}

// -----

func.func @slot_in_another_block(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-error @+1 {{'mbarrier.pipe.acquire' op makes a slot that is used in another block of the region: pipe states and slots follow structured control flow (scf.for, scf.if, scf.while)}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  cf.br ^next
^next:
  // expected-note @+1 {{used here}}
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A call that takes the state hands it on: the callee takes it.
func.func private @produce(!mbarrier.pipe<2, arrive>, !mbarrier.pipe_state<producer>) -> !mbarrier.pipe_state<producer>

func.func @state_taken_after_a_call_took_it(%p: !mbarrier.pipe<2, arrive>) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-note @+1 {{handed on here}}
  %after = func.call @produce(%p, %st) : (!mbarrier.pipe<2, arrive>, !mbarrier.pipe_state<producer>) -> !mbarrier.pipe_state<producer>
  // expected-error @+1 {{'mbarrier.pipe.acquire' op takes a state that 'func.call' already handed on}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// Any op whose region the verifier does not know may run it more than once
// (here scf.parallel): a state from outside is not taken in it.
func.func @state_from_outside_taken_in_a_parallel_loop(%p: !mbarrier.pipe<2, arrive>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // expected-note @+1 {{the loop}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    // expected-error @+1 {{'mbarrier.pipe.wait' op takes a state defined outside the enclosing 'scf.parallel' in every trip}}
    %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
    scf.reduce
  }
  return
}

// -----

// A tail takes the stages after its state: nothing takes that state again.
func.func @state_taken_after_its_tail(%p: !mbarrier.pipe<2, arrive>) {
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // expected-note @+1 {{taken here}}
  mbarrier.pipe.tail %p, %st : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{'mbarrier.pipe.acquire' op takes a state that 'mbarrier.pipe.tail' already took on this pipe: a tail takes the last stages of a side (each state names one stage and phase)}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}
