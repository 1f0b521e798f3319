// What MLIR's IntegerRangeAnalysis (with DeadCodeAnalysis and
// SparseConstantPropagation, as int-range-optimizations loads them) infers
// for the index shapes the checker bounds, run with the stock mlir-opt; why
// the checker keeps its own ranges is in docs/checker.md, "The analysis".
// RUN: %mlir_opt %s --int-range-optimizations | FileCheck %s

// An induction variable over a run-time trip count gets a bounded range,
// [0, 2^63 - 2]: both compares fold. The checker's ring rule would read such
// a range as a ring of 2^63 - 1 stages.
// CHECK-LABEL: func.func @iv_of_a_run_time_bound
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: return %[[TRUE]], %[[TRUE]] : i1, i1
func.func @iv_of_a_run_time_bound(%n: index) -> (i1, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %max = arith.constant 9223372036854775807 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c0) -> (index, index) {
    scf.yield %i, %i : index, index
  }
  %lo = arith.cmpi sge, %r#0, %c0 : index
  %hi = arith.cmpi slt, %r#1, %max : index
  return %lo, %hi : i1, i1
}

// A stage `k mod 4` and the empty barrier `stage + 4`: [0, 3] and [4, 7],
// as the checker's own ranges give them.
// CHECK-LABEL: func.func @ring_stage
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: return %[[TRUE]], %[[TRUE]] : i1, i1
func.func @ring_stage(%k: index) -> (i1, i1) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s = arith.remui %k, %c4 : index
  %e = arith.addi %s, %c4 : index
  %full = arith.cmpi ule, %s, %c3 : index
  %empty = arith.cmpi uge, %e, %c4 : index
  return %full, %empty : i1, i1
}

// gpu.thread_id is bounded by known_block_size: warp = tid / 32 < 4.
// CHECK-LABEL: gpu.func @warp_of_a_known_block
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: memref.store %[[TRUE]]
gpu.module @m {
  gpu.func @warp_of_a_known_block(%out: memref<1xi1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %in = arith.cmpi ult, %warp, %c4 : index
    memref.store %in, %out[%c0] : memref<1xi1>
    gpu.return
  }
}
