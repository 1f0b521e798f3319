// Correct-kernel corpus (issue 20): CUTLASS's ping-pong GEMM kernel in a 1x1
// cluster: one TMA mainloop pipeline that the two math warp groups consume
// on alternate tiles, the OrderedSequenceBarrier that orders their MMAs and
// epilogues, and the persistent tile loop (scf.while). The checker must say
// nothing about it.
//
// Source: NVIDIA/cutlass,
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp
// (MainloopPipeline with num_consumers = NumThreadsPerWarpGroup and
// num_producers = 1; MathWarpGroupOrderBarrier = OrderedSequenceBarrier<2, 2>
// with group_size 128 and group_id = warp group - 1; Consumer1 starts one
// tile later, its pipeline state advanced by k_tile_count; every tile:
// order wait, mma, order arrive, mma_tail, state advance by k_tile_count *
// NumMmaWarpGroups, order wait, epilogue, order arrive;
// advance_to_next_work(NumMmaWarpGroups); the producer warp loads every
// tile in order, then load_tail), include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync in a 1x1 cluster: empty count num_consumers = 128,
// every consumer thread signals CTA 0 through the cluster-form arrive;
// OrderedSequenceBarrier: barrier_[Depth][Length] at d * Length + l, init
// group_size by warp 0's elected lane, group 0 starting with the opposite
// phase, wait() on its own barrier of the stage, arrive() on group
// (group_id + 1) % Length's, ++stage), include/cutlass/gemm/collective/
// sm90_mma_tma_gmma_ss_warpspecialized.hpp (mma / mma_tail, K_PIPE_MMAS = 1)
// and include/cutlass/gemm/kernel/sm90_tile_scheduler.hpp (static
// persistent scheduler: tile = blockIdx.x + n * gridDim.x).
// A whole warp group executes each release, but only one warp group reads a
// given stage in a given phase: 128 arrivals per phase, the empty count.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: mapa.shared::cluster
// CHECK: mbarrier.try_wait.parity

