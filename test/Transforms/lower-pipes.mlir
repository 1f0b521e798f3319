// mbarrier-lower-pipes: every pipe op becomes the mbarrier (and NVVM TMA) ops
// it stands for; no pipe op or type survives.
// RUN: mbarrier-opt %s --mbarrier-lower-pipes | FileCheck %s --implicit-check-not=mbarrier.pipe --implicit-check-not=pipe_state --implicit-check-not=mbarrier.slot
// Where the gpu.module's target has PTX 8.6 (mbarrier-attach-target, the one
// target decision), a multicast release is the restricted fence and relaxed
// arrivals, under the release's predicate; below it, and outside a targeted
// gpu.module, release.cluster arrivals:
// RUN: mbarrier-opt %s --mbarrier-attach-target="features=+ptx86" --mbarrier-lower-pipes | FileCheck %s --check-prefix=FENCE
// RUN: mbarrier-opt %s --mbarrier-attach-target="features=+ptx80" --mbarrier-lower-pipes | FileCheck %s --check-prefix=NOFENCE
// RUN: mbarrier-opt %s --mbarrier-lower-pipes | FileCheck %s --check-prefix=NOFENCE
// NOFENCE-NOT: mbarrier.fence_release
// In a gpu.module the module's NVVM target decides (mbarrier-to-ptx attaches
// it first): a derived PTX version gets the fence and is raised to 8.6; an
// explicit +ptx80 is kept, and the arrivals are release.cluster.
// RUN: mbarrier-opt %s --mbarrier-attach-target --mbarrier-lower-pipes | FileCheck %s --check-prefix=DERIVED
// RUN: mbarrier-opt %s --mbarrier-attach-target="features=+ptx80" --mbarrier-lower-pipes | FileCheck %s --check-prefix=EXPLICIT
// DERIVED-LABEL: gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">] attributes {mbarrier.derived_ptx} {
// DERIVED: mbarrier.fence_release shared_cta
// EXPLICIT-LABEL: gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
// EXPLICIT-NOT: mbarrier.fence_release

// The counts come from the type: full = producers, empty = consumers x the
// CTAs whose copies land here (2 x 2 cluster, row and column: 3 CTAs).
// CHECK-LABEL: func.func @init_counts(
func.func @init_counts() {
  // CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<4>
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, producers = 2, consumers = 5, cluster = [2, 2], multicast = rowcol>
  // CHECK-DAG: %[[FULL:.*]] = arith.constant 2 : i32
  // CHECK-DAG: %[[EMPTY:.*]] = arith.constant 15 : i32
  // CHECK: mbarrier.init %[[G]][%{{.*}}], %[[FULL]] : !mbarrier.group<4>
  // CHECK: mbarrier.init %[[G]][%{{.*}}], %[[FULL]] : !mbarrier.group<4>
  // The empty barriers' inits carry the mark the checker reads (their count
  // is the consumers the type declares).
  // CHECK: mbarrier.init %[[G]][%{{.*}}], %[[EMPTY]] {mbarrier.consumer_count} : !mbarrier.group<4>
  // CHECK: mbarrier.init %[[G]][%{{.*}}], %[[EMPTY]] {mbarrier.consumer_count} : !mbarrier.group<4>
  // CHECK-NOT: mbarrier.init
  mbarrier.pipe.init %p : !mbarrier.pipe<2, tma, producers = 2, consumers = 5, cluster = [2, 2], multicast = rowcol>
  return
}

