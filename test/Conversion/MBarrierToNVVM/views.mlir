// alloc, view, remote_view and ptr lower to globals, GEPs, the (ptr<3>, i32)
// struct and mapa; no mbarrier op or type survives.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-DAG: llvm.mlir.global internal @[[A0:__mbarrier_alloc_[0-9]+]]() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
// CHECK-DAG: llvm.mlir.global internal @[[A1:__mbarrier_alloc_[0-9]+]]() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>

// CHECK-LABEL: func.func @two_allocs_two_globals(
func.func @two_allocs_two_globals() -> (!llvm.ptr<3>, !llvm.ptr<3>) {
  %c0 = arith.constant 0 : index
  // An alloc's address is held in a register (an opaque mov): in a cluster
  // kernel ptxas would rebuild a symbol's shared-window address at every use.
  // CHECK-DAG: %[[S0:.*]] = llvm.mlir.addressof @[[A0]] : !llvm.ptr<3>
  // CHECK-DAG: llvm.inline_asm "mov.b64 $0, $1;", "=l,l" %[[S0]] : (!llvm.ptr<3>) -> !llvm.ptr<3>
  // CHECK-DAG: %[[S1:.*]] = llvm.mlir.addressof @[[A1]] : !llvm.ptr<3>
  // CHECK-DAG: llvm.inline_asm "mov.b64 $0, $1;", "=l,l" %[[S1]] : (!llvm.ptr<3>) -> !llvm.ptr<3>
  %a = mbarrier.alloc : !mbarrier.group<2>
  %b = mbarrier.alloc : !mbarrier.group<4>
  %pa = mbarrier.ptr %a[%c0] : !mbarrier.group<2> -> !llvm.ptr<3>
  %pb = mbarrier.ptr %b[%c0] : !mbarrier.group<4> -> !llvm.ptr<3>
  return %pa, %pb : !llvm.ptr<3>, !llvm.ptr<3>
}

// CHECK-LABEL: func.func @view_is_its_pointer(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index
func.func @view_is_its_pointer(%p: !llvm.ptr<3>, %i: index) -> !llvm.ptr<3> {
  // CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
  // CHECK: %[[ADDR:.*]] = llvm.getelementptr %[[P]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: return %[[ADDR]] : !llvm.ptr<3>
  %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<2>
  %q = mbarrier.ptr %g[%i] : !mbarrier.group<2> -> !llvm.ptr<3>
  return %q : !llvm.ptr<3>
}

// CHECK-LABEL: func.func @view_of_a_symbol_is_held_in_a_register(
// CHECK-SAME: %[[I:[^:]*]]: index
func.func @view_of_a_symbol_is_held_in_a_register(%i: index) -> !llvm.ptr<3> {
  // CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
  // CHECK: %[[SYM:.*]] = llvm.mlir.addressof @pool : !llvm.ptr<3>
  // CHECK: %[[OFF:.*]] = llvm.getelementptr %[[SYM]][8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[REG:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l" %[[OFF]]
  // CHECK: %[[ADDR:.*]] = llvm.getelementptr %[[REG]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK: return %[[ADDR]] : !llvm.ptr<3>
  %sym = llvm.mlir.addressof @pool : !llvm.ptr<3>
  %off = llvm.getelementptr %sym[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %g = mbarrier.view %off : !llvm.ptr<3> -> !mbarrier.group<1>
  %q = mbarrier.ptr %g[%i] : !mbarrier.group<1> -> !llvm.ptr<3>
  return %q : !llvm.ptr<3>
}
llvm.mlir.global internal @pool() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<16 x i8>

// CHECK-LABEL: func.func @remote_view_is_pointer_and_rank(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr<3>, %[[RANK:[^:]*]]: i32
func.func @remote_view_is_pointer_and_rank(%p: !llvm.ptr<3>, %rank: i32) -> (!mbarrier.remote<1>, !mbarrier.remote<1>) {
  %g = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<1>
  // CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(ptr<3>, i32)>
  // CHECK: %[[S0:.*]] = llvm.insertvalue %[[P]], %[[U]][0] : !llvm.struct<(ptr<3>, i32)>
  // CHECK: %[[R:.*]] = llvm.insertvalue %[[RANK]], %[[S0]][1] : !llvm.struct<(ptr<3>, i32)>
  %r = mbarrier.remote_view %g, %rank : !mbarrier.group<1>
  // CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[U2:.*]] = llvm.mlir.undef : !llvm.struct<(ptr<3>, i32)>
  // CHECK: %[[T0:.*]] = llvm.insertvalue %[[P]], %[[U2]][0] : !llvm.struct<(ptr<3>, i32)>
  // CHECK: %[[R3:.*]] = llvm.insertvalue %[[C3]], %[[T0]][1] : !llvm.struct<(ptr<3>, i32)>
  %r3 = mbarrier.remote_view %g, cta_rank 3 : !mbarrier.group<1>
  // CHECK: return %[[R]], %[[R3]] : !llvm.struct<(ptr<3>, i32)>, !llvm.struct<(ptr<3>, i32)>
  return %r, %r3 : !mbarrier.remote<1>, !mbarrier.remote<1>
}

// CHECK-LABEL: func.func @ptr_through_remote_view_is_mapped(
// CHECK-SAME: %[[R:[^:]*]]: !llvm.struct<(ptr<3>, i32)>, %[[I:[^:]*]]: index
func.func @ptr_through_remote_view_is_mapped(%r: !mbarrier.remote<2>, %i: index) -> !llvm.ptr<7> {
  // CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
  // CHECK: %[[BASE:.*]] = llvm.extractvalue %[[R]][0]
  // CHECK: %[[RANK:.*]] = llvm.extractvalue %[[R]][1]
  // The group's base is mapped, then indexed: mapa(base + 8*i) == mapa(base) + 8*i.
  // CHECK: %[[MB:.*]] = nvvm.mapa %[[BASE]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK: %[[MAPPED:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK: return %[[MAPPED]] : !llvm.ptr<7>
  %q = mbarrier.ptr %r[%i] : !mbarrier.remote<2> -> !llvm.ptr<7>
  return %q : !llvm.ptr<7>
}
