// init, fence_init and inval lower to their NVVM ops on the ptr<3>.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-LABEL: func.func @init_fence_inval(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[COUNT:[^:]*]]: i32
func.func @init_fence_inval(%g: !mbarrier.group<2>, %i: index, %count: i32) {
  // CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: nvvm.mbarrier.init %[[A]], %[[COUNT]] : !llvm.ptr<3>, i32
  mbarrier.init %g[%i], %count : !mbarrier.group<2>
  // CHECK: nvvm.fence.mbarrier.init
  mbarrier.fence_init
  // CHECK: %[[B:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: nvvm.mbarrier.inval %[[B]] : !llvm.ptr<3>
  mbarrier.inval %g[%i] : !mbarrier.group<2>
  return
}
