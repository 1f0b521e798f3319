// Every arrive form: local arrivals stay on the ptr<3>; arrivals through a
// remote view or with `on %cta` go through nvvm.mapa to the ptr<7>
// (shared::cluster) form, with release.cluster by default.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-LABEL: func.func @local_arrive(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[C:[^:]*]]: i32, %[[PRED:[^:]*]]: i1
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @local_arrive(%g: !mbarrier.group<2>, %i: index, %c: i32, %pred: i1) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[A]] : !llvm.ptr<3>
  mbarrier.arrive %g[%i] : !mbarrier.group<2>
  // CHECK: %[[B:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[B]], %[[C]] : !llvm.ptr<3>
  mbarrier.arrive %g[%i], count %c : !mbarrier.group<2>
  // CHECK: %[[D:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: scf.if %[[PRED]] {
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[D]] : !llvm.ptr<3>
  // CHECK-NEXT: }
  mbarrier.arrive %g[%i] if %pred : !mbarrier.group<2>
  // CHECK: %[[E:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[E]] {relaxed = true, scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>
  mbarrier.arrive %g[%i] {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
  // CHECK-NOT: nvvm.mapa
  // CHECK-NOT: !llvm.ptr<7>
  return
}

// A cluster-form arrive maps the group's base (mapa), then indexes the
// ptr<7>: mapa(base + 8*i) == mapa(base) + 8*i, and a loop-invariant base
// keeps its mapa out of the loop. With no count (or a constant 1) it is the
// count-less instruction, as inline PTX: NVVM's ptr<7> arrive always has a
// count, which makes ptxas pick the counted SYNCS.ARRIVE form.
// CHECK-LABEL: func.func @remote_view_arrive(
// CHECK-SAME: %[[R:[^:]*]]: !llvm.struct<(ptr<3>, i32)>, %[[I:[^:]*]]: index, %[[C:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @remote_view_arrive(%r: !mbarrier.remote<2>, %i: index, %c: i32) {
  // CHECK: %[[BASE:.*]] = llvm.extractvalue %[[R]][0]
  // CHECK: %[[RANK:.*]] = llvm.extractvalue %[[R]][1]
  // CHECK: %[[MB:.*]] = nvvm.mapa %[[BASE]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK-NEXT: %[[M:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M]] : (!llvm.ptr<7>) -> ()
  mbarrier.arrive %r[%i] : !mbarrier.remote<2>
  // A counted arrive keeps NVVM's op, with the count.
  // CHECK: %[[MB2:.*]] = nvvm.mapa
  // CHECK-NEXT: %[[M2:.*]] = llvm.getelementptr %[[MB2]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[M2]], %[[C]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  mbarrier.arrive %r[%i], count %c : !mbarrier.remote<2>
  // CHECK: %[[M3:.*]] = llvm.getelementptr
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M3]]
  mbarrier.arrive %r[%i] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<2>
  // The unqualified (release.cta) form is the user's explicit choice:
  // CHECK: %[[M4:.*]] = llvm.getelementptr
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M4]]
  mbarrier.arrive %r[%i] {scope = #mbarrier.scope<cta>} : !mbarrier.remote<2>
  // CHECK: %[[M5:.*]] = llvm.getelementptr
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.relaxed.cta.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M5]]
  mbarrier.arrive %r[%i] {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cta>} : !mbarrier.remote<2>
  // A constant count of 1 is the count-less form too.
  // CHECK: %[[M6:.*]] = llvm.getelementptr
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M6]]
  %one = arith.constant 1 : i32
  mbarrier.arrive %r[%i], count %one : !mbarrier.remote<2>
  // CHECK-NOT: nvvm.mbarrier.arrive {{.*}} : !llvm.ptr<3>
  return
}