// A producer loop: the state is an i32 count carried by scf.for; the stage is
// count mod D, the parity (count div D) & 1; the producer waits on the empty
// barrier D + stage with phase_offset 1.
// CHECK-LABEL: func.func @producer_loop(
// CHECK-SAME: %[[N:[^:]*]]: index, %[[B:[^:]*]]: i32
func.func @producer_loop(%n: index, %b: i32, %dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) {
  %g = mbarrier.alloc : !mbarrier.group<6>
  %p = mbarrier.pipe.create %g : !mbarrier.group<6> -> !mbarrier.pipe<3, tma>
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
  // CHECK: %[[END:.*]] = scf.for {{.*}} iter_args(%[[C:.*]] = %[[ZERO]]) -> (i32) {
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
    // CHECK: %[[D:.*]] = arith.constant 3 : i32
    // CHECK: %[[STAGE:.*]] = arith.remui %[[C]], %[[D]] : i32
    // CHECK: %[[ROUND:.*]] = arith.divui %[[C]], %[[D]] : i32
    // CHECK: %[[PHASE:.*]] = arith.andi %[[ROUND]], %{{.*}} : i32
    // CHECK: %[[IDX:.*]] = arith.index_castui %[[STAGE]] : i32 to index
    // CHECK: %[[EIDX:.*]] = arith.addi %[[IDX]], %{{.*}} : index
    // CHECK: mbarrier.wait %{{.*}}[%[[EIDX]]], %[[PHASE]] {phase_offset = 1 : i32}
    // CHECK: %[[NEXT:.*]] = arith.addi %[[C]], %{{.*}} : i32
    %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<3, tma>
    // CHECK: %[[BAR:.*]] = mbarrier.ptr %{{.*}}[%[[IDX]]] : !mbarrier.group<6> -> !llvm.ptr<3>
    // CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], %[[B]]
    mbarrier.pipe.cp_async_bulk %p[%slot], %dst, %src, %b : !mbarrier.pipe<3, tma>
    // CHECK: mbarrier.arrive_expect_tx %{{.*}}[%[[IDX]]], %[[B]] : !mbarrier.group<6>
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<3, tma>
    // CHECK: scf.yield %[[NEXT]] : i32
    scf.yield %next : !mbarrier.pipe_state<producer>
  }
  // The tail: D more empty-barrier waits after the last state.
  // CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
  // CHECK:   %[[TC:.*]] = arith.addi %[[END]], %[[K]] : i32
  // CHECK:   arith.remui %[[TC]]
  // CHECK:   mbarrier.wait {{.*}} {phase_offset = 1 : i32}
  mbarrier.pipe.tail %p, %r : !mbarrier.pipe<3, tma>
  return
}

// The consumer waits on the full barrier (no offset) and releases its own
// CTA's empty barrier where the pipe has no multicast.
// CHECK-LABEL: func.func @consumer(
// CHECK-SAME: %[[ST:[^:]*]]: i32, %[[LEADER:[^:]*]]: i1
func.func @consumer(%st: !mbarrier.pipe_state<consumer>, %leader: i1) {
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  // CHECK: %[[OK:.*]] = mbarrier.try_wait %{{.*}}[%{{.*}}], %{{.*}} : !mbarrier.group<4>
  %ok = mbarrier.pipe.try_wait %p, %st : !mbarrier.pipe<2, arrive>
  // CHECK: arith.remui %[[ST]]
  // CHECK: %[[IDX:.*]] = arith.index_castui
  // CHECK: %[[NOT:.*]] = arith.xori %[[OK]], %{{.*}} : i1
  // CHECK: scf.if %[[NOT]] {
  // CHECK:   mbarrier.wait %{{.*}}[%[[IDX]]], %{{.*}} : !mbarrier.group<4>
  // CHECK: }
  %slot, %next = mbarrier.pipe.wait %p, %st ready %ok : !mbarrier.pipe<2, arrive>
  // CHECK: %[[EIDX:.*]] = arith.addi %[[IDX]], %{{.*}} : index
  // CHECK: mbarrier.arrive %{{.*}}[%[[EIDX]]] if %[[LEADER]] : !mbarrier.group<4>
  mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<2, arrive>
  return
}

