// debug-waits=<ns>: mbarrier.wait is the bounded loop. The first try_wait
// as without the option (its failure marked unlikely); %globaltimer read
// only after it failed; past the bound, the lowest active lane of the warp
// takes the next record of the report buffer whose address the module's
// @mbarrier_debug_waits holds (the runtime writes it; 0: no record, still the
// trap) and writes the wait's site (its line of @mbarrier_debug_wait_sites:
// the wait's own file:line:col, the barrier's name or its group and where it
// was defined), the index, parity, time waited, CTA, warp, then the
// barrier's state (an mbarrier.arrive of count 0); the warp traps a quarter
// of the bound later. No call: try_wait and test_wait stay single tests.
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm=debug-waits=1000 | FileCheck %s --implicit-check-not=" mbarrier." --implicit-check-not="!mbarrier" --implicit-check-not="llvm.call" --implicit-check-not="gpu.printf"
// Off (0, the default), no wait reads the clock, writes a record or traps:
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm=debug-waits=0 | FileCheck %s --check-prefix=OFF
// RUN: mbarrier-opt %s --convert-mbarrier-to-nvvm | FileCheck %s --check-prefix=OFF
// OFF-NOT: globaltimer
// OFF-NOT: mbarrier_debug_wait
// OFF-NOT: llvm.intr.trap
// OFF-NOT: activemask

// One site per wait, in the order they were lowered; a function argument's
// group has no definition to name; a NameLoc names the barrier; a '%' is a
// plain character; an op with no file location says so.
// CHECK: llvm.mlir.global external constant @mbarrier_debug_wait_sites("{{[^"]*}}debug-waits.mlir:[[@LINE+96]]:3\09group<2>\09\0A{{[^"]*}}debug-waits.mlir:[[@LINE+112]]:3\09full\09\0A{{[^"]*}}debug-waits.mlir:[[@LINE+124]]:3\09group<2>\09{{[^"]*}}debug-waits.mlir:[[@LINE+113]]:8\0A100%.py:7:5\09group<1>\09\0Aan unknown location\09group<1>\09\0A\00")
// CHECK: llvm.mlir.global external @mbarrier_debug_waits(dense<0> : tensor<2xi64>) {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>

// CHECK-LABEL: func.func @bounded_wait(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr<3>, %[[I:[^:]*]]: index, %[[PH:[^:]*]]: i32
// CHECK: %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
func.func @bounded_wait(%g: !mbarrier.group<2>, %i: index, %phase: i32) {
  // CHECK: %[[A:.*]] = llvm.getelementptr %[[G]][%[[IDX]]]
  // CHECK-NEXT: %[[FIRST:.*]] = nvvm.mbarrier.try_wait %[[A]], %[[PH]] : !llvm.ptr<3>, i32 -> i1
  // CHECK-NOT: globaltimer
  // CHECK: %[[FAILED:.*]] = llvm.xor %[[FIRST]], %{{.*}} : i1
  // CHECK-NEXT: %[[NO:.*]] = llvm.mlir.constant(false) : i1
  // CHECK-NEXT: %[[UNLIKELY:.*]] = llvm.intr.expect %[[FAILED]], %[[NO]] : i1
  // CHECK-NEXT: scf.if %[[UNLIKELY]] {
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
  // CHECK-NEXT: %[[STATE:.*]] = llvm.mlir.addressof @mbarrier_debug_waits : !llvm.ptr<1>
  // CHECK-NEXT: %[[BUF:.*]] = llvm.load volatile %[[STATE]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
  // CHECK-NEXT: %[[TAKEN:.*]] = llvm.getelementptr %[[STATE]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
  // CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.atomicrmw add %[[TAKEN]], %[[ONE]] monotonic : !llvm.ptr<1>, i64
  // CHECK: %[[GIVEN:.*]] = llvm.icmp "ne" %[[BUF]], %{{.*}} : i64
  // CHECK-NEXT: scf.if %[[GIVEN]] {
  // CHECK-NEXT: %[[RECORDS:.*]] = llvm.mlir.constant(64 : i64) : i64
  // CHECK-NEXT: %[[FREE:.*]] = llvm.icmp "ult" %[[SLOT]], %[[RECORDS]] : i64
  // CHECK-NEXT: scf.if %[[FREE]] {
  // CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.constant(64 : i64) : i64
  // CHECK-NEXT: %[[SPAN:.*]] = llvm.mul %[[SLOT]], %[[SIZE]] : i64
  // CHECK-NEXT: %[[HEADER:.*]] = llvm.mlir.constant(64 : i64) : i64
  // CHECK-NEXT: %[[AT:.*]] = llvm.add %[[HEADER]], %[[SPAN]] : i64
  // CHECK-NEXT: %[[REC:.*]] = llvm.add %[[BUF]], %[[AT]] : i64
  // The fields at debug_waits:: offsets (MBarrierToNVVM.h), the site last
  // but the state:
  // CHECK: llvm.mlir.constant(4 : i64)
  // CHECK: llvm.store volatile %[[PH]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
  // CHECK: llvm.mlir.constant(8 : i64)
  // CHECK: llvm.store volatile %[[IDX]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
  // CHECK: llvm.mlir.constant(16 : i64)
  // CHECK: llvm.store volatile %[[WAITED]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
  // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK: llvm.mlir.constant(24 : i64)
  // CHECK: llvm.store volatile %[[RANK]]
  // CHECK: %[[WARP:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.mlir.constant(28 : i64)
  // CHECK: llvm.store volatile %[[WARP]]
  // CHECK: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: llvm.mlir.constant(32 : i64)
  // CHECK: llvm.store volatile %[[X]]
  // CHECK: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: llvm.mlir.constant(36 : i64)
  // CHECK: llvm.store volatile %[[Y]]
  // CHECK: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: llvm.mlir.constant(40 : i64)
  // CHECK: llvm.store volatile %[[Z]]
  // Site 0 of the table, stored as 1 (0: no record):
  // CHECK: %[[SITE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(0 : i64)
  // CHECK-NEXT: llvm.add %[[REC]]
  // CHECK-NEXT: llvm.inttoptr
  // CHECK-NEXT: llvm.store volatile %[[SITE]]
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.sys;"
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[WORD:.*]] = llvm.inline_asm has_side_effects "mbarrier.arrive.shared::cta.b64 $0, [$1], $2;", "=l,l,r" %[[A]], %[[ZERO]] : (!llvm.ptr<3>, i32) -> i64
  // CHECK: llvm.mlir.constant(48 : i64)
  // CHECK: llvm.store volatile %[[WORD]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
  // CHECK: llvm.mlir.constant(44 : i64)
  // CHECK: llvm.store volatile
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.sys;"
  // Every record taken: the header's mark.
  // CHECK-NEXT: } else {
  // CHECK-NEXT: %[[MARK:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(0 : i64)
  // CHECK-NEXT: %[[HDR:.*]] = llvm.add %[[BUF]]
  // CHECK-NEXT: %[[HP:.*]] = llvm.inttoptr %[[HDR]]
  // CHECK-NEXT: llvm.store volatile %[[MARK]], %[[HP]]
  // A quarter of the bound more for the other stuck warps' records, then trap.
  // CHECK: scf.while : () -> () {
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

