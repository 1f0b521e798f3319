// tcgen05_commit lowers to nvvm.tcgen05.commit with its mask and cta_group.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-LABEL: func.func @tcgen05_commit(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[MASK:[^:]*]]: i16
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @tcgen05_commit(%g: !mbarrier.group<2>, %i: index, %mask: i16) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.tcgen05.commit %[[A]] : !llvm.ptr<3>
  mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<2>
  // CHECK: %[[B:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.tcgen05.commit %[[B]], multicast_mask = %[[MASK]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
  mbarrier.tcgen05_commit %g[%i] multicast %mask {cta_group = 2 : i32} : !mbarrier.group<2>
  return
}
