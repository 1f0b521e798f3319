// Round trip of the pipeline types and ops (docs/pipelines.md), in the custom
// and the generic form, and through the stock mlir-opt with our plugin.
// RUN: mbarrier-opt %s | mbarrier-opt | FileCheck %s
// RUN: mbarrier-opt %s --mlir-print-op-generic | mbarrier-opt | FileCheck %s
// RUN: %mlir_opt %mbarrier_plugin_opts %s | %mlir_opt %mbarrier_plugin_opts | FileCheck %s

// Defaults are left out when printed; every parameter survives.
// CHECK-LABEL: func.func @types(
// CHECK-SAME: !mbarrier.pipe<4, tma>
// CHECK-SAME: !mbarrier.pipe<2, arrive, producers = 3, consumers = 2>
// CHECK-SAME: !mbarrier.pipe<8, tcgen05, cluster = [4, 1]>
// CHECK-SAME: !mbarrier.pipe<4, tma, consumers = 2, cluster = [2, 2], multicast = rowcol>
// CHECK-SAME: !mbarrier.pipe_state<producer>
// CHECK-SAME: !mbarrier.pipe_state<consumer>
func.func @types(%a: !mbarrier.pipe<4, tma, producers = 1, consumers = 1, cluster = [1, 1], multicast = none>,
                 %b: !mbarrier.pipe<2, arrive, producers = 3, consumers = 2>,
                 %c: !mbarrier.pipe<8, tcgen05, cluster = [4, 1]>,
                 %d: !mbarrier.pipe<4, tma, multicast = rowcol, cluster = [2, 2], consumers = 2>,
                 %s: !mbarrier.pipe_state<producer>, %t: !mbarrier.pipe_state<consumer>) {
  return
}

// CHECK-LABEL: func.func @producer(
// CHECK-SAME: %[[DST:[^:]*]]: !llvm.ptr<3>, %[[SRC:[^:]*]]: !llvm.ptr<1>, %[[MAP:[^:]*]]: !llvm.ptr, %[[N:[^:]*]]: i32
func.func @producer(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %map: !llvm.ptr, %n: i32) {
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<8>
  %g = mbarrier.alloc : !mbarrier.group<8>
  // CHECK: %[[P:.*]] = mbarrier.pipe.create %[[G]] : !mbarrier.group<8> -> !mbarrier.pipe<4, tma>
  %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.init %[[P]] : !mbarrier.pipe<4, tma>
  mbarrier.pipe.init %p : !mbarrier.pipe<4, tma>
  // CHECK: %[[ST:.*]] = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  // CHECK: %[[OK:.*]] = mbarrier.pipe.try_acquire %[[P]], %[[ST]] : !mbarrier.pipe<4, tma>
  %ok = mbarrier.pipe.try_acquire %p, %st : !mbarrier.pipe<4, tma>
  // CHECK: %[[SLOT:.*]], %[[NEXT:.*]] = mbarrier.pipe.acquire %[[P]], %[[ST]] ready %[[OK]] : !mbarrier.pipe<4, tma>
  %slot, %next = mbarrier.pipe.acquire %p, %st ready %ok : !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.stage %[[SLOT]] : !mbarrier.slot<producer>
  %s = mbarrier.pipe.stage %slot : !mbarrier.slot<producer>
  // CHECK: mbarrier.pipe.full_ptr %[[P]][%[[SLOT]]] : !mbarrier.pipe<4, tma>
  %bar = mbarrier.pipe.full_ptr %p[%slot] : !mbarrier.pipe<4, tma>
  %size = arith.constant 4096 : i32
  // CHECK: mbarrier.pipe.cp_async_bulk %[[P]][%[[SLOT]]], %[[DST]], %[[SRC]], %{{.*}} : !mbarrier.pipe<4, tma>
  mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %size : !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.cp_async_bulk_tensor %[[P]][%[[SLOT]]], %[[DST]], %[[MAP]][%[[N]], %[[N]]], bytes 4096 : !mbarrier.pipe<4, tma>, !llvm.ptr
  mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%n, %n], bytes 4096 : !mbarrier.pipe<4, tma>, !llvm.ptr
  %b = arith.constant 8192 : i32
  // CHECK: mbarrier.pipe.commit %[[P]][%[[SLOT]]], bytes %{{.*}} : !mbarrier.pipe<4, tma>
  mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<4, tma>
  // CHECK: %[[ST2:.*]] = mbarrier.pipe.advance %[[NEXT]], %[[N]] : !mbarrier.pipe_state<producer>
  %st2 = mbarrier.pipe.advance %next, %n : !mbarrier.pipe_state<producer>
  // A blocking acquire (no ready flag) of the state after.
  // CHECK: %[[SLOT2:.*]], %[[NEXT2:.*]] = mbarrier.pipe.acquire %[[P]], %[[ST2]] : !mbarrier.pipe<4, tma>
  %slot2, %next2 = mbarrier.pipe.acquire %p, %st2 : !mbarrier.pipe<4, tma>
  %b2 = arith.constant 0 : i32
  mbarrier.pipe.commit %p[%slot2], bytes %b2 : !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.tail %[[P]], %[[NEXT2]] : !mbarrier.pipe<4, tma>
  mbarrier.pipe.tail %p, %next2 : !mbarrier.pipe<4, tma>
  return
}