// Sites 1 and 2 (the table above); the parity is phase ^ phase_offset.
// CHECK-LABEL: func.func @named_and_defined_groups(
// CHECK-SAME: %[[PH:[^:]*]]: i32
func.func @named_and_defined_groups(%phase: i32) {
  %c1 = arith.constant 1 : index
  %full = mbarrier.alloc : !mbarrier.group<2> loc("full")
  // CHECK: %[[SITE1:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(0 : i64)
  // CHECK-NEXT: llvm.add
  // CHECK-NEXT: llvm.inttoptr
  // CHECK-NEXT: llvm.store volatile %[[SITE1]]
  mbarrier.wait %full[%c1], %phase : !mbarrier.group<2>
  %g = mbarrier.alloc : !mbarrier.group<2>
  // CHECK: %[[PARITY:.*]] = llvm.xor %[[PH]], %{{.*}} : i32
  // CHECK: llvm.mlir.constant(4 : i64)
  // CHECK-NEXT: llvm.add
  // CHECK-NEXT: llvm.inttoptr
  // CHECK-NEXT: llvm.store volatile %[[PARITY]]
  // CHECK: %[[SITE2:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(0 : i64)
  // CHECK-NEXT: llvm.add
  // CHECK-NEXT: llvm.inttoptr
  // CHECK-NEXT: llvm.store volatile %[[SITE2]]
  mbarrier.wait %g[%c1], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
  return
}

// Sites 3 and 4: the locations as the table shows them.
// CHECK-LABEL: func.func @percent_in_file_name(
func.func @percent_in_file_name(%g: !mbarrier.group<1>, %phase: i32) {
  %c0 = arith.constant 0 : index
  // CHECK: llvm.mlir.constant(4 : i32) : i32
  mbarrier.wait %g[%c0], %phase : !mbarrier.group<1> loc("100%.py":7:5)
  // CHECK: llvm.mlir.constant(5 : i32) : i32
  mbarrier.wait %g[%c0], %phase : !mbarrier.group<1> loc(unknown)
  return
}

// CHECK-LABEL: func.func @single_tests_unchanged(
func.func @single_tests_unchanged(%g: !mbarrier.group<1>, %phase: i32) -> (i1, i1) {
  %c0 = arith.constant 0 : index
  // CHECK: %[[T:.*]] = nvvm.mbarrier.try_wait
  // CHECK: %[[S:.*]] = nvvm.mbarrier.test.wait
  // CHECK-NOT: globaltimer
  // CHECK-NOT: mbarrier_debug_waits
  // CHECK: return %[[T]], %[[S]] : i1, i1
  %a = mbarrier.try_wait %g[%c0], %phase : !mbarrier.group<1>
  %b = mbarrier.test_wait %g[%c0], %phase : !mbarrier.group<1>
  return %a, %b : i1, i1
}
