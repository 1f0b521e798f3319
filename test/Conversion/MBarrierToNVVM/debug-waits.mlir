// debug-waits=<ns>: mbarrier.wait is the bounded loop. The first try_wait
// as without the option; %globaltimer read only after it failed; past the
// bound, the lowest active lane of the warp prints the located line (the
// wait's own file:line:col, the barrier's name or its group and where it was
// defined, the index, parity, time waited, CTA, warp and the raw barrier
// word) and the warp traps a quarter of the bound later. try_wait and
// test_wait stay single tests.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm=debug-waits=1000 | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier"
// Off (0, the default), no wait reads the clock, prints or traps:
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm=debug-waits=0 | FileCheck %s --check-prefix=OFF
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --check-prefix=OFF
// OFF-NOT: globaltimer
// OFF-NOT: gpu.printf
// OFF-NOT: llvm.intr.trap
// OFF-NOT: activemask

// CHECK-LABEL: func.func @bounded_wait(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @bounded_wait(%g: !mbarrier.group<2>, %i: index, %phase: i32) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]]
  // CHECK-NEXT: %[[FIRST:.*]] = nvvm.mbarrier.try_wait %[[A]], %[[PH]] : !llvm.ptr<3>, i32 -> i1
  // CHECK-NOT: globaltimer
  // CHECK: %[[FAILED:.*]] = llvm.xor %[[FIRST]], %{{.*}} : i1
  // CHECK-NEXT: scf.if %[[FAILED]] {
  // CHECK-NEXT: %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK-NEXT: scf.while : () -> () {
  // CHECK-NEXT: %[[OK:.*]] = nvvm.mbarrier.try_wait %[[A]], %[[PH]] : !llvm.ptr<3>, i32 -> i1
  // CHECK: %[[NOT:.*]] = llvm.xor %[[OK]], %{{.*}} : i1
  // CHECK-NEXT: scf.if %[[NOT]] {
  // CHECK-NEXT: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK-NEXT: %[[WAITED:.*]] = llvm.sub %[[NOW]], %[[START]] : i64
  // CHECK-NEXT: %[[BOUND:.*]] = llvm.mlir.constant(1000 : i64) : i64
  // CHECK-NEXT: %[[OVER:.*]] = llvm.icmp "ugt" %[[WAITED]], %[[BOUND]] : i64
  // CHECK-NEXT: scf.if %[[OVER]] {
  // CHECK-NEXT: %[[ACTIVE:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r"
  // CHECK-NEXT: %[[LT:.*]] = nvvm.read.ptx.sreg.lanemask.lt : i32
  // CHECK-NEXT: %[[BELOW:.*]] = llvm.and %[[ACTIVE]], %[[LT]] : i32
  // CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[BELOW]], %{{.*}} : i32
  // CHECK-NEXT: scf.if %[[LEADER]] {
  // CHECK-NEXT: %[[WORD:.*]] = llvm.load volatile %[[A]] {alignment = 8 : i64} : !llvm.ptr<3> -> i64
  // CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK-NEXT: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK-NEXT: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: %[[WARP:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i32
  // The group is a function argument: no definition to name.
  // CHECK-NEXT: gpu.printf "mbarrier.wait timed out at {{.*}}debug-waits.mlir:[[@LINE+10]]:3 (barrier group<2>[%lld], parity %u, waited %llu ns) cta %u (ctaid %u,%u,%u) warp %u; barrier word 0x%016llx (raw, layout opaque)\0A", %[[IDX]], %[[PH]], %[[WAITED]], %[[RANK]], %[[X]], %[[Y]], %[[Z]], %[[WARP]], %[[WORD]] : i64, i32, i64, i32, i32, i32, i32, i32, i64
  // CHECK-NEXT: }
  // A quarter of the bound more for the other stuck warps' lines, then trap.
  // CHECK-NEXT: scf.while : () -> () {
  // CHECK-NEXT: %[[LATER:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
  // CHECK-NEXT: %[[SINCE:.*]] = llvm.sub %[[LATER]], %[[START]] : i64
  // CHECK-NEXT: %[[END:.*]] = llvm.mlir.constant(1250 : i64) : i64
  // CHECK-NEXT: llvm.icmp "ugt" %[[SINCE]], %[[END]] : i64
  // CHECK: } do {
  // CHECK: llvm.intr.trap
  mbarrier.wait %g[%i], %phase : !mbarrier.group<2>
  // CHECK: scf.condition(%[[NOT]])
  return
}

// The line names the barrier by its definition's NameLoc, else as its group
// and where it was defined; the parity is phase ^ phase_offset.
// CHECK-LABEL: func.func @named_and_defined_groups(
// CHECK-SAME: %[[PH:[^:]*]]: i32
func.func @named_and_defined_groups(%phase: i32) {
  %c1 = arith.constant 1 : index
  %full = mbarrier.alloc : !mbarrier.group<2> loc("full")
  // CHECK: gpu.printf "mbarrier.wait timed out at {{.*}}debug-waits.mlir:[[@LINE+1]]:3 (barrier full[%lld], parity %u,
  mbarrier.wait %full[%c1], %phase : !mbarrier.group<2>
  %g = mbarrier.alloc : !mbarrier.group<2>
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[PARITY:.*]] = llvm.xor %[[PH]], %[[ONE]] : i32
  // CHECK: gpu.printf "mbarrier.wait timed out at {{.*}}debug-waits.mlir:[[@LINE+1]]:3 (barrier group<2>[%lld] from {{.*}}debug-waits.mlir:[[@LINE-3]]:8, parity %u, {{.*}}", %{{.*}}, %[[PARITY]],
  mbarrier.wait %g[%c1], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
  return
}

// A '%' in a file name is a literal of the format, not a conversion.
// CHECK-LABEL: func.func @percent_in_file_name(
func.func @percent_in_file_name(%g: !mbarrier.group<1>, %phase: i32) {
  %c0 = arith.constant 0 : index
  // CHECK: gpu.printf "mbarrier.wait timed out at 100%%.py:7:5 (barrier group<1>[%lld],
  mbarrier.wait %g[%c0], %phase : !mbarrier.group<1> loc("100%.py":7:5)
  // An op with no file location says so.
  // CHECK: gpu.printf "mbarrier.wait timed out at an unknown location (barrier group<1>[%lld],
  mbarrier.wait %g[%c0], %phase : !mbarrier.group<1> loc(unknown)
  return
}

// try_wait and test_wait are single tests with or without the option.
// CHECK-LABEL: func.func @single_tests_unchanged(
func.func @single_tests_unchanged(%g: !mbarrier.group<1>, %phase: i32) -> (i1, i1) {
  %c0 = arith.constant 0 : index
  // CHECK: %[[T:.*]] = nvvm.mbarrier.try_wait
  // CHECK: %[[S:.*]] = nvvm.mbarrier.test.wait
  // CHECK-NOT: globaltimer
  // CHECK-NOT: gpu.printf
  // CHECK: return %[[T]], %[[S]] : i1, i1
  %a = mbarrier.try_wait %g[%c0], %phase : !mbarrier.group<1>
  %b = mbarrier.test_wait %g[%c0], %phase : !mbarrier.group<1>
  return %a, %b : i1, i1
}