// CHECK-LABEL: func.func @arrive_on_cta(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[CTA:[^:]*]]: i32, %[[PRED:[^:]*]]: i1
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @arrive_on_cta(%g: !mbarrier.group<2>, %i: index, %cta: i32, %pred: i1) {
  // CHECK: %[[MB:.*]] = nvvm.mapa %[[G]], %[[CTA]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK-NEXT: %[[M:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M]]
  mbarrier.arrive %g[%i] on %cta : !mbarrier.group<2>
  // The predicate of a count-less cluster arrive guards the instruction
  // itself (@p): no branch.
  // CHECK-NEXT: %[[MB2:.*]] = nvvm.mapa %[[G]], %[[CTA]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK-NEXT: %[[M2:.*]] = llvm.getelementptr %[[MB2]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,b,~{memory}" %[[M2]], %[[PRED]] : (!llvm.ptr<7>, i1) -> ()
  mbarrier.arrive %g[%i] on %cta if %pred : !mbarrier.group<2>
  // A counted one (NVVM's op) is a branch: NVVM has no predicate on ptr<7>.
  // CHECK-NEXT: scf.if %[[PRED]] {
  // CHECK-NEXT: %[[MB3:.*]] = nvvm.mapa %[[G]], %[[CTA]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK-NEXT: %[[M3:.*]] = llvm.getelementptr %[[MB3]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[M3]], %[[CTA]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  // CHECK-NEXT: }
  mbarrier.arrive %g[%i], count %cta on %cta if %pred : !mbarrier.group<2>
  // CHECK-NOT: nvvm.mbarrier.arrive {{.*}} : !llvm.ptr<3>
  return
}

// CHECK-LABEL: func.func @arrive_expect_tx(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[R:[^:]*]]: !llvm.struct<(ptr<3>, i32)>, %[[I:[^:]*]]: index, %[[B:[^:]*]]: i32, %[[C:[^:]*]]: i32, %[[PRED:[^:]*]]: i1
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @arrive_expect_tx(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index, %bytes: i32, %c: i32, %pred: i1) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[A]], %[[B]] : !llvm.ptr<3>, i32
  mbarrier.arrive_expect_tx %g[%i], %bytes : !mbarrier.group<2>
  // CHECK: %[[RB:.*]] = llvm.extractvalue %[[R]][0]
  // CHECK: %[[MB:.*]] = nvvm.mapa %[[RB]]
  // CHECK-NEXT: %[[M:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[M]], %[[B]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  mbarrier.arrive_expect_tx %r[%i], %bytes : !mbarrier.remote<2>
  // With a count: expect_tx, then arrive with the count.
  // CHECK: %[[A2:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.expect_tx %[[A2]], %[[B]] : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[A2]], %[[C]] : !llvm.ptr<3>
  mbarrier.arrive_expect_tx %g[%i], %bytes, count %c : !mbarrier.group<2>
  // CHECK: scf.if %[[PRED]] {
  // CHECK-NEXT: %[[MB2:.*]] = nvvm.mapa
  // CHECK-NEXT: %[[M2:.*]] = llvm.getelementptr %[[MB2]][%[[IDX]]]
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[M2]], %[[B]] {relaxed = true, scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  // CHECK-NEXT: }
  mbarrier.arrive_expect_tx %r[%i], %bytes if %pred {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<2>
  // CHECK-NOT: nvvm.mbarrier.arrive.expect_tx {{.*}} : !llvm.ptr<3>
  return
}

// CHECK-LABEL: func.func @expect_tx(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[R:[^:]*]]: !llvm.struct<(ptr<3>, i32)>, %[[I:[^:]*]]: index, %[[B:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @expect_tx(%g: !mbarrier.group<2>, %r: !mbarrier.remote<2>, %i: index, %bytes: i32) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.expect_tx %[[A]], %[[B]] : !llvm.ptr<3>, i32
  mbarrier.expect_tx %g[%i], %bytes : !mbarrier.group<2>
  // CHECK: %[[MB:.*]] = nvvm.mapa
  // CHECK-NEXT: %[[M:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
  // CHECK-NEXT: nvvm.mbarrier.expect_tx %[[M]], %[[B]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  mbarrier.expect_tx %r[%i], %bytes : !mbarrier.remote<2>
  return
}
