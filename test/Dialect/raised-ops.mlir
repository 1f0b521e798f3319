// Round trip of the ops that mbarrier-raise-nvgpu raises into and that the
// rest of the dialect did not have (MBarrierRaisedOps.td), and of the
// suspend-time hint of wait/try_wait, in the custom and the generic form.
// RUN: mbarrier-opt %s | mbarrier-opt | FileCheck %s
// RUN: mbarrier-opt %s --mlir-print-op-generic | mbarrier-opt | FileCheck %s
// RUN: %mlir_opt %mbarrier_plugin_opts %s | %mlir_opt %mbarrier_plugin_opts | FileCheck %s

// CHECK-LABEL: func.func @arrive_nocomplete(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[I:[^:]*]]: index, %[[C:[^:]*]]: i32
func.func @arrive_nocomplete(%g: !mbarrier.group<2>, %i: index, %count: i32) {
  // CHECK: mbarrier.arrive_nocomplete %[[G]][%[[I]]], %[[C]] : !mbarrier.group<2>
  mbarrier.arrive_nocomplete %g[%i], %count : !mbarrier.group<2>
  return
}

// CHECK-LABEL: func.func @cp_async_bulk_tensor(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[I:[^:]*]]: index, %[[DST:[^:]*]]: !llvm.ptr<3>, %[[MAP:[^:]*]]: !llvm.ptr, %[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %[[MASK:[^:]*]]: i16, %[[P:[^:]*]]: i1
func.func @cp_async_bulk_tensor(%g: !mbarrier.group<2>, %i: index, %dst: !llvm.ptr<3>, %map: !llvm.ptr,
                                %x: i32, %y: i32, %mask: i16, %pred: i1) {
  // CHECK: mbarrier.cp_async_bulk_tensor %[[G]][%[[I]]], %[[DST]], %[[MAP]][%[[X]], %[[Y]]], bytes 2048 : !mbarrier.group<2>, !llvm.ptr
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x, %y], bytes 2048 : !mbarrier.group<2>, !llvm.ptr
  // CHECK: mbarrier.cp_async_bulk_tensor %[[G]][%[[I]]], %[[DST]], %[[MAP]][%[[X]], %[[Y]]], bytes 2048 multicast %[[MASK]] if %[[P]] : !mbarrier.group<2>, !llvm.ptr
  mbarrier.cp_async_bulk_tensor %g[%i], %dst, %map[%x, %y], bytes 2048 multicast %mask if %pred : !mbarrier.group<2>, !llvm.ptr
  return
}

// CHECK-LABEL: func.func @suspend_time(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32, %[[T:[^:]*]]: i32
func.func @suspend_time(%g: !mbarrier.group<2>, %i: index, %phase: i32, %t: i32) -> i1 {
  // CHECK: mbarrier.wait %[[G]][%[[I]]], %[[PH]] suspend_time %[[T]] : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase suspend_time %t : !mbarrier.group<2>
  // CHECK: mbarrier.try_wait %[[G]][%[[I]]], %[[PH]] suspend_time %[[T]] : !mbarrier.group<2>
  %ok2 = mbarrier.try_wait %g[%i], %phase suspend_time %t : !mbarrier.group<2>
  return %ok2 : i1
}
