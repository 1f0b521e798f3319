// One case per rule of the pipeline verifier (docs/pipelines.md, "Rules").
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics
// RUN: %mlir_opt %mbarrier_plugin_opts %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a pipe needs at least one stage}}
func.func @zero_depth(%p: !mbarrier.pipe<0, tma>)

// -----

// expected-error @+1 {{a pipe of 20000 stages needs 320000 bytes of barriers, more than the 227 KiB of shared memory a CTA can have}}
func.func @too_deep(%p: !mbarrier.pipe<20000, tma>)

// -----

// expected-error @+1 {{producers must be 1 to 1048575 (arrivals on a full barrier per phase), got 0}}
func.func @zero_producers(%p: !mbarrier.pipe<2, tma, producers = 0>)

// -----

// expected-error @+1 {{consumers must be 1 to 1048575 (release arrivals per phase from each CTA), got 1048576}}
func.func @too_many_consumers(%p: !mbarrier.pipe<2, tma, consumers = 1048576>)

// -----

// expected-error @+1 {{cluster = [4, 8] is not a cluster shape: each dimension at least 1, at most 16 CTAs}}
func.func @cluster_too_big(%p: !mbarrier.pipe<2, tma, cluster = [4, 8]>)

// -----

// expected-error @+1 {{multicast = row needs more than one CTA per row, the cluster is [1, 2]}}
func.func @multicast_row_of_one(%p: !mbarrier.pipe<2, tma, cluster = [1, 2], multicast = row>)

// -----

// expected-error @+1 {{multicast = rowcol needs more than one CTA per column, the cluster is [4, 1]}}
func.func @multicast_column_of_one(%p: !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = rowcol>)

// -----

// expected-error @+1 {{the empty barriers would count 1000000 consumers x 2 CTAs = 2000000 arrivals, more than 1048575}}
func.func @empty_count_overflow(%p: !mbarrier.pipe<2, tma, consumers = 1000000, cluster = [2, 1], multicast = row>)

// -----

// expected-error @+1 {{expected a pipe kind (tma, arrive or tcgen05), got 'bulk'}}
func.func @unknown_kind(%p: !mbarrier.pipe<2, bulk>)

// -----

// expected-error @+1 {{expected multicast = none, row, col or rowcol, got 'diagonal'}}
func.func @unknown_multicast(%p: !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = diagonal>)

// -----

// expected-error @+1 {{unknown pipe parameter 'stages' (expected producers, consumers, cluster or multicast)}}
func.func @unknown_parameter(%p: !mbarrier.pipe<2, tma, stages = 3>)

// -----

func.func @group_size() {
  %g = mbarrier.alloc : !mbarrier.group<6>
  // expected-error @+1 {{a pipe of depth 4 needs a group of 8 barriers (a full and an empty barrier per stage), got '!mbarrier.group<6>'}}
  %p = mbarrier.pipe.create %g : !mbarrier.group<6> -> !mbarrier.pipe<4, tma>
  return
}

// -----

gpu.module @m {
  gpu.func @cluster_mismatch() kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<4>
    // expected-error @+1 {{makes a pipe for cluster = [2, 2] in a kernel whose 'known_cluster_size' is (4, 1, 1): the multicast masks and release targets follow the kernel's cluster shape}}
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = row>
    gpu.return
  }
}

// -----