// A slot carried through the loop (released one trip later) is its stage,
// an index iter_arg.
// CHECK-LABEL: func.func @lagging_release(
func.func @lagging_release(%n: index) {
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
  // CHECK: %[[FIRST:.*]] = arith.index_castui
  %first, %st1 = mbarrier.pipe.wait %p, %st : !mbarrier.pipe<2, arrive>
  // CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[PREV:.*]] = %[[FIRST]], %{{.*}} = %{{.*}}) -> (index, i32) {
  %last, %end = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %first, %s = %st1) -> (!mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>) {
    // CHECK: %[[STAGE:.*]] = arith.index_castui
    %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<2, arrive>
    // CHECK: %[[E:.*]] = arith.addi %[[PREV]], %{{.*}} : index
    // CHECK: mbarrier.arrive %{{.*}}[%[[E]]] : !mbarrier.group<4>
    mbarrier.pipe.release %p[%prev] : !mbarrier.pipe<2, arrive>
    // CHECK: scf.yield %[[STAGE]], %{{.*}} : index, i32
    scf.yield %slot, %next : !mbarrier.slot<consumer>, !mbarrier.pipe_state<consumer>
  }
  // CHECK: %[[E2:.*]] = arith.addi %[[LOOP]]#0, %{{.*}} : index
  // CHECK: mbarrier.arrive %{{.*}}[%[[E2]]] : !mbarrier.group<4>
  mbarrier.pipe.release %p[%last] : !mbarrier.pipe<2, arrive>
  return
}

// try_acquire tests the empty barrier with phase_offset 1.
// CHECK-LABEL: func.func @try_acquire(
func.func @try_acquire(%st: !mbarrier.pipe_state<producer>) -> i1 {
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  // CHECK: %[[EIDX:.*]] = arith.addi
  // CHECK: mbarrier.try_wait %{{.*}}[%[[EIDX]]], %{{.*}} {phase_offset = 1 : i32}
  %ok = mbarrier.pipe.try_acquire %p, %st : !mbarrier.pipe<2, arrive>
  return %ok : i1
}

// The commit of each kind.
// CHECK-LABEL: func.func @commit_kinds(
func.func @commit_kinds(%a: !mbarrier.pipe_state<producer>, %pred: i1) {
  %g = mbarrier.alloc : !mbarrier.group<4>
  %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, arrive>
  %s1, %n1 = mbarrier.pipe.acquire %p, %a : !mbarrier.pipe<2, arrive>
  // CHECK: mbarrier.arrive %{{.*}}[%{{.*}}] if %{{.*}} : !mbarrier.group<4>
  mbarrier.pipe.commit %p[%s1] if %pred : !mbarrier.pipe<2, arrive>
  %h = mbarrier.alloc : !mbarrier.group<4>
  %q = mbarrier.pipe.create %h : !mbarrier.group<4> -> !mbarrier.pipe<2, tcgen05>
  %s2, %n2 = mbarrier.pipe.acquire %q, %a : !mbarrier.pipe<2, tcgen05>
  // CHECK: mbarrier.tcgen05_commit %{{.*}}[%{{.*}}] : !mbarrier.group<4>
  mbarrier.pipe.commit %q[%s2] : !mbarrier.pipe<2, tcgen05>
  // CHECK: %[[ADV:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
  %c = arith.constant 5 : i32
  %a2 = mbarrier.pipe.advance %n2, %c : !mbarrier.pipe_state<producer>
  return
}