gpu.module @cutlass_pingpong_1x1 {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %gB: !llvm.ptr<1>, %ktiles: index, %ntiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %group_size = arith.constant 128 : i32
    %tile = arith.constant 4096 : i32
    %tx = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %is_leader = arith.cmpi eq, %t, %i0 : i32
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    // The mainloop pipeline: full [0, 4), empty [4, 8).
    %g = mbarrier.alloc : !mbarrier.group<8>
    // MathWarpGroupOrderBarrier: barrier_[2][2].
    %ord = mbarrier.alloc : !mbarrier.group<4>
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c4 step %c1 {
          %e = arith.addi %s, %c4 : index
          mbarrier.init %g[%s], %i1 : !mbarrier.group<8>
          mbarrier.init %g[%e], %group_size : !mbarrier.group<8>
        }
      }
    }
    mbarrier.fence_init
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %d = %c0 to %c2 step %c1 {
          scf.for %l = %c0 to %c2 step %c1 {
            %d2 = arith.muli %d, %c2 : index
            %b = arith.addi %d2, %l : index
            mbarrier.init %ord[%b], %group_size : !mbarrier.group<4>
          }
        }
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // The mainloop producer warp: every tile of this CTA, in order.
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          %fin:2 = scf.while (%tl = %bid, %w = %c0) : (index, index) -> (index, index) {
            %valid = arith.cmpi ult, %tl, %ntiles : index
            scf.condition(%valid) %tl, %w : index, index
          } do {
          ^bb0(%tl: index, %w: index):
            scf.for %kk = %c0 to %ktiles step %c1 {
              %k = arith.addi %w, %kk : index
              %s = arith.remui %k, %c4 : index
              %round = arith.divui %k, %c4 : index
              %pbit = arith.andi %round, %c1 : index
              %phase = arith.index_cast %pbit : index to i32
              %e = arith.addi %s, %c4 : index
              mbarrier.wait %g[%e], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
              mbarrier.arrive_expect_tx %g[%s], %tx if %is_leader : !mbarrier.group<8>
              %bar = mbarrier.ptr %g[%s] : !mbarrier.group<8> -> !llvm.ptr<3>
              %s32 = arith.index_cast %s : index to i32
              %off = arith.muli %s32, %tile : i32
              %da = llvm.getelementptr %sa[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
              %db = llvm.getelementptr %sb[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
              nvvm.cp.async.bulk.shared.cluster.global %da, %gA, %bar, %tile : !llvm.ptr<3>, !llvm.ptr<1>
              nvvm.cp.async.bulk.shared.cluster.global %db, %gB, %bar, %tile : !llvm.ptr<3>, !llvm.ptr<1>
            }
            %w2 = arith.addi %w, %ktiles : index
            %tl2 = arith.addi %tl, %grid : index
            scf.yield %tl2, %w2 : index, index
          }
          // load_tail: producer_tail.
          scf.for %j = %c0 to %c4 step %c1 {
            %k = arith.addi %fin#1, %j : index
            %s = arith.remui %k, %c4 : index
            %round = arith.divui %k, %c4 : index
            %pbit = arith.andi %round, %c1 : index
            %phase = arith.index_cast %pbit : index to i32
            %e = arith.addi %s, %c4 : index
            mbarrier.wait %g[%e], %phase {phase_offset = 1 : i32} : !mbarrier.group<8>
          }
        }
      }
    }
    // The two math warp groups.
    scf.if %consumer_wg {
      %gid32 = arith.subi %wg, %i1 : i32
      %gid = arith.index_cast %gid32 : i32 to index
      %is_group0 = arith.cmpi eq, %gid32, %i0 : i32
      %start_phase = arith.extui %is_group0 : i1 to i32
      %nextg = arith.subi %c1, %gid : index
      // Consumer1 starts at the next tile and skips Consumer0's k-tiles.
      %skip = arith.muli %gid, %grid : index
      %tile0 = arith.addi %bid, %skip : index
      %r0 = arith.muli %gid, %ktiles : index
      %two_grid = arith.muli %grid, %c2 : index
      %two_k = arith.muli %ktiles, %c2 : index
      %fin:3 = scf.while (%tl = %tile0, %r = %r0, %q = %c0) : (index, index, index) -> (index, index, index) {
        %valid = arith.cmpi ult, %tl, %ntiles : index
        scf.condition(%valid) %tl, %r, %q : index, index, index
      } do {
      ^bb0(%tl: index, %r: index, %q: index):
        // math_wg_order_barrier.wait(): stage q % 2, own group.
        %qs = arith.remui %q, %c2 : index
        %qr = arith.divui %q, %c2 : index
        %qpb = arith.andi %qr, %c1 : index
        %qp = arith.index_cast %qpb : index to i32
        %qphase = arith.xori %qp, %start_phase : i32
        %qbase = arith.muli %qs, %c2 : index
        %own = arith.addi %qbase, %gid : index
        %other = arith.addi %qbase, %nextg : index
        mbarrier.wait %ord[%own], %qphase : !mbarrier.group<4>
        // collective_mainloop.mma: the first k-tile, then the lagging releases.
        %s0 = arith.remui %r, %c4 : index
        %round0 = arith.divui %r, %c4 : index
        %pb0 = arith.andi %round0, %c1 : index
        %ph0 = arith.index_cast %pb0 : index to i32
        %ok0 = mbarrier.try_wait %g[%s0], %ph0 : !mbarrier.group<8>
        %w0 = arith.xori %ok0, %true : i1
        scf.if %w0 {
          mbarrier.wait %g[%s0], %ph0 : !mbarrier.group<8>
        }
        scf.for %kk = %c1 to %ktiles step %c1 {
          %k = arith.addi %r, %kk : index
          %s = arith.remui %k, %c4 : index
          %round = arith.divui %k, %c4 : index
          %pbit = arith.andi %round, %c1 : index
          %phase = arith.index_cast %pbit : index to i32
          %ok = mbarrier.try_wait %g[%s], %phase : !mbarrier.group<8>
          %again = arith.xori %ok, %true : i1
          scf.if %again {
            mbarrier.wait %g[%s], %phase : !mbarrier.group<8>
          }
          %kr = arith.subi %k, %c1 : index
          %sr = arith.remui %kr, %c4 : index
          %er = arith.addi %sr, %c4 : index
          mbarrier.arrive %g[%er] on %i0 : !mbarrier.group<8>
        }
        // math_wg_order_barrier.arrive(): the other group's barrier of this stage.
        mbarrier.arrive %ord[%other] : !mbarrier.group<4>
        // mma_tail: the last k-tile of this tile.
        %rl0 = arith.addi %r, %ktiles : index
        %rl = arith.subi %rl0, %c1 : index
        %sl = arith.remui %rl, %c4 : index
        %el = arith.addi %sl, %c4 : index
        mbarrier.arrive %g[%el] on %i0 : !mbarrier.group<8>
        // The epilogue's turn: order stage q + 1.
        %q1 = arith.addi %q, %c1 : index
        %es = arith.remui %q1, %c2 : index
        %er2 = arith.divui %q1, %c2 : index
        %epb = arith.andi %er2, %c1 : index
        %ep = arith.index_cast %epb : index to i32
        %ephase = arith.xori %ep, %start_phase : i32
        %ebase = arith.muli %es, %c2 : index
        %eown = arith.addi %ebase, %gid : index
        %eother = arith.addi %ebase, %nextg : index
        mbarrier.wait %ord[%eown], %ephase : !mbarrier.group<4>
        mbarrier.arrive %ord[%eother] : !mbarrier.group<4>
        %q2 = arith.addi %q, %c2 : index
        %r2 = arith.addi %r, %two_k : index
        %tl2 = arith.addi %tl, %two_grid : index
        scf.yield %tl2, %r2, %q2 : index, index, index
      }
    }
    gpu.return
  }
}
