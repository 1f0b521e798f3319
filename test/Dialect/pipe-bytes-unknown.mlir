// The byte check (docs/pipelines.md, "Rules", 4) counts only what is
// certain. Where a path cannot be counted, the bytes are not checked: a loop of
// unknown trip count, a while loop, a body whose paths differ, a copy of a
// size that is not a constant. Each verifies and lowers to its expect_tx.
// RUN: mbarrier-opt %s --mbarrier-lower-pipes | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not=mbarrier.pipe
// UNKNOWN-LABEL: func.func @unknown_deliveries(
func.func @unknown_deliveries(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %p: !mbarrier.pipe<4, tma>, %st: !mbarrier.pipe_state<producer>, %n: index, %c: i1, %size: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = arith.constant 4096 : i32
  %k = arith.constant 1024 : i32
  // UNKNOWN: mbarrier.arrive_expect_tx
  %s1, %n1 = mbarrier.pipe.acquire %p, %st : !mbarrier.pipe<4, tma>
  scf.for %i = %c0 to %n step %c1 {
    mbarrier.pipe.cp_async_bulk %p[%s1], %dst, %src, %k : !mbarrier.pipe<4, tma>
  }
  mbarrier.pipe.commit %p[%s1], bytes %b : !mbarrier.pipe<4, tma>
  // UNKNOWN: mbarrier.arrive_expect_tx
  %s2, %n2 = mbarrier.pipe.acquire %p, %n1 : !mbarrier.pipe<4, tma>
  scf.while : () -> () {
    mbarrier.pipe.cp_async_bulk %p[%s2], %dst, %src, %k : !mbarrier.pipe<4, tma>
    scf.condition(%c)
  } do {
    scf.yield
  }
  mbarrier.pipe.commit %p[%s2], bytes %b : !mbarrier.pipe<4, tma>
  // UNKNOWN: mbarrier.arrive_expect_tx
  %s3, %n3 = mbarrier.pipe.acquire %p, %n2 : !mbarrier.pipe<4, tma>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %c {
      mbarrier.pipe.cp_async_bulk %p[%s3], %dst, %src, %k : !mbarrier.pipe<4, tma>
    }
  }
  mbarrier.pipe.commit %p[%s3], bytes %b : !mbarrier.pipe<4, tma>
  // UNKNOWN: mbarrier.arrive_expect_tx
  %s4, %n4 = mbarrier.pipe.acquire %p, %n3 : !mbarrier.pipe<4, tma>
  mbarrier.pipe.cp_async_bulk %p[%s4], %dst, %src, %size : !mbarrier.pipe<4, tma>
  mbarrier.pipe.commit %p[%s4], bytes %b : !mbarrier.pipe<4, tma>
  return
}
