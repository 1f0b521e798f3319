// Round trip of every op and type of docs/design.md, in the custom and the generic form.
// RUN: mbarrier-opt %s | mbarrier-opt | FileCheck %s
// RUN: mbarrier-opt %s --mlir-print-op-generic | mbarrier-opt | FileCheck %s
// The same through the stock mlir-opt of the MLIR wheel, with our plugin:
// RUN: %mlir_opt %mbarrier_plugin_opts %s | %mlir_opt %mbarrier_plugin_opts | FileCheck %s
// RUN: %mlir_opt %mbarrier_plugin_opts %s --mlir-print-op-generic | %mlir_opt %mbarrier_plugin_opts | FileCheck %s

// CHECK-LABEL: func.func @types(
// CHECK-SAME: !mbarrier.group<1>
// CHECK-SAME: !mbarrier.remote<4>
func.func @types(%g: !mbarrier.group<1>, %r: !mbarrier.remote<4>) {
  return
}

// CHECK-LABEL: func.func @alloc_view_init(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[COUNT:[^:]*]]: i32
func.func @alloc_view_init(%p: !llvm.ptr<3>, %i: index, %count: i32) {
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
  %g = mbarrier.alloc : !mbarrier.group<2>
  // CHECK: %[[V:.*]] = mbarrier.view %[[P]] : !llvm.ptr<3> -> !mbarrier.group<2>
  %v = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<2>
  // CHECK: mbarrier.init %[[G]][%[[I]]], %[[COUNT]] : !mbarrier.group<2>
  mbarrier.init %g[%i], %count : !mbarrier.group<2>
  // CHECK: mbarrier.init %[[V]][%[[I]]], %[[COUNT]] : !mbarrier.group<2>
  mbarrier.init %v[%i], %count : !mbarrier.group<2>
  // CHECK: mbarrier.fence_init
  mbarrier.fence_init
  // CHECK: mbarrier.fence_release{{$}}
  mbarrier.fence_release
  // CHECK: mbarrier.fence_release shared_cta{{$}}
  mbarrier.fence_release shared_cta
  // CHECK: mbarrier.inval %[[G]][%[[I]]] : !mbarrier.group<2>
  mbarrier.inval %g[%i] : !mbarrier.group<2>
  return
}

// CHECK-LABEL: func.func @remote_views(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[RANK:[^:]*]]: i32
func.func @remote_views(%g: !mbarrier.group<2>, %rank: i32) -> (!mbarrier.remote<2>, !mbarrier.remote<2>) {
  // CHECK: %[[R:.*]] = mbarrier.remote_view %[[G]], %[[RANK]] : !mbarrier.group<2>
  %r = mbarrier.remote_view %g, %rank : !mbarrier.group<2>
  // CHECK: %[[R1:.*]] = mbarrier.remote_view %[[G]], cta_rank 1 : !mbarrier.group<2>
  %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<2>
  // CHECK: return %[[R]], %[[R1]] : !mbarrier.remote<2>, !mbarrier.remote<2>
  return %r, %r1 : !mbarrier.remote<2>, !mbarrier.remote<2>
}

