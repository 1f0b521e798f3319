// A remote view keeps its meaning through scf.for iter_args, block
// arguments, calls and returns: the arrive at the end is still the cluster form.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"

// CHECK-LABEL: func.func @remote_view_through_scf_for(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[RANK:[^:]*]]: i32
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[C0]] : index to i64
func.func @remote_view_through_scf_for(%g: !mbarrier.group<1>, %rank: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // CHECK: %[[VIEW:.*]] = llvm.insertvalue %[[RANK]]
  %r = mbarrier.remote_view %g, %rank : !mbarrier.group<1>
  // CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IT:.*]] = %[[VIEW]]) -> (!llvm.struct<(ptr<3>, i32)>) {
  %out = scf.for %iv = %c0 to %c8 step %c1 iter_args(%it = %r) -> (!mbarrier.remote<1>) {
    // CHECK: %[[B:.*]] = llvm.extractvalue %[[IT]][0]
    // CHECK: %[[K:.*]] = llvm.extractvalue %[[IT]][1]
    // CHECK: %[[MB:.*]] = nvvm.mapa %[[B]], %[[K]] : !llvm.ptr<3> -> !llvm.ptr<7>
    // CHECK-NEXT: %[[M:.*]] = llvm.getelementptr %[[MB]][%[[IDX]]] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
    // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[M]] : (!llvm.ptr<7>) -> ()
    mbarrier.arrive %it[%c0] : !mbarrier.remote<1>
    // CHECK: scf.yield %[[IT]] : !llvm.struct<(ptr<3>, i32)>
    scf.yield %it : !mbarrier.remote<1>
  }
  // CHECK-NOT: nvvm.mbarrier.arrive {{.*}} : !llvm.ptr<3>
  return
}

// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %[[R:[^:]*]]: !llvm.struct<(ptr<3>, i32)>) -> !llvm.struct<(ptr<3>, i32)>
func.func private @callee(%r: !mbarrier.remote<1>) -> !mbarrier.remote<1> {
  %c0 = arith.constant 0 : index
  // CHECK: nvvm.mapa
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];"
  mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
  // CHECK: return %[[R]] : !llvm.struct<(ptr<3>, i32)>
  return %r : !mbarrier.remote<1>
}

// CHECK-LABEL: func.func @remote_view_through_call_and_branch(
func.func @remote_view_through_call_and_branch(%g: !mbarrier.group<1>) {
  %c0 = arith.constant 0 : index
  %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  // CHECK: %[[BACK:.*]] = call @callee(%{{.*}}) : (!llvm.struct<(ptr<3>, i32)>) -> !llvm.struct<(ptr<3>, i32)>
  %back = func.call @callee(%r) : (!mbarrier.remote<1>) -> !mbarrier.remote<1>
  // CHECK: cf.br ^[[BB:.*]](%[[BACK]] : !llvm.struct<(ptr<3>, i32)>)
  cf.br ^bb1(%back : !mbarrier.remote<1>)
// CHECK: ^[[BB]](%[[ARG:.*]]: !llvm.struct<(ptr<3>, i32)>):
^bb1(%arg: !mbarrier.remote<1>):
  // CHECK: llvm.extractvalue %[[ARG]][1]
  // CHECK: nvvm.mapa
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  %b = arith.constant 128 : i32
  mbarrier.arrive_expect_tx %arg[%c0], %b : !mbarrier.remote<1>
  return
}

// A gpu.func whose entry block also holds workgroup attributions (found in
// review: the signature conversion was sized to the inputs only and asserted).
// CHECK-LABEL: gpu.func @remote_view_with_attributions(
// CHECK-SAME: %{{.*}}: i32) workgroup(%{{.*}} : memref<4xf32, 3>)
// CHECK: cf.br ^[[BB:.*]](%{{.*}} : !llvm.struct<(ptr<3>, i32)>)
// CHECK: nvvm.mapa
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];"
gpu.module @attributions {
  gpu.func @remote_view_with_attributions(%c: i32) workgroup(%w : memref<4xf32, 3>) kernel {
    %i0 = arith.constant 0 : index
    %g = mbarrier.alloc : !mbarrier.group<2>
    %r = mbarrier.remote_view %g, %c : !mbarrier.group<2>
    cf.br ^bb1(%r : !mbarrier.remote<2>)
  ^bb1(%z: !mbarrier.remote<2>):
    mbarrier.arrive %z[%i0] : !mbarrier.remote<2>
    gpu.return
  }
}