// CHECK-LABEL: func.func @consumer(
// CHECK-SAME: %[[LEADER:[^:]*]]: i1, %[[N:[^:]*]]: i32
func.func @consumer(%leader: i1, %n: i32) {
  %g = mbarrier.alloc : !mbarrier.group<8>
  // CHECK: %[[P:.*]] = mbarrier.pipe.create
  %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma>
  // CHECK: %[[ST:.*]] = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // CHECK: %[[ST2:.*]] = mbarrier.pipe.advance %[[ST]], %[[N]] : !mbarrier.pipe_state<consumer>
  %st2 = mbarrier.pipe.advance %st, %n : !mbarrier.pipe_state<consumer>
  // CHECK: %[[OK:.*]] = mbarrier.pipe.try_wait %[[P]], %[[ST2]] : !mbarrier.pipe<4, tma>
  %ok = mbarrier.pipe.try_wait %p, %st2 : !mbarrier.pipe<4, tma>
  // CHECK: %[[SLOT:.*]], %[[NEXT:.*]] = mbarrier.pipe.wait %[[P]], %[[ST2]] ready %[[OK]] : !mbarrier.pipe<4, tma>
  %slot, %next = mbarrier.pipe.wait %p, %st2 ready %ok : !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.stage %[[SLOT]] : !mbarrier.slot<consumer>
  %s = mbarrier.pipe.stage %slot : !mbarrier.slot<consumer>
  // CHECK: mbarrier.pipe.release %[[P]][%[[SLOT]]] if %[[LEADER]] : !mbarrier.pipe<4, tma>
  mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<4, tma>
  // CHECK: %[[SLOT2:.*]], %{{.*}} = mbarrier.pipe.wait %[[P]], %[[NEXT]] : !mbarrier.pipe<4, tma>
  %slot2, %next2 = mbarrier.pipe.wait %p, %next : !mbarrier.pipe<4, tma>
  // CHECK: mbarrier.pipe.release %[[P]][%[[SLOT2]]] : !mbarrier.pipe<4, tma>
  mbarrier.pipe.release %p[%slot2] : !mbarrier.pipe<4, tma>
  return
}

// A consumer that releases each stage one trip later (after the next wait),
// carrying the slot through the loop; the last one after the loop.
// CHECK-LABEL: func.func @lagging_release(
func.func @lagging_release(%n: index) {
  %g = mbarrier.alloc : !mbarrier.group<8>
  %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // CHECK: %[[FIRST:.*]], %[[ST1:.*]] = mbarrier.pipe.wait
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<4, tma>
  // CHECK: %[[LAST:.*]]:2 = scf.for {{.*}} iter_args(%[[PREV:.*]] = %[[FIRST]], %{{.*}} = %[[ST1]]) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>)
  %last, %end = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<4, tma>
    // CHECK: mbarrier.pipe.release %{{.*}}[%[[PREV]]]
    mbarrier.pipe.release %p[%prev] : !mbarrier.pipe<4, tma>
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  // CHECK: mbarrier.pipe.release %{{.*}}[%[[LAST]]#0]
  mbarrier.pipe.release %p[%last] : !mbarrier.pipe<4, tma>
  return
}

// The cluster forms: a 2 x 1 cluster multicasting along its row.
// CHECK-LABEL: gpu.func @multicast(
gpu.module @m {
  gpu.func @multicast(%map: !llvm.ptr, %x: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<8>
    %dst = llvm.mlir.zero : !llvm.ptr<3>
    // CHECK: mbarrier.pipe.create %{{.*}} : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
    %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    // CHECK: %[[SLOT:.*]], %{{.*}} = mbarrier.pipe.acquire
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
    // CHECK: mbarrier.pipe.cp_async_bulk_tensor %{{.*}}[%[[SLOT]]], %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], bytes 4096 multicast row : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>, !llvm.ptr
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x, %x], bytes 4096 multicast row : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>, !llvm.ptr
    %b = arith.constant 8192 : i32
    // CHECK: mbarrier.pipe.commit %{{.*}}[%[[SLOT]]], bytes
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
    gpu.return
  }
}
