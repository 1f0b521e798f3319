// mbarrier-raise-nvgpu, one function per nvgpu op form: each becomes this
// dialect's op with the same meaning, and no nvgpu op survives.
// RUN: mbarrier-opt %s --mbarrier-raise-nvgpu | FileCheck %s --implicit-check-not=" nvgpu."
// The raised IR verifies and lowers (no nvgpu and no mbarrier op left):
// RUN: mbarrier-opt %s --mbarrier-raise-nvgpu --convert-mbarrier-to-nvvm | FileCheck %s --check-prefix=NVVM --implicit-check-not=" nvgpu." --implicit-check-not=" mbarrier."
// The same through the stock mlir-opt of the MLIR wheel, with our plugin:
// RUN: %mlir_opt %mbarrier_plugin_opts %s --pass-pipeline="builtin.module(mbarrier-raise-nvgpu)" | FileCheck %s --implicit-check-not=" nvgpu."

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>

// CHECK-LABEL: func.func @create_get(
// CHECK-SAME: %[[I:[^:]*]]: index
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK: %[[P:.*]] = mbarrier.ptr %[[G]][%[[I]]] : !mbarrier.group<2> -> !llvm.ptr<3>
// CHECK: %[[P32:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<3> to i32
// CHECK: %[[Q:.*]] = mbarrier.ptr %[[G]][%[[I]]] : !mbarrier.group<2> -> !llvm.ptr<3>
// CHECK: %[[P64:.*]] = llvm.ptrtoint %[[Q]] : !llvm.ptr<3> to i64
// CHECK: return %[[P32]], %[[P64]]
// NVVM-LABEL: func.func @create_get(
// NVVM: llvm.mlir.addressof @__mbarrier_alloc_{{[0-9]+}} : !llvm.ptr<3>
// NVVM: llvm.ptrtoint {{.*}} : !llvm.ptr<3> to i32
func.func @create_get(%i: index) -> (i32, i64) {
  %g = nvgpu.mbarrier.create -> !barriers
  %p32 = nvgpu.mbarrier.get %g[%i] : !barriers -> i32
  %p64 = nvgpu.mbarrier.get %g[%i] : !barriers -> i64
  return %p32, %p64 : i32, i64
}

// The count (index) becomes the i32 this dialect takes: a constant folded,
// anything else truncated by arith.index_cast (as nvgpu's lowering
// truncates); a predicate becomes an scf.if around the init.
// CHECK-LABEL: func.func @init(
// CHECK-SAME: %[[I:[^:]*]]: index, %[[N:[^:]*]]: index, %[[P:[^:]*]]: i1
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: mbarrier.init %[[G]][%[[I]]], %[[ONE]] : !mbarrier.group<2>
// CHECK-NEXT: %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT: mbarrier.init %[[G]][%[[I]]], %[[N32]] : !mbarrier.group<2>
// CHECK-NEXT: }
// NVVM-LABEL: func.func @init(
// NVVM: nvvm.mbarrier.init
// NVVM: scf.if
// NVVM-NEXT: llvm.getelementptr
// NVVM-NEXT: nvvm.mbarrier.init
func.func @init(%i: index, %n: index, %pred: i1) {
  %c1 = arith.constant 1 : index
  %g = nvgpu.mbarrier.create -> !barriers
  nvgpu.mbarrier.init %g[%i], %c1 : !barriers
  nvgpu.mbarrier.init %g[%i], %n, predicate = %pred : !barriers
  return
}

// Arrivals whose token is unused: arrive (release.cta, the same
// instruction as nvgpu's) and arrive.nocomplete.
// CHECK-LABEL: func.func @arrive(
// CHECK-SAME: %[[I:[^:]*]]: index, %[[N:[^:]*]]: index
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK-NEXT: mbarrier.arrive %[[G]][%[[I]]] : !mbarrier.group<2>
// CHECK-NEXT: %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT: mbarrier.arrive_nocomplete %[[G]][%[[I]]], %[[N32]] : !mbarrier.group<2>
// NVVM-LABEL: func.func @arrive(
// NVVM: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>{{$}}
// NVVM: nvvm.mbarrier.arrive.nocomplete %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i64
func.func @arrive(%i: index, %n: index) {
  %g = nvgpu.mbarrier.create -> !barriers
  %t = nvgpu.mbarrier.arrive %g[%i] : !barriers -> !nvgpu.mbarrier.token
  %t2 = nvgpu.mbarrier.arrive.nocomplete %g[%i], %n : !barriers -> !nvgpu.mbarrier.token
  return
}

// CHECK-LABEL: func.func @arrive_expect_tx(
// CHECK-SAME: %[[I:[^:]*]]: index, %[[TX:[^:]*]]: index, %[[P:[^:]*]]: i1
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK: %[[B:.*]] = arith.constant 2048 : i32
// CHECK-NEXT: mbarrier.arrive_expect_tx %[[G]][%[[I]]], %[[B]] : !mbarrier.group<2>
// CHECK-NEXT: %[[TX32:.*]] = arith.index_cast %[[TX]] : index to i32
// CHECK-NEXT: mbarrier.arrive_expect_tx %[[G]][%[[I]]], %[[TX32]] if %[[P]] : !mbarrier.group<2>
// NVVM-LABEL: func.func @arrive_expect_tx(
// NVVM: nvvm.mbarrier.arrive.expect_tx
// NVVM: scf.if
// NVVM-NEXT: nvvm.mbarrier.arrive.expect_tx
func.func @arrive_expect_tx(%i: index, %tx: index, %pred: i1) {
  %c2048 = arith.constant 2048 : index
  %g = nvgpu.mbarrier.create -> !barriers
  nvgpu.mbarrier.arrive.expect_tx %g[%i], %c2048 : !barriers
  nvgpu.mbarrier.arrive.expect_tx %g[%i], %tx, predicate = %pred : !barriers
  return
}