// CHECK-LABEL: func.func @arrives(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[R:[^:]*]]: !mbarrier.remote<2>, %[[I:[^:]*]]: index, %[[C:[^:]*]]: i32, %[[CTA:[^:]*]]: i32, %[[PRED:[^:]*]]: i1
func.func @arrives(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index, %c: i32, %cta: i32, %pred: i1) {
  // CHECK: mbarrier.arrive %[[G]][%[[I]]] : !mbarrier.group<2>
  mbarrier.arrive %g[%i] : !mbarrier.group<2>
  // CHECK: mbarrier.arrive %[[G]][%[[I]]], count %[[C]] : !mbarrier.group<2>
  mbarrier.arrive %g[%i], count %c : !mbarrier.group<2>
  // CHECK: mbarrier.arrive %[[G]][%[[I]]] on %[[CTA]] : !mbarrier.group<2>
  mbarrier.arrive %g[%i] on %cta : !mbarrier.group<2>
  // CHECK: mbarrier.arrive %[[G]][%[[I]]] on %[[CTA]] if %[[PRED]] : !mbarrier.group<2>
  mbarrier.arrive %g[%i] on %cta if %pred : !mbarrier.group<2>
  // CHECK: mbarrier.arrive %[[G]][%[[I]]], count %[[C]] on %[[CTA]] if %[[PRED]] : !mbarrier.group<2>
  mbarrier.arrive %g[%i], count %c on %cta if %pred : !mbarrier.group<2>
  // CHECK: mbarrier.arrive %[[R]][%[[I]]] : !mbarrier.remote<2>
  mbarrier.arrive %r[%i] : !mbarrier.remote<2>
  // CHECK: mbarrier.arrive %[[R]][%[[I]]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<2>
  mbarrier.arrive %r[%i] {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.remote<2>
  // CHECK: mbarrier.arrive %[[R]][%[[I]]] {scope = #mbarrier.scope<cta>, sem = #mbarrier.sem<release>} : !mbarrier.remote<2>
  mbarrier.arrive %r[%i] {sem = #mbarrier.sem<release>, scope = #mbarrier.scope<cta>} : !mbarrier.remote<2>
  return
}

// CHECK-LABEL: func.func @transactions(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[R:[^:]*]]: !mbarrier.remote<2>, %[[I:[^:]*]]: index, %[[B:[^:]*]]: i32, %[[C:[^:]*]]: i32, %[[CTA:[^:]*]]: i32, %[[PRED:[^:]*]]: i1
func.func @transactions(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index, %bytes: i32, %c: i32, %cta: i32, %pred: i1) {
  // CHECK: mbarrier.arrive_expect_tx %[[G]][%[[I]]], %[[B]] : !mbarrier.group<2>
  mbarrier.arrive_expect_tx %g[%i], %bytes : !mbarrier.group<2>
  // CHECK: mbarrier.arrive_expect_tx %[[G]][%[[I]]], %[[B]], count %[[C]] on %[[CTA]] if %[[PRED]] : !mbarrier.group<2>
  mbarrier.arrive_expect_tx %g[%i], %bytes, count %c on %cta if %pred : !mbarrier.group<2>
  // CHECK: mbarrier.arrive_expect_tx %[[R]][%[[I]]], %[[B]] : !mbarrier.remote<2>
  mbarrier.arrive_expect_tx %r[%i], %bytes : !mbarrier.remote<2>
  // CHECK: mbarrier.expect_tx %[[G]][%[[I]]], %[[B]] : !mbarrier.group<2>
  mbarrier.expect_tx %g[%i], %bytes : !mbarrier.group<2>
  // CHECK: mbarrier.expect_tx %[[R]][%[[I]]], %[[B]] {scope = #mbarrier.scope<cluster>} : !mbarrier.remote<2>
  mbarrier.expect_tx %r[%i], %bytes {scope = #mbarrier.scope<cluster>} : !mbarrier.remote<2>
  return
}

// CHECK-LABEL: func.func @waits(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
func.func @waits(%g: !mbarrier.group<2>, %i: index, %phase: i32) -> (i1, i1) {
  // CHECK: mbarrier.wait %[[G]][%[[I]]], %[[PH]] : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase : !mbarrier.group<2>
  // CHECK: mbarrier.wait %[[G]][%[[I]]], %[[PH]] {phase_offset = 1 : i32} : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
  // CHECK: mbarrier.wait %[[G]][%[[I]]], %[[PH]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
  // CHECK: %[[OK:.*]] = mbarrier.try_wait %[[G]][%[[I]]], %[[PH]] : !mbarrier.group<2>
  %ok = mbarrier.try_wait %g[%i], %phase : !mbarrier.group<2>
  // CHECK: %[[OK2:.*]] = mbarrier.test_wait %[[G]][%[[I]]], %[[PH]] : !mbarrier.group<2>
  %ok2 = mbarrier.test_wait %g[%i], %phase : !mbarrier.group<2>
  // CHECK: return %[[OK]], %[[OK2]] : i1, i1
  return %ok, %ok2 : i1, i1
}

// CHECK-LABEL: func.func @pointers(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[R:[^:]*]]: !mbarrier.remote<2>, %[[I:[^:]*]]: index
func.func @pointers(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index) -> (!llvm.ptr<3>, !llvm.ptr<7>) {
  // CHECK: %[[P:.*]] = mbarrier.ptr %[[G]][%[[I]]] : !mbarrier.group<2> -> !llvm.ptr<3>
  %p = mbarrier.ptr %g[%i] : !mbarrier.group<2> -> !llvm.ptr<3>
  // CHECK: %[[Q:.*]] = mbarrier.ptr %[[R]][%[[I]]] : !mbarrier.remote<2> -> !llvm.ptr<7>
  %q = mbarrier.ptr %r[%i] : !mbarrier.remote<2> -> !llvm.ptr<7>
  return %p, %q : !llvm.ptr<3>, !llvm.ptr<7>
}

// CHECK-LABEL: func.func @tcgen05(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[R:[^:]*]]: !mbarrier.remote<2>, %[[I:[^:]*]]: index, %[[MASK:[^:]*]]: i16
func.func @tcgen05(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index, %mask: i16) {
  // CHECK: mbarrier.tcgen05_commit %[[G]][%[[I]]] : !mbarrier.group<2>
  mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<2>
  // CHECK: mbarrier.tcgen05_commit %[[G]][%[[I]]] multicast %[[MASK]] {cta_group = 2 : i32} : !mbarrier.group<2>
  mbarrier.tcgen05_commit %g[%i] multicast %mask {cta_group = 2 : i32} : !mbarrier.group<2>
  // CHECK: mbarrier.tcgen05_commit %[[R]][%[[I]]] {cta_group = 2 : i32} : !mbarrier.remote<2>
  mbarrier.tcgen05_commit %r[%i] {cta_group = 2 : i32} : !mbarrier.remote<2>
  return
}
