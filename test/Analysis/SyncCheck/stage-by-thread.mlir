// One arrive executed by several threads that work on different stages at
// different times: CUTLASS's ping-pong math warp groups share one consumer
// path, each on its own tiles; round-robin consumer warps take every
// fourth stage of a ring. Where the barrier index may differ between the
// threads that execute the arrive, their arrivals are not summed onto one
// barrier in one phase: not counted. The same arrive with an index that
// every thread shares is counted.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// Correct: CUTLASS KernelTmaWarpSpecializedPingpong
// (include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp,
// the mainloop of each math warp group): warp group 0 loads, warp groups 1
// and 2 take tiles 2t and 2t + 1; the second one's pipeline state starts
// K k-blocks ahead. Each math warp group's one signalling thread releases
// the stage (empty count 1 in a 1x1 cluster).
gpu.module @pingpong_math_warp_groups {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%a: !llvm.ptr<1>, %tiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %lane = arith.remui %tid, %c128 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    %signal = arith.cmpi eq, %lane, %c0 : index
    %producer = arith.cmpi eq, %wg, %c0 : index
    %full = mbarrier.alloc : !mbarrier.group<4>
    %empty = mbarrier.alloc : !mbarrier.group<4>
    scf.if %leader {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %full[%s], %one : !mbarrier.group<4>
        mbarrier.init %empty[%s], %one : !mbarrier.group<4>
      }
    }
    nvvm.barrier0
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    // K = 8 k-blocks per tile; the producer loads all tiles in order.
    %total = arith.muli %tiles, %c8 : index
    scf.if %producer {
      scf.for %it = %c0 to %total step %c1 {
        %s = arith.remui %it, %c4 : index
        %round = arith.divui %it, %c4 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<4>
        scf.if %leader {
          mbarrier.arrive_expect_tx %full[%s], %bytes : !mbarrier.group<4>
          %off = arith.muli %s, %c4096 : index
          %off32 = arith.index_cast %off : index to i32
          %dst = llvm.getelementptr %base[%off32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %bar = mbarrier.ptr %full[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %dst7, %a, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
      }
    } else {
      // Math warp group m = wg - 1 takes tiles 2t + m.
      %m = arith.subi %wg, %c1 : index
      %pairs = arith.divui %tiles, %c2 : index
      scf.for %t = %c0 to %pairs step %c1 {
        %t2 = arith.muli %t, %c2 : index
        %tile = arith.addi %t2, %m : index
        %first = arith.muli %tile, %c8 : index
        scf.for %kb = %c0 to %c8 step %c1 {
          %it = arith.addi %first, %kb : index
          %s = arith.remui %it, %c4 : index
          %round = arith.divui %it, %c4 : index
          %r1 = arith.remui %round, %c2 : index
          %phase = arith.index_cast %r1 : index to i32
          mbarrier.wait %full[%s], %phase : !mbarrier.group<4>
          mbarrier.arrive %empty[%s] if %signal : !mbarrier.group<4>
        }
      }
    }
    gpu.return
  }
}

// -----

// Correct: round-robin consumer warps over an 8-stage ring. Warp 0 loads;
// consumer warp w (1..4) takes iterations 4j + (w - 1), and its lane 0
// releases the stage (empty count 1).
gpu.module @round_robin_consumer_warps {
  gpu.func @k(%rounds: index) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
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
    nvvm.barrier0
    %total = arith.muli %rounds, %c4 : index
    scf.if %producer {
      scf.for %it = %c0 to %total step %c1 {
        %s = arith.remui %it, %c8 : index
        %round = arith.divui %it, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
        mbarrier.arrive %full[%s] if %leader : !mbarrier.group<8>
      }
    } else {
      %w = arith.subi %warp, %c1 : index
      scf.for %j = %c0 to %rounds step %c1 {
        %j4 = arith.muli %j, %c4 : index
        %it = arith.addi %j4, %w : index
        %s = arith.remui %it, %c8 : index
        %round = arith.divui %it, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %full[%s], %phase : !mbarrier.group<8>
        mbarrier.arrive %empty[%s] if %lane0 : !mbarrier.group<8>
      }
    }
    gpu.return
  }
}

// -----

// Buggy twin: every consumer warp works on the same stage in the same
// trip, and all four lane-0 threads release it: 4 arrivals per phase on a
// count-1 barrier. A warning: the producer waits on a stage for the phase
// the extra releases complete early only from its third lap on (%rounds >
// 16); a launch of fewer rounds is right.
gpu.module @every_warp_on_one_stage {
  gpu.func @k(%rounds: index) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
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
    nvvm.barrier0
    scf.if %producer {
      scf.for %it = %c0 to %rounds step %c1 {
        %s = arith.remui %it, %c8 : index
        %round = arith.divui %it, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %empty[%s], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
        mbarrier.arrive %full[%s] if %leader : !mbarrier.group<8>
      }
    } else {
      scf.for %it = %c0 to %rounds step %c1 {
        %s = arith.remui %it, %c8 : index
        %round = arith.divui %it, %c8 : index
        %r1 = arith.remui %round, %c2 : index
        %phase = arith.index_cast %r1 : index to i32
        mbarrier.wait %full[%s], %phase : !mbarrier.group<8>
        // expected-warning @+1 {{arrives 4 times on a barrier initialized with arrival count 1}}
        mbarrier.arrive %empty[%s] if %lane0 : !mbarrier.group<8>
      }
    }
    gpu.return
  }
}
