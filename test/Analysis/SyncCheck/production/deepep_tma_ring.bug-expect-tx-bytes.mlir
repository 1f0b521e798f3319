// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of deepep_tma_ring.mlir): expect-tx bytes vs copy bytes. Lane 0
// posts 2048 expected bytes on the stage's full barrier, but the bulk copy that
// completes on it moves 1024 (DeepEP's tma_load_1d + mbarrier_arrive_and_expect_tx
// with a byte count that is not the copy's).
// The op: the mbarrier.arrive_expect_tx (marked // BUG).
// Every launch (expected: an error): %n_chunks >= 1, and the first wait on the
// full barrier waits for 1024 bytes that never arrive; the kernel hangs.
//
// Follows deepseek-ai/DeepEP csrc/kernels/internode_ll.cu and intranode.cu (the
// TMA staging ring of the dispatch/combine warps: tma_load_1d into a shared
// stage with mbarrier_arrive_and_expect_tx, mbarrier_wait, tma_store_1d out of
// the stage, tma_store_wait<kNumStages - 1>() before the stage is loaded again;
// csrc/kernels/utils.cuh).
// 64 threads, two warps; lane 0 of each warp moves %n_chunks chunks of 1024
// bytes from %src to %dst (the warp's half) through its own 2-stage ring: one
// full barrier per stage (count 1 + the chunk's bytes); the stage is reused
// after wait_group.read 1 (the store that read it two chunks ago is done).
// dst[w * n * 256 + i * 256 + j] = src[same] (i32 words).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @deepep_tma_ring(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %n_chunks: i32) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i1024 = arith.constant 1024 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c1], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c2], %i1 : !mbarrier.group<4>
      mbarrier.init %full[%c3], %i1 : !mbarrier.group<4>
    }
    mbarrier.fence_init
    gpu.barrier
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    scf.if %lane0 {
      %wbytes = arith.muli %warp, %n_chunks : i32
      %wbase = arith.muli %wbytes, %i1024 : i32
      scf.for %i = %i0 to %n_chunks step %i1 : i32 {
        %s = arith.remui %i, %i2 : i32
        %b32 = arith.addi %s, %warp : i32
        %b33 = arith.addi %b32, %warp : i32
        %b = arith.index_cast %b33 : i32 to index
        %lap = arith.divui %i, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %again = arith.cmpi uge, %i, %i2 : i32
        scf.if %again {
          // The store that read this stage two chunks ago is done reading.
          nvvm.cp.async.bulk.wait_group 1 {read}
        }
        %soff = arith.muli %b33, %i1024 : i32
        %stage = llvm.getelementptr %ring[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %coff = arith.muli %i, %i1024 : i32
        %goff = arith.addi %wbase, %coff : i32
        %goff64 = arith.extui %goff : i32 to i64
        %from = llvm.getelementptr %src[%goff64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
        %to = llvm.getelementptr %dst[%goff64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
        %bar = mbarrier.ptr %full[%b] : !mbarrier.group<4> -> !llvm.ptr<3>
        mbarrier.arrive_expect_tx %full[%b], %i2048 : !mbarrier.group<4> // BUG
        nvvm.cp.async.bulk.shared.cluster.global %stage, %from, %bar, %i1024 : !llvm.ptr<3>, !llvm.ptr<1>
        mbarrier.wait %full[%b], %ph : !mbarrier.group<4>
        nvvm.cp.async.bulk.global.shared.cta %to, %stage, %i1024 : !llvm.ptr<1>, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
}