// try_wait.parity (nvgpu's blocking wait) -> mbarrier.wait with the parity
// zero-extended and the ticks as the suspend-time hint of each try_wait.
// CHECK-LABEL: func.func @try_wait_parity(
// CHECK-SAME: %[[I:[^:]*]]: index, %[[PAR:[^:]*]]: i1, %[[T:[^:]*]]: index
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK: %[[TICKS:.*]] = arith.constant 10000000 : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: mbarrier.wait %[[G]][%[[I]]], %[[ZERO]] suspend_time %[[TICKS]] : !mbarrier.group<2>
// CHECK-NEXT: %[[T32:.*]] = arith.index_cast %[[T]] : index to i32
// CHECK-NEXT: %[[PAR32:.*]] = arith.extui %[[PAR]] : i1 to i32
// CHECK-NEXT: mbarrier.wait %[[G]][%[[I]]], %[[PAR32]] suspend_time %[[T32]] : !mbarrier.group<2>
// NVVM-LABEL: func.func @try_wait_parity(
// NVVM: scf.while
// NVVM-NEXT: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} {{.*}}: !llvm.ptr<3>, i32, i32 -> i1
func.func @try_wait_parity(%i: index, %parity: i1, %ticks: index) {
  %false = arith.constant false
  %c10000000 = arith.constant 10000000 : index
  %g = nvgpu.mbarrier.create -> !barriers
  nvgpu.mbarrier.try_wait.parity %g[%i], %false, %c10000000 : !barriers
  nvgpu.mbarrier.try_wait.parity %g[%i], %parity, %ticks : !barriers
  return
}

// tma.async.load -> cp_async_bulk_tensor with the bytes of the
// descriptor's box (64 * 8 * 4 = 2048), the destination's address, the
// coordinates as i32, multicast mask and predicate carried over.
// CHECK-LABEL: func.func @tma_async_load(
// CHECK-SAME: %[[D:[^:]*]]: !nvgpu.tensormap.descriptor<{{.*}}>, %[[I:[^:]*]]: index, %[[X:[^:]*]]: index, %[[MASK:[^:]*]]: i16, %[[P:[^:]*]]: i1
// CHECK: %[[G:.*]] = mbarrier.alloc : !mbarrier.group<2>
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<64x8xf32, 3>
// CHECK: %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[D]] : !nvgpu.tensormap.descriptor<{{.*}}> to !llvm.ptr
// CHECK-NEXT: %[[X32:.*]] = arith.index_cast %[[X]] : index to i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]] : memref<64x8xf32, 3> -> index
// CHECK-NEXT: %[[A64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK-NEXT: %[[DST:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: mbarrier.cp_async_bulk_tensor %[[G]][%[[I]]], %[[DST]], %[[MAP]][%[[X32]], %[[ZERO]]], bytes 2048 : !mbarrier.group<2>, !llvm.ptr
// CHECK: mbarrier.cp_async_bulk_tensor %[[G]][%[[I]]], %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], bytes 2048 multicast %[[MASK]] if %[[P]] : !mbarrier.group<2>, !llvm.ptr
// NVVM-LABEL: func.func @tma_async_load(
// NVVM: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// NVVM: scf.if
// NVVM-NEXT: llvm.addrspacecast
// NVVM-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
func.func @tma_async_load(%d: !desc, %i: index, %x: index, %mask: i16, %pred: i1) {
  %c0 = arith.constant 0 : index
  %g = nvgpu.mbarrier.create -> !barriers
  %buf = memref.alloca() : memref<64x8xf32, 3>
  nvgpu.tma.async.load %d[%x, %c0], %g[%i] to %buf : !desc, !barriers -> memref<64x8xf32, 3>
  nvgpu.tma.async.load %d[%x, %c0], %g[%i] to %buf multicast_mask = %mask, predicate = %pred : !desc, !barriers -> memref<64x8xf32, 3>
  return
}

// A destination with an offset (a subview): the aligned pointer plus the
// offset in bytes, as nvgpu's lowering takes it.
// CHECK-LABEL: func.func @tma_async_load_subview(
// CHECK: %[[SUB:.*]] = memref.subview
// CHECK: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[SUB]]
// CHECK-NEXT: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[SUB]]
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[BYTES:.*]] = arith.muli %[[OFF]], %[[FOUR]] : index
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[ADDR]], %[[BYTES]] : index
// CHECK-NEXT: %[[A64:.*]] = arith.index_castui %[[SUM]] : index to i64
// CHECK-NEXT: %[[DST:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: mbarrier.cp_async_bulk_tensor %{{.*}}, %[[DST]], {{.*}} bytes 2048
func.func @tma_async_load_subview(%d: !desc, %i: index, %x: index) {
  %c0 = arith.constant 0 : index
  %g = nvgpu.mbarrier.create -> !barriers
  %all = memref.alloca() : memref<2x64x8xf32, 3>
  %buf = memref.subview %all[1, 0, 0][1, 64, 8][1, 1, 1] : memref<2x64x8xf32, 3> to memref<64x8xf32, strided<[8, 1], offset: 512>, 3>
  nvgpu.tma.async.load %d[%x, %c0], %g[%i] to %buf : !desc, !barriers -> memref<64x8xf32, strided<[8, 1], offset: 512>, 3>
  return
}