// Multicast along the row of a 4 x 1 cluster: the copy's CTA mask is the
// row's (0b1111 << 4y), and the release arrives on the empty barrier of each
// CTA of the row through the cluster form.
gpu.module @m {
  // CHECK-LABEL: gpu.func @multicast_row(
  gpu.func @multicast_row(%map: !llvm.ptr, %dst: !llvm.ptr<3>, %x: i32) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    // CHECK: %[[DST7:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
    // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
    // CHECK: %[[W:.*]] = arith.constant 4 : i32
    // CHECK: %[[Y:.*]] = arith.divui %[[RANK]], %[[W]] : i32
    // CHECK: %[[SHIFT:.*]] = arith.muli %[[Y]], %{{.*}} : i32
    // CHECK: %[[ROW:.*]] = arith.constant 15 : i32
    // CHECK: %[[MASK32:.*]] = arith.shli %[[ROW]], %[[SHIFT]] : i32
    // CHECK: %[[MASK:.*]] = arith.trunci %[[MASK32]] : i32 to i16
    // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST7]], %{{.*}}, %{{.*}}, box[%{{.*}}] multicast_mask = %[[MASK]]
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 1024 multicast row : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>, !llvm.ptr
    %b = arith.constant 4096 : i32
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    %cs = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
    %cslot, %cnext = mbarrier.pipe.wait %p, %cs : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    // CHECK: %[[CRANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
    // CHECK: %[[CY:.*]] = arith.divui %[[CRANK]]
    // CHECK: %[[START:.*]] = arith.muli %[[CY]]
    // CHECK: %[[T0:.*]] = arith.addi %[[START]], %{{.*}} : i32
    // CHECK: %[[T1:.*]] = arith.addi %[[START]], %{{.*}} : i32
    // CHECK: %[[T2:.*]] = arith.addi %[[START]], %{{.*}} : i32
    // CHECK: %[[T3:.*]] = arith.addi %[[START]], %{{.*}} : i32
    // CHECK: mbarrier.arrive %{{.*}}[%[[E:.*]]] on %[[T0]] : !mbarrier.group<4>
    // CHECK: mbarrier.arrive %{{.*}}[%[[E]]] on %[[T1]] : !mbarrier.group<4>
    // CHECK: mbarrier.arrive %{{.*}}[%[[E]]] on %[[T2]] : !mbarrier.group<4>
    // CHECK: mbarrier.arrive %{{.*}}[%[[E]]] on %[[T3]] : !mbarrier.group<4>
    // CHECK-NOT: mbarrier.arrive
    mbarrier.pipe.release %p[%cslot] : !mbarrier.pipe<2, tma, cluster = [4, 1], multicast = row>
    // FENCE-LABEL: gpu.func @multicast_row(
    // FENCE: mbarrier.fence_release shared_cta
    // FENCE-COUNT-4: mbarrier.arrive {{.*}} on {{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // FENCE-NOT: mbarrier.arrive
    gpu.return
  }
}

// Row and column of a 2 x 2 cluster: the column's mask is 0b0101 << x; the
// release reaches the 2 CTAs of the row and the one other CTA of the column.
gpu.module @n {
  // CHECK-LABEL: gpu.func @multicast_rowcol(
  gpu.func @multicast_rowcol(%map: !llvm.ptr, %dst: !llvm.ptr<3>, %x: i32) kernel attributes {known_cluster_size = array<i32: 2, 2, 1>} {
    %g = mbarrier.alloc : !mbarrier.group<4>
    %p = mbarrier.pipe.create %g : !mbarrier.group<4> -> !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
    %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
    %slot, %next = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
    // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
    // CHECK: %[[X:.*]] = arith.remui %[[RANK]], %{{.*}} : i32
    // CHECK: %[[COL:.*]] = arith.constant 5 : i32
    // CHECK: %[[M:.*]] = arith.shli %[[COL]], %[[X]] : i32
    // CHECK: arith.trunci %[[M]] : i32 to i16
    mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %dst, %map[%x], bytes 1024 multicast col : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>, !llvm.ptr
    %b = arith.constant 2048 : i32
    mbarrier.pipe.commit %p[%slot], bytes %b : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
    %cs = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
    %cslot, %cnext = mbarrier.pipe.wait %p, %cs : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
    // The column's other row: k + (k >= y) for k = 0.
    // CHECK: %[[SKIP:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : i32
    // CHECK: arith.extui %[[SKIP]] : i1 to i32
    // CHECK: mbarrier.arrive {{.*}} on
    // CHECK: mbarrier.arrive {{.*}} on
    // CHECK: mbarrier.arrive {{.*}} on
    // CHECK-NOT: mbarrier.arrive
    mbarrier.pipe.release %p[%cslot] : !mbarrier.pipe<2, tma, cluster = [2, 2], multicast = rowcol>
    // FENCE-LABEL: gpu.func @multicast_rowcol(
    // FENCE: mbarrier.fence_release shared_cta
    // FENCE-COUNT-3: mbarrier.arrive {{.*}} on {{.*}} {scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>}
    // FENCE-NOT: mbarrier.arrive
    gpu.return
  }
}
