// wait is a loop around try_wait.parity on phase ^ phase_offset; try_wait and
// test_wait are single NVVM ops returning i1.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-LABEL: func.func @wait(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @wait(%g: !mbarrier.group<2>, %i: index, %phase: i32) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: scf.while : () -> () {
  // CHECK-NEXT: %[[OK:.*]] = nvvm.mbarrier.try_wait %[[A]], %[[PH]] : !llvm.ptr<3>, i32 -> i1
  // CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
  // CHECK-NEXT: %[[NOT:.*]] = llvm.xor %[[OK]], %[[TRUE]] : i1
  // CHECK-NEXT: scf.condition(%[[NOT]])
  // CHECK-NEXT: } do {
  // CHECK-NEXT: scf.yield
  // CHECK-NEXT: }
  mbarrier.wait %g[%i], %phase : !mbarrier.group<2>
  return
}

// CHECK-LABEL: func.func @wait_phase_offset_and_scope(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @wait_phase_offset_and_scope(%g: !mbarrier.group<2>, %i: index, %phase: i32) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[PARITY:.*]] = llvm.xor %[[PH]], %[[ONE]] : i32
  // CHECK: nvvm.mbarrier.try_wait %[[A]], %[[PARITY]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32 -> i1
  mbarrier.wait %g[%i], %phase {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
  // CHECK: nvvm.mbarrier.try_wait %{{.*}}, %[[PH]] {relaxed = true, scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32 -> i1
  mbarrier.wait %g[%i], %phase {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
  return
}

// CHECK-LABEL: func.func @try_and_test_wait(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @try_and_test_wait(%g: !mbarrier.group<2>, %i: index, %phase: i32) -> (i1, i1) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %[[T:.*]] = nvvm.mbarrier.try_wait %[[A]], %[[PH]] : !llvm.ptr<3>, i32 -> i1
  %ok = mbarrier.try_wait %g[%i], %phase : !mbarrier.group<2>
  // CHECK: %[[B:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: %[[P:.*]] = llvm.xor %[[PH]]
  // CHECK-NEXT: %[[S:.*]] = nvvm.mbarrier.test.wait %[[B]], %[[P]] : !llvm.ptr<3>, i32 -> i1
  %ok2 = mbarrier.test_wait %g[%i], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
  // CHECK: return %[[T]], %[[S]] : i1, i1
  return %ok, %ok2 : i1, i1
}
