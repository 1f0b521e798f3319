// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of thunderkittens_lcf.mlir): a wrong phase: the consumer waits
// inputs_arrived[s] with parity 0 in every trip instead of the lap's parity
// (the bitfield update forgotten).
// The op: the consumer's mbarrier.wait on %arrived (marked // BUG).
// Some launches (expected: a warning): with %n_iters > 3 the second lap's wait
// on a slot returns on the old, completed phase, before the new load lands: the
// consumer may read stale data (a race; not a hang).
//
// Follows HazyResearch/ThunderKittens prototype/lcf/lcf.cuh (the load-compute-
// finish template: inputs_arrived[ring] (count 1 + tma::expect bytes) and
// inputs_finished[ring] (count = consumer warps: lane 0 of each consumer warp
// arrives), with the phase of each ring slot kept in a carried bitfield:
// get_phasebit<1> and update_phasebit) and include/ops/warp/memory/util/tma.cuh.
// 256 threads: warpgroup 0 is the producer (its lane 0 loads), warpgroup 1 the
// consumer (4 warps). 3-slot ring, %n_iters (a parameter) iterations. The producer
// carries the "finished" phase bits, all 1 at the start (every slot starts free);
// the consumer waits the lap parity (i / 3) mod 2 and sums its words of each slot.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @thunderkittens_lcf(%map: !llvm.ptr, %out: !llvm.ptr<1>, %n_iters: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i7 = arith.constant 7 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %lane = arith.remui %tid, %i32 : i32
    %lane0 = arith.cmpi eq, %lane, %i0 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %arrived = mbarrier.alloc : !mbarrier.group<3>
    %finished = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %arrived[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %finished[%s], %i4 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %ring = llvm.mlir.addressof @ring : !llvm.ptr<3>
    %is_producer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_producer {
      scf.if %is_tid0 {
        %bits = scf.for %i = %i0 to %n_iters step %i1 iter_args(%b = %i7) -> (i32) : i32 {
          %s32 = arith.remui %i, %i3 : i32
          %s = arith.index_cast %s32 : i32 to index
          %sh = arith.shrui %b, %s32 : i32
          %ph = arith.andi %sh, %i1 : i32
          mbarrier.wait %finished[%s], %ph : !mbarrier.group<3>
          mbarrier.arrive_expect_tx %arrived[%s], %i4096 : !mbarrier.group<3>
          %off = arith.muli %s32, %i4096 : i32
          %dst = llvm.getelementptr %ring[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %row = arith.muli %i, %i64 : i32
          mbarrier.cp_async_bulk_tensor %arrived[%s], %dst, %map[%i0, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          %bit = arith.shli %i1, %s32 : i32
          %b2 = arith.xori %b, %bit : i32
          scf.yield %b2 : i32
        }
      }
    } else {
      %ctid = arith.subi %tid, %i128 : i32
      %sum = scf.for %i = %i0 to %n_iters step %i1 iter_args(%acc = %i0) -> (i32) : i32 {
        %s32 = arith.remui %i, %i3 : i32
        %s = arith.index_cast %s32 : i32 to index
        %bits = arith.divui %i, %i3 : i32
        %ph = arith.andi %bits, %i1 : i32
        mbarrier.wait %arrived[%s], %i0 : !mbarrier.group<3> // BUG
        %off = arith.muli %s32, %i4096 : i32
        %w = arith.muli %ctid, %i4 : i32
        %o2 = arith.addi %off, %w : i32
        %src = llvm.getelementptr %ring[%o2] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = llvm.load %src : !llvm.ptr<3> -> i32
        %acc2 = arith.addi %acc, %v : i32
        scf.if %lane0 {
          mbarrier.arrive %finished[%s] : !mbarrier.group<3>
        }
        scf.yield %acc2 : i32
      }
      %ctid64 = arith.extui %ctid : i32 to i64
      %p = llvm.getelementptr %out[%ctid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %sum, %p : i32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
