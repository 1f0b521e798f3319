// Correct-kernel corpus: round-robin consumer warps over an 8-stage ring,
// in a persistent scf.while loop. The checker must be silent (no error, no
// warning), and the kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.try_wait.parity

// The static persistent schedule of NVIDIA/cutlass
// include/cutlass/gemm/kernel/sm90_tile_scheduler.hpp
// (PersistentTileSchedulerSm90: consumer group g starts at work unit g and
// strides by the number of consumer groups, `advance_to_next_work
// (NumMmaWarpGroups)`), here at warp granularity on one TMA ring: warp 0
// loads units 0, 1, 2, ... into stage unit % 8 (full init 1, the leader's
// arrive_expect_tx and bulk copy); consumer warp w (1..4) takes units
// w - 1, w + 3, ... in a while loop, waits for the stage and its lane 0
// releases it (empty init 1: one consumer per unit).
gpu.module @round_robin {
  llvm.mlir.global internal @ring() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @consume(%src: !llvm.ptr<1>, %units: index) kernel attributes {known_block_size = array<i32: 160, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c2048 = arith.constant 2048 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 2048 : i32
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    %producer = arith.cmpi eq, %warp, %c0 : index
    %full = mbarrier.alloc : !mbarrier.group<8>
    %empty = mbarrier.alloc : !mbarrier.group<8>
    scf.if %leader {
      scf.for %s = %c0 to %c8 step %c1 {
        mbarrier.init %full[%s], %one : !mbarrier.group<8>
        mbarrier.init %empty[%s], %one : !mbarrier.group<8>
      }
    }
    mbarrier.fence_init
    nvvm.barrier0
    %base = llvm.mlir.addressof @ring : !llvm.ptr<3>
    scf.if %producer {
      scf.for %u = %c0 to %units step %c1 {
        %s = arith.remui %u, %c8 : index
        %round = arith.divui %u, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
        scf.if %leader {
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<8>
          %off = arith.muli %s, %c2048 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %full[%s] : !mbarrier.group<8> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %src, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
      }
    } else {
      %first = arith.subi %warp, %c1 : index
      %done = scf.while (%u = %first) : (index) -> index {
        %more = arith.cmpi ult, %u, %units : index
        scf.condition(%more) %u : index
      } do {
      ^bb0(%u: index):
        %s = arith.remui %u, %c8 : index
        %round = arith.divui %u, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %full[%s], %phase : !mbarrier.group<8>
        // ... consume the stage ...
        mbarrier.arrive %empty[%s] if %lane0 : !mbarrier.group<8>
        %next = arith.addi %u, %c4 : index
        scf.yield %next : index
      }
    }
    gpu.return
  }
}