func.func @never_committed(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-error @+1 {{makes a slot that is never committed: pipe.commit it exactly once on every path}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @never_released(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>) {
  // expected-error @+1 {{makes a slot that is never released: pipe.release it exactly once on every path}}
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @committed_twice(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-error @+1 {{makes a slot that is committed twice: each slot is committed exactly once}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{second pipe.commit}}
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @committed_on_one_path(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>, %c: i1) {
  // expected-error @+1 {{makes a slot that is committed on some paths only: pipe.commit it exactly once on every path}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  scf.if %c {
    // expected-note @+1 {{pipe.commit here}}
    mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  }
  return
}

// -----

func.func private @sink(!mbarrier.slot<consumer>)

func.func @slot_leaves_block(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>) {
  // expected-error @+1 {{makes a slot that is passed to 'func.call': a slot stays in the function that took it (carried only by scf.for, scf.if and scf.while) and is released there}}
  %slot, %next = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{used here}}
  func.call @sink(%slot) : (!mbarrier.slot<consumer>) -> ()
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A slot carried into a loop (released one trip later, as a consumer that
// releases the previous stage does) must be released in the body...
func.func @carried_slot_not_released_in_body(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{makes a slot that (carried by the scf.for as iter_arg #0 into its body) is never released: pipe.release it exactly once on every path}}
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  %last, %end = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  mbarrier.pipe.release %p[%last] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// ... and the slot the loop carries out must be released after it.
func.func @carried_slot_not_released_after_loop(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{makes a slot that (carried out of the scf.for as result #0) is never released}}
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  %last, %end = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    mbarrier.pipe.release %p[%prev] : !mbarrier.pipe<2, arrive>
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  return
}

// -----

func.func @use_after_commit(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  // expected-note @+1 {{committed here}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  // expected-error @+1 {{uses a slot after it was committed}}
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %b : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @slot_argument(%p: !mbarrier.pipe<2, arrive>, %slot: !mbarrier.slot<producer>) {
  // expected-error @+1 {{takes a slot made by pipe.acquire in the same function (or carried from one by scf.for, scf.if or scf.while); a slot cannot be passed in a function or block argument}}
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @slot_of_another_pipe(%p: !mbarrier.pipe<2, arrive>, %q: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-note @+1 {{taken here, on the other pipe}}
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{uses a slot of another pipe: the slot was taken on another '!mbarrier.pipe<2, arrive>'}}
  mbarrier.pipe.commit %q[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// A reproducer: a slot carried through scf.for is traced to
// every acquire that may have made it, the one before the loop and the one
// its body yields: here a slot of the depth-4 pipe would be committed on the
// depth-2 pipe's barriers.
func.func @slot_carried_from_another_pipe(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g1 = mbarrier.alloc : !mbarrier.group<4>
  %g2 = mbarrier.alloc : !mbarrier.group<8>
  %p1 = mbarrier.pipe.create %g1 : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  %p2 = mbarrier.pipe.create %g2 : !mbarrier.group<8> -> !mbarrier.pipe<4, arrive>
  %s1 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %a, %na = mbarrier.pipe.acquire %p1, %s1 : !mbarrier.pipe<2, arrive>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%slot = %a, %st = %na) -> (!mbarrier.slot<producer>, !mbarrier.pipe_state<producer>) {
    // expected-error @+1 {{uses a slot of another pipe: the slot was taken on a '!mbarrier.pipe<4, arrive>', this op is on a '!mbarrier.pipe<2, arrive>'}}
    mbarrier.pipe.commit %p1[%slot] : !mbarrier.pipe<2, arrive>
    // expected-note @+1 {{taken here, on the other pipe}}
    %b, %nb = mbarrier.pipe.acquire %p2, %st : !mbarrier.pipe<4, arrive>
    scf.yield %b, %nb : !mbarrier.slot<producer>, !mbarrier.pipe_state<producer>
  }
  mbarrier.pipe.commit %p1[%r#0] : !mbarrier.pipe<2, arrive>
  return
}

// -----

// The stage of a slot that two pipes' acquires may have made.
func.func @stage_of_a_slot_from_two_pipes(%p: !mbarrier.pipe<2, arrive>, %q: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>, %c: i1) -> index {
  // expected-note @+1 {{taken here}}
  %a, %na = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  // expected-note @+1 {{taken here, on the other pipe}}
  %b, %nb = mbarrier.pipe.acquire %q, %st : !mbarrier.pipe<2, arrive>
  %slot = scf.if %c -> !mbarrier.slot<producer> {
    mbarrier.pipe.commit %q[%b] : !mbarrier.pipe<2, arrive>
    scf.yield %a : !mbarrier.slot<producer>
  } else {
    mbarrier.pipe.commit %p[%a] : !mbarrier.pipe<2, arrive>
    scf.yield %b : !mbarrier.slot<producer>
  }
  // expected-error @+1 {{takes a slot that may come from two pipes ('!mbarrier.pipe<2, arrive>' and '!mbarrier.pipe<2, arrive>')}}
  %i = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return %i : index
}

// -----

func.func @state_taken_twice(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-note @+1 {{taken here}}
  %s1, %n1 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%s1] : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{takes a state that 'mbarrier.pipe.acquire' already took on this pipe: use the state it returned (each state names one stage and phase)}}
  %s2, %n2 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%s2] : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @tail_on_taken_state(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>) {
  // expected-note @+1 {{taken here}}
  %s1, %n1 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%s1] : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{takes a state that 'mbarrier.pipe.acquire' already took on this pipe}}
  mbarrier.pipe.tail %p, %st : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @ready_of_another_state(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>, %other: !mbarrier.pipe_state<consumer>) {
  %ok = mbarrier.pipe.try_wait %p, %other : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{takes a ready flag that tested another state}}
  %slot, %next = mbarrier.pipe.wait %p, %st ready %ok : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.release %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @consumer_state_to_acquire(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<consumer>) {
  // expected-error @+1 {{operand #1 must be a producer state (!mbarrier.pipe_state<producer>)}}
  %slot, %next = "mbarrier.pipe.acquire"(%p, %st) : (!mbarrier.pipe<2, arrive>, !mbarrier.pipe_state<consumer>) -> (!mbarrier.slot<producer>, !mbarrier.pipe_state<producer>)
  return
}

// -----

func.func @release_of_producer_slot(%p: !mbarrier.pipe<2, arrive>, %slot: !mbarrier.slot<producer>) {
  // expected-error @+1 {{operand #1 must be a consumer slot (!mbarrier.slot<consumer>, from pipe.wait)}}
  "mbarrier.pipe.release"(%p, %slot) : (!mbarrier.pipe<2, arrive>, !mbarrier.slot<producer>) -> ()
  return
}

// -----

func.func @copy_on_arrive_pipe(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{completes on the full barrier with complete-tx, which only a tma pipe expects; the pipe is '!mbarrier.pipe<2, arrive>'}}
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %b : !mbarrier.pipe<2, arrive>
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @copy_size(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  %size = arith.constant 100 : i32
  // expected-error @+1 {{copies a positive multiple of 16 bytes, at most 1048575, got 100}}
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<2, tma>
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @tensor_rank(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  // expected-error @+1 {{takes 1 to 5 coordinates, got 6}}
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x, %x, %x, %x, %x, %x], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @tensor_box_bytes(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  // expected-error @+1 {{states a box of 4100 bytes: a box is a multiple of 16 bytes, at most 1048575}}
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 4100 : !mbarrier.pipe<2, tma>, !llvm.ptr
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @multicast_both_ways(%p: !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
  // expected-error @+1 {{multicasts along one direction, row or col; load each operand along its own}}
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 4096 multicast rowcol : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>, !llvm.ptr
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
  return
}

// -----

func.func @multicast_not_released(%p: !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = row>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = row>
  // expected-error @+1 {{multicasts along the column, which the pipe does not (its multicast = row): the consumers of the CTAs it reaches would not release the stage to this one}}
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 4096 multicast col : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = row>, !llvm.ptr
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = row>
  return
}

// -----

func.func @bytes_on_arrive_pipe(%p: !mbarrier.pipe<2, arrive>, %st: !mbarrier.pipe_state<producer>, %b: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, arrive>
  // expected-error @+1 {{takes bytes only on a tma pipe; the pipe is '!mbarrier.pipe<2, arrive>'}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, arrive>
  return
}

// -----

func.func @tma_commit_without_bytes(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  // expected-error @+1 {{on a tma pipe states the bytes that land in this CTA's stage (`bytes %n`)}}
  mbarrier.pipe.commit %p[%slot] : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @tx_count_range(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  %b = arith.constant 2000000 : i32
  // expected-error @+1 {{expects 2000000 bytes: the tx-count of a phase is 0 to 1048575}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

func.func @bytes_mismatch(%p: !mbarrier.pipe<2, tma>, %st: !mbarrier.pipe_state<producer>, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %map: !llvm.ptr, %x: i32) {
  %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma>
  %size = arith.constant 2048 : i32
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<2, tma>
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 4096 : !mbarrier.pipe<2, tma>, !llvm.ptr
  %b = arith.constant 8192 : i32
  // expected-error @+1 {{expects 8192 bytes on the full barrier, but the copies into this slot land 6144 bytes in each receiving CTA (2048 + 4096): the phase would never complete}}
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma>
  return
}

// -----

gpu.module @m {
  gpu.func @multicast_bytes_counted_per_receiver(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %x: i32) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    // Each of the 4 CTAs of the row multicasts 4096 bytes: 16384 land in each.
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 4096 multicast row : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>, !llvm.ptr
    %b = arith.constant 4096 : i32
    // expected-error @+1 {{expects 4096 bytes on the full barrier, but the copies into this slot land 16384 bytes in each receiving CTA (4096 x 4 CTAs): the phase would complete early}}
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @pipe_parameter(%p: !mbarrier.pipe<2, arrive>) kernel {
    // expected-error @+1 {{uses kernel parameter #0 as a barrier group: a kernel parameter cannot be '!mbarrier.pipe<2, arrive>'}}
    mbarrier.pipe.init %p : !mbarrier.pipe<2, arrive>
    gpu.return
  }
}
