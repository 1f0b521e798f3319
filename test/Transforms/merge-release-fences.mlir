// mbarrier-merge-release-fences: k >= 2 release.cluster arrivals of one
// thread with nothing but pure ops between them become one
// mbarrier.fence_release + relaxed.cluster arrivals; every reason not to
// merge leaves the IR as it is. docs/fence-merging.md has the argument.
// RUN: mbarrier-opt %s --mbarrier-merge-release-fences | FileCheck %s
// The target is the gpu.module's #nvvm.target (mbarrier-attach-target, the one
// target decision): @funcs has what attach-target gives by default (sm_90, a
// derived PTX version, raised to 8.6 by the merge); a module without a target
// is left as it is.

gpu.module @funcs [#nvvm.target<chip = "sm_90">] attributes {mbarrier.derived_ptx} {

// ----- Legal shapes -----

// CHECK-LABEL: func.func @two_remote(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<1>, %[[I:[^:]*]]: index
func.func @two_remote(%g: !mbarrier.group<1>, %i: index) {
  // CHECK: %[[A:.*]] = mbarrier.remote_view %[[G]], cta_rank 1
  // CHECK: %[[B:.*]] = mbarrier.remote_view %[[G]], cta_rank 2
  // CHECK-NEXT: mbarrier.fence_release{{$}}
  // CHECK-NEXT: mbarrier.arrive %[[A]][%[[I]]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
  // CHECK-NEXT: mbarrier.arrive %[[B]][%[[I]]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
  // CHECK-NEXT: return
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  %b = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  mbarrier.arrive %b[%i] : !mbarrier.remote<1>
  return
}

// Pure ops between the arrivals (views, arithmetic, mbarrier.ptr) stay where
// they are; the fence goes before the first arrival.
// CHECK-LABEL: func.func @pure_ops_between(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<2>, %[[R:[^:]*]]: i32
func.func @pure_ops_between(%g: !mbarrier.group<2>, %rank: i32) -> !llvm.ptr<7> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  // CHECK: %[[A:.*]] = mbarrier.remote_view %[[G]], %[[R]]
  %a = mbarrier.remote_view %g, %rank : !mbarrier.group<2>
  // CHECK-NEXT: mbarrier.fence_release{{$}}
  // CHECK-NEXT: mbarrier.arrive %[[A]][%{{.*}}] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  mbarrier.arrive %a[%c0] : !mbarrier.remote<2>
  // CHECK-NEXT: %[[P:.*]] = arith.addi %[[R]], %{{.*}} : i32
  // CHECK-NEXT: %[[B:.*]] = mbarrier.remote_view %[[G]], %[[P]]
  // CHECK-NEXT: %[[Q:.*]] = mbarrier.ptr %[[B]][%{{.*}}] : !mbarrier.remote<2> -> !llvm.ptr<7>
  // CHECK-NEXT: mbarrier.arrive %[[B]][%{{.*}}] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive %[[B]][%{{.*}}] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  %peer = arith.addi %rank, %one : i32
  %b = mbarrier.remote_view %g, %peer : !mbarrier.group<2>
  %q = mbarrier.ptr %b[%c1] : !mbarrier.remote<2> -> !llvm.ptr<7>
  mbarrier.arrive %b[%c0] : !mbarrier.remote<2>
  mbarrier.arrive %b[%c1] : !mbarrier.remote<2>
  // CHECK-NOT: mbarrier.fence_release
  return %q : !llvm.ptr<7>
}

