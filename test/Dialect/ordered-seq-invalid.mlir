// One case per rule of the ordered-sequence verifier (docs/pipelines.md,
// "Ordered sequences"): the numbers of the type, the group a sequence is
// made from, the group a state starts, and the linearity of states and
// turns (the pipe verifier's walk, PipeLinearity.cpp).
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics

// expected-error @+1 {{an ordered sequence needs at least one stage, got -1}}
func.func @negative_depth(%o: !mbarrier.ordered_seq<-1, 2>)

// -----

// expected-error @+1 {{an ordered sequence orders at least two groups}}
func.func @one_group(%o: !mbarrier.ordered_seq<2, 1>)

// -----

// expected-error @+1 {{arrivals must be 1 to 1048575 (the arrivals that hand a turn on), got 0}}
func.func @zero_arrivals(%o: !mbarrier.ordered_seq<2, 2, arrivals = 0>)

// -----

// expected-error @+1 {{an ordered sequence of 200 stages x 200 groups needs 320000 bytes of barriers, more than the 227 KiB of shared memory a CTA can have}}
func.func @too_many_barriers(%o: !mbarrier.ordered_seq<200, 200>)

// -----

// expected-error @+1 {{unknown ordered_seq parameter 'consumers' (expected arrivals)}}
func.func @unknown_parameter(%o: !mbarrier.ordered_seq<2, 2, consumers = 2>)

// -----

// expected-error @+1 {{ordered_seq parameter 'arrivals' is given twice}}
func.func @parameter_twice(%o: !mbarrier.ordered_seq<2, 2, arrivals = 2, arrivals = 3>)

// -----

gpu.module @m {
  gpu.func @group_of_wrong_size() kernel {
    %g = mbarrier.alloc : !mbarrier.group<2>
    // expected-error @+1 {{an ordered sequence of 2 stages x 2 groups needs a group of 4 barriers (one per group and stage), got '!mbarrier.group<2>'}}
    %o = mbarrier.seq.create %g : !mbarrier.group<2> -> !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @start_group_out_of_range() kernel {
    %i2 = arith.constant 2 : i32
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{starts group 2, outside the sequence's groups 0 to 1}}
    %st = mbarrier.seq.start %o, %i2 : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

// The missing arrive of a ping-pong: the next group waits forever.
gpu.module @m {
  gpu.func @turn_never_arrived(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{makes a turn that is never arrived: seq.arrive it exactly once on every path}}
    %turn, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @turn_arrived_on_some_paths(%wg: i32, %c: i1) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{makes a turn that is arrived on some paths only: seq.arrive it exactly once on every path}}
    %turn, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    scf.if %c {
      // expected-note @+1 {{seq.arrive here}}
      mbarrier.seq.arrive %o[%turn] : !mbarrier.ordered_seq<2, 2>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @turn_arrived_twice(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{makes a turn that is arrived twice: each turn is arrived exactly once}}
    %turn, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    mbarrier.seq.arrive %o[%turn] : !mbarrier.ordered_seq<2, 2>
    // expected-note @+1 {{second seq.arrive}}
    mbarrier.seq.arrive %o[%turn] : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

// Two waits on one state: both groups' turns would be the same stage.
gpu.module @m {
  gpu.func @state_waited_twice(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-note @+1 {{taken here}}
    %t1, %n1 = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    mbarrier.seq.arrive %o[%t1] : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{'mbarrier.seq.wait' op takes a state that 'mbarrier.seq.wait' already took on this ordered sequence: use the state it returned (each state names one stage and phase)}}
    %t2, %n2 = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    mbarrier.seq.arrive %o[%t2] : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @state_from_outside_waited_in_every_trip(%wg: i32, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-note @+1 {{the loop}}
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{'mbarrier.seq.wait' op takes a state defined outside the enclosing 'scf.for' in every trip}}
      %t, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
      mbarrier.seq.arrive %o[%t] : !mbarrier.ordered_seq<2, 2>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @turn_of_another_sequence(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %h = mbarrier.alloc : !mbarrier.group<4>
    %q = mbarrier.seq.create %h : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-note @+1 {{taken here, on the other ordered sequence}}
    %t, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{uses a turn of another ordered sequence: the turn was taken on another '!mbarrier.ordered_seq<2, 2>'}}
    mbarrier.seq.arrive %q[%t] : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

// A state encodes its group with the sequence's length: it is waited on the
// sequence that started it.
gpu.module @m {
  gpu.func @state_of_another_sequence(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %h = mbarrier.alloc : !mbarrier.group<3>
    %q = mbarrier.seq.create %h : !mbarrier.group<3> -> !mbarrier.ordered_seq<1, 3>
    // expected-note @+1 {{taken here, on the other ordered sequence}}
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{uses a state of another ordered sequence: the state was taken on a '!mbarrier.ordered_seq<2, 2>', this op is on a '!mbarrier.ordered_seq<1, 3>'}}
    %t, %next = mbarrier.seq.wait %q, %st : !mbarrier.ordered_seq<1, 3>
    mbarrier.seq.arrive %q[%t] : !mbarrier.ordered_seq<1, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @turn_from_an_argument(%t: !mbarrier.seq_turn) {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{takes a turn made by seq.wait in the same function (or carried from one by scf.for, scf.if or scf.while); a turn cannot be passed in a function or block argument}}
    mbarrier.seq.arrive %o[%t] : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}

// -----

gpu.module @m {
  func.func private @sink(!mbarrier.seq_turn)
  gpu.func @turn_passed_to_a_call(%wg: i32) kernel {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    %st = mbarrier.seq.start %o, %wg : !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{makes a turn that is passed to 'func.call': a turn stays in the function that took it}}
    %t, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    // expected-note @+1 {{used here}}
    func.call @sink(%t) : (!mbarrier.seq_turn) -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @state_from_an_argument(%st: !mbarrier.seq_state) {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %o = mbarrier.seq.create %g : !mbarrier.group<4> -> !mbarrier.ordered_seq<2, 2>
    // expected-error @+1 {{takes a state made by seq.start or seq.wait in the same function (or carried from one by scf.for, scf.if or scf.while); a state cannot be passed in a function or block argument}}
    %t, %next = mbarrier.seq.wait %o, %st : !mbarrier.ordered_seq<2, 2>
    mbarrier.seq.arrive %o[%t] : !mbarrier.ordered_seq<2, 2>
    gpu.return
  }
}