// `on %cta`, predicated (`if`), counted, arrive_expect_tx (with and without
// a count), and a local arrival written with scope = cluster: all
// release.cluster, all merged. The fence is unconditional.
// CHECK-LABEL: func.func @mixed_forms(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<1>, %[[I:[^:]*]]: index, %[[CTA:[^:]*]]: i32, %[[P:[^:]*]]: i1, %[[N:[^:]*]]: i32
func.func @mixed_forms(%g: !mbarrier.group<1>, %i: index, %cta: i32, %p: i1, %n: i32) {
  %r = mbarrier.remote_view %g, cta_rank 3 : !mbarrier.group<1>
  // CHECK: mbarrier.fence_release{{$}}
  // CHECK-NEXT: mbarrier.arrive %[[G]][%[[I]]] on %[[CTA]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive %[[G]][%[[I]]] on %[[CTA]] if %[[P]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive %{{.*}}[%[[I]]], count %[[N]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive_expect_tx %{{.*}}[%[[I]]], %[[N]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive_expect_tx %{{.*}}[%[[I]]], %[[N]], count %[[N]] if %[[P]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
  // CHECK-NEXT: mbarrier.arrive %[[G]][%[[I]]] {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.group<1>
  // CHECK-NEXT: return
  mbarrier.arrive %g[%i] on %cta : !mbarrier.group<1>
  mbarrier.arrive %g[%i] on %cta if %p : !mbarrier.group<1>
  mbarrier.arrive %r[%i], count %n : !mbarrier.remote<1>
  mbarrier.arrive_expect_tx %r[%i], %n : !mbarrier.remote<1>
  mbarrier.arrive_expect_tx %r[%i], %n, count %n if %p : !mbarrier.remote<1>
  mbarrier.arrive %g[%i] {sem = #mbarrier.sem<release>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
  return
}

// A store ends a group; the arrivals after it form a new group, whose fence
// publishes the store. Inside a loop body: one fence per iteration.
// CHECK-LABEL: func.func @store_splits_groups(
// CHECK-SAME: %[[G:[^:]*]]: !mbarrier.group<1>, %[[I:[^:]*]]: index, %[[PTR:[^:]*]]: !llvm.ptr<3>, %[[V:[^:]*]]: i32
func.func @store_splits_groups(%g: !mbarrier.group<1>, %i: index, %ptr: !llvm.ptr<3>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  %b = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
  // CHECK: scf.for
  scf.for %iv = %c0 to %c4 step %c1 {
    // CHECK-NEXT: mbarrier.fence_release{{$}}
    // CHECK-NEXT: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // CHECK-NEXT: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // CHECK-NEXT: llvm.store %[[V]], %[[PTR]]
    // CHECK-NEXT: mbarrier.fence_release{{$}}
    // CHECK-NEXT: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // CHECK-NEXT: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // CHECK-NEXT: }
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %b[%i] : !mbarrier.remote<1>
    llvm.store %v, %ptr : i32, !llvm.ptr<3>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %b[%i] : !mbarrier.remote<1>
  }
  return
}

// ----- Reasons not to merge: each arrival stays release.cluster -----

// One arrival: no gain.
// CHECK-LABEL: func.func @single(
// CHECK-NOT: mbarrier.fence_release
// CHECK: mbarrier.arrive %{{.*}}[%{{.*}}] : !mbarrier.remote<1>
// CHECK-NEXT: return
func.func @single(%g: !mbarrier.group<1>, %i: index) {
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  return
}

// A store between: the second arrival must publish it, the fence before the
// first would not (it is after the fence).
// CHECK-LABEL: func.func @store_between(
// CHECK-NOT: mbarrier.fence_release
// CHECK: mbarrier.arrive %{{.*}}[%{{.*}}] : !mbarrier.remote<1>
// CHECK-NEXT: llvm.store
// CHECK-NEXT: mbarrier.arrive %{{.*}}[%{{.*}}] : !mbarrier.remote<1>
func.func @store_between(%g: !mbarrier.group<1>, %i: index, %ptr: !llvm.ptr<1>, %v: i32) {
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  %b = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  llvm.store %v, %ptr : i32, !llvm.ptr<1>
  mbarrier.arrive %b[%i] : !mbarrier.remote<1>
  return
}

// A load between (its value may be what the second arrival publishes an
// order for), a wait between (an acquire: what it makes visible must be
// published by the arrival after it, cumulatively), a call between (unknown
// accesses), and a region op with an access inside.
// CHECK-LABEL: func.func @accesses_between(
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: return
func.func private @opaque()
func.func @accesses_between(%g: !mbarrier.group<1>, %i: index, %ptr: !llvm.ptr<1>, %v: i32, %p: i1) -> i32 {
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  %x = llvm.load %ptr : !llvm.ptr<1> -> i32
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  mbarrier.wait %g[%i], %v : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  func.call @opaque() : () -> ()
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  scf.if %p {
    llvm.store %v, %ptr : i32, !llvm.ptr<1>
  }
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  nvvm.barrier0
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  return %x : i32
}

// Different threads' paths: arrivals in the two branches of an scf.if, or
// in different blocks, are not one thread's straight-line sequence; an
// arrival before an scf.if that arrives inside is not merged with it either.
// CHECK-LABEL: func.func @branches(
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: return
func.func @branches(%g: !mbarrier.group<1>, %i: index, %p: i1) {
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  scf.if %p {
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  } else {
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  }
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  cf.br ^next
^next:
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  return
}

// Arrivals that are not release.cluster: relaxed ones (already fenced or
// publishing nothing) and the unqualified release.cta form (the user's
// choice), which also end a group.
// CHECK-LABEL: func.func @not_release_cluster(
// CHECK-NOT: mbarrier.fence_release
// CHECK: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cta>}
// CHECK-NEXT: mbarrier.arrive %{{.*}} {scope = #mbarrier.scope<cta>}
// CHECK-NEXT: mbarrier.arrive %{{.*}} : !mbarrier.remote<1>
// CHECK-NEXT: mbarrier.arrive %{{.*}} {sem = #mbarrier.sem<relaxed>}
// CHECK-NEXT: mbarrier.arrive %{{.*}} : !mbarrier.remote<1>
// CHECK-NEXT: mbarrier.arrive %{{.*}} : !mbarrier.group<1>
// CHECK-NEXT: mbarrier.arrive %{{.*}} : !mbarrier.group<1>
func.func @not_release_cluster(%g: !mbarrier.group<1>, %i: index) {
  %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
  mbarrier.arrive %a[%i] {scope = #mbarrier.scope<cta>} : !mbarrier.remote<1>
  mbarrier.arrive %a[%i] {scope = #mbarrier.scope<cta>} : !mbarrier.remote<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  mbarrier.arrive %a[%i] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
  mbarrier.arrive %a[%i] : !mbarrier.remote<1>
  // Local arrivals default to release.cta.
  mbarrier.arrive %g[%i] : !mbarrier.group<1>
  mbarrier.arrive %g[%i] : !mbarrier.group<1>
  return
}

}

// ----- The target of each gpu.module decides -----

// PTX 8.6 on the module's target: merged.
// CHECK-LABEL: gpu.module @ptx86
// CHECK: mbarrier.fence_release
gpu.module @ptx86 [#nvvm.target<chip = "sm_90", features = "+ptx86">] {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}

// Too-old PTX (8.0, or the chip's minimum 7.8 when the target names no
// version), an sm_80 target, or a second target that is too old: no merge,
// no error.
// CHECK-LABEL: gpu.module @ptx80
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: gpu.module @ptx_default
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: gpu.module @two_targets
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: gpu.module @invalid_target
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: gpu.module @untargeted
// CHECK-NOT: mbarrier.fence_release
// CHECK-NOT: sem = #mbarrier.sem<relaxed>
// CHECK: gpu.module @end
gpu.module @ptx80 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
gpu.module @ptx_default [#nvvm.target<chip = "sm_90">] {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
gpu.module @two_targets [#nvvm.target<chip = "sm_90", features = "+ptx86">, #nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
// (attach-target and the lowering report an invalid target; this pass leaves it.)
gpu.module @invalid_target [#nvvm.target<chip = "sm_90", features = "+ptx11">] {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
// No target (outside any targeted gpu.module): no merge, no error.
gpu.module @untargeted {
  func.func @f(%g: !mbarrier.group<1>, %i: index) {
    %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    mbarrier.arrive %a[%i] : !mbarrier.remote<1>
    return
  }
}
gpu.module @end {
}
