// Correct-kernel corpus (issue 20): CUTLASS's PipelineTmaAsync mainloop in
// its 2x1 and 2x2 cluster configurations (1x1: cutlass-tma-async-1x1.mlir),
// written in barrier ops as the CUTLASS source does it. The checker must say
// nothing about them.
//
// Source: NVIDIA/cutlass, include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineTmaAsync: init_barriers, the PipelineTmaAsync constructor's
// signalling threads, producer_acquire, producer_tail, consumer_try_wait /
// consumer_wait, consumer_release; detail::spread_arrivals_to_warpgroup),
// include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp
// (load, load_tail, mma with K_PIPE_MMAS = 1, mma_tail) and
// include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp
// (384 threads: the producer warp group, whose warp 0 loads; two consumer
// warp groups, num_consumers = 256; cluster_arrive_relaxed + cluster_wait
// after the init in a cluster, __syncthreads in a 1x1 one).
//
// What is kept of the source, per configuration:
// - full barrier count 1 (num_producers), empty barrier count
//   num_consumers = 256 in a 1x1 cluster, (cx + cy - 1) x 2 consumer warp
//   groups otherwise; the init by warp 0's elected lane, in a loop over the
//   stages; fence_barrier_init by every thread;
// - the producer: warp 0's elected lane waits on empty[s] with the inverted
//   phase (make_producer_start_state), thread 0 (is_leader) posts the
//   transaction bytes, the copies of A and B complete on full[s]; then the
//   tail (Stages more empty waits);
// - the consumers: try_wait + wait (the try/finalize pair), the release one
//   trip late (K_PIPE_MMAS = 1), the last stage released in mma_tail;
//   consumer_release is empty[s].arrive(dst_blockid_, is_signaling_thread_)
//   = mapa + mbarrier.arrive.shared::cluster, the cluster form, also in the
//   1x1 cluster (dst_blockid_ = 0, every consumer thread signals).
// The TMA tensor copies of A and B are written as bulk copies of the same
// bytes (4096 per tile), so that the checker counts them.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.cutlass_tma_cooperative_2x1.ptx
// RUN: FileCheck %s --input-file=%t.cutlass_tma_cooperative_2x2.ptx
// CHECK: barrier.cluster.arrive.relaxed
// CHECK: .multicast::cluster
// CHECK: mapa.shared::cluster.u64
// CHECK: @%p{{[0-9]+}} mbarrier.arrive.release.cluster.shared::cluster.b64

// 2x1: B is multicast along the row (SM90_TMA_LOAD_MULTICAST for the
// cluster's M extent; each CTA loads its half of the B tile into both CTAs,
// mask = (1 << layout(0, y)) | (1 << layout(1, y))), A is a plain TMA load.
// Empty count (2 + 1 - 1) x 2 warp groups = 4; in each consumer warp group
// the signalling threads are those with thread_idx % 8 == 0, their CTA
// dst = Swizzle<2,0,-2> o Layout<4x4> (warp_idx % 4, (thread_idx / 8) % 4)
// = 4 * (row ^ col) + col, kept where dst < cluster size and dst is in this
// CTA's row or column.
gpu.module @cutlass_tma_cooperative_2x1 {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %gB: !llvm.ptr<1>, %ktiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %cx = arith.constant 2 : i32
    %csize = arith.constant 2 : i32
    %full_count = arith.constant 1 : i32
    %empty_count = arith.constant 4 : i32
    %tile = arith.constant 4096 : i32
    %half = arith.constant 2048 : i32
    %tx = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %is_leader = arith.cmpi eq, %t, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %bx = arith.remui %rank, %cx : i32
    %by = arith.divui %rank, %cx : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %g = mbarrier.alloc : !mbarrier.group<8>
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c4 step %c1 {
          %e = arith.addi %s, %c4 : index
          mbarrier.init %g[%s], %full_count : !mbarrier.group<8>
          mbarrier.init %g[%e], %empty_count : !mbarrier.group<8>
        }
      }
    }
    mbarrier.fence_init
    // cluster_arrive_relaxed(); ... cluster_wait();
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    // The signalling threads of the consumer warp groups.
    %wt = arith.remui %t, %i128 : i32
    %row = arith.remui %warp, %i4 : i32
    %wt8 = arith.divui %wt, %i8 : i32
    %col = arith.remui %wt8, %i4 : i32
    %rxc = arith.xori %row, %col : i32
    %hi = arith.muli %rxc, %i4 : i32
    %dst = arith.addi %hi, %col : i32
    %lane8 = arith.remui %wt, %i8 : i32
    %sig0 = arith.cmpi eq, %lane8, %i0 : i32
    %in_cluster = arith.cmpi ult, %dst, %csize : i32
    %dx = arith.remui %dst, %cx : i32
    %dy = arith.divui %dst, %cx : i32
    %same_x = arith.cmpi eq, %dx, %bx : i32
    %same_y = arith.cmpi eq, %dy, %by : i32
    %same_rc = arith.ori %same_x, %same_y : i1
    %sig1 = arith.andi %sig0, %in_cluster : i1
    %is_signalling = arith.andi %sig1, %same_rc : i1
    // mcast_mask_b: the CTAs (m, y) for m < 2.
    %ybase = arith.muli %by, %cx : i32
    %r0 = arith.shli %i1, %ybase : i32
    %ybase1 = arith.addi %ybase, %i1 : i32
    %r1 = arith.shli %i1, %ybase1 : i32
    %mask_b32 = arith.ori %r0, %r1 : i32
    %mask_b = arith.trunci %mask_b32 : i32 to i16
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          scf.for %k = %c0 to %ktiles step %c1 {
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
            // This CTA's half of the B tile, at its offset in the stage.
            %bhalf = arith.muli %bx, %half : i32
            %boff = arith.addi %off, %bhalf : i32
            %db = llvm.getelementptr %sb[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %db7 = llvm.addrspacecast %db : !llvm.ptr<3> to !llvm.ptr<7>
            %k32 = arith.index_cast %k : index to i32
            %goff = arith.muli %k32, %tile : i32
            %srca = llvm.getelementptr %gA[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            %gboff = arith.addi %goff, %bhalf : i32
            %srcb = llvm.getelementptr %gB[%gboff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            nvvm.cp.async.bulk.shared.cluster.global %da, %srca, %bar, %tile : !llvm.ptr<3>, !llvm.ptr<1>
            nvvm.cp.async.bulk.shared.cluster.global %db7, %srcb, %bar, %half multicast_mask = %mask_b : !llvm.ptr<7>, !llvm.ptr<1>
          }
          scf.for %j = %c0 to %c4 step %c1 {
            %k = arith.addi %ktiles, %j : index
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
    scf.if %consumer_wg {
      %ok0 = mbarrier.try_wait %g[%c0], %i0 : !mbarrier.group<8>
      %wait0 = arith.xori %ok0, %true : i1
      scf.if %wait0 {
        mbarrier.wait %g[%c0], %i0 : !mbarrier.group<8>
      }
      scf.for %k = %c1 to %ktiles step %c1 {
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
        mbarrier.arrive %g[%er] on %dst if %is_signalling : !mbarrier.group<8>
      }
      %kl = arith.subi %ktiles, %c1 : index
      %sl = arith.remui %kl, %c4 : index
      %el = arith.addi %sl, %c4 : index
      mbarrier.arrive %g[%el] on %dst if %is_signalling : !mbarrier.group<8>
    }
    gpu.return
  }
}

// -----

// 2x2: A is multicast along the column (the CTAs (x, n)), B along the row
// (the CTAs (m, y)); each CTA loads half of each tile. Empty count
// (2 + 2 - 1) x 2 warp groups = 6: every consumer warp group of the three
// CTAs of this CTA's row and column releases each stage once.
gpu.module @cutlass_tma_cooperative_2x2 {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %gB: !llvm.ptr<1>, %ktiles: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 2, 2, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %cx = arith.constant 2 : i32
    %csize = arith.constant 4 : i32
    %full_count = arith.constant 1 : i32
    %empty_count = arith.constant 6 : i32
    %tile = arith.constant 4096 : i32
    %half = arith.constant 2048 : i32
    %tx = arith.constant 8192 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %producer_wg = arith.cmpi eq, %wg, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %is_leader = arith.cmpi eq, %t, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %bx = arith.remui %rank, %cx : i32
    %by = arith.divui %rank, %cx : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %g = mbarrier.alloc : !mbarrier.group<8>
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c4 step %c1 {
          %e = arith.addi %s, %c4 : index
          mbarrier.init %g[%s], %full_count : !mbarrier.group<8>
          mbarrier.init %g[%e], %empty_count : !mbarrier.group<8>
        }
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %wt = arith.remui %t, %i128 : i32
    %row = arith.remui %warp, %i4 : i32
    %wt8 = arith.divui %wt, %i8 : i32
    %col = arith.remui %wt8, %i4 : i32
    %rxc = arith.xori %row, %col : i32
    %hi = arith.muli %rxc, %i4 : i32
    %dst = arith.addi %hi, %col : i32
    %lane8 = arith.remui %wt, %i8 : i32
    %sig0 = arith.cmpi eq, %lane8, %i0 : i32
    %in_cluster = arith.cmpi ult, %dst, %csize : i32
    %dx = arith.remui %dst, %cx : i32
    %dy = arith.divui %dst, %cx : i32
    %same_x = arith.cmpi eq, %dx, %bx : i32
    %same_y = arith.cmpi eq, %dy, %by : i32
    %same_rc = arith.ori %same_x, %same_y : i1
    %sig1 = arith.andi %sig0, %in_cluster : i1
    %is_signalling = arith.andi %sig1, %same_rc : i1
    // mcast_mask_a: the CTAs (x, n) for n < 2; mcast_mask_b: (m, y), m < 2.
    %a0 = arith.shli %i1, %bx : i32
    %bx2 = arith.addi %bx, %cx : i32
    %a1 = arith.shli %i1, %bx2 : i32
    %mask_a32 = arith.ori %a0, %a1 : i32
    %mask_a = arith.trunci %mask_a32 : i32 to i16
    %ybase = arith.muli %by, %cx : i32
    %r0 = arith.shli %i1, %ybase : i32
    %ybase1 = arith.addi %ybase, %i1 : i32
    %r1 = arith.shli %i1, %ybase1 : i32
    %mask_b32 = arith.ori %r0, %r1 : i32
    %mask_b = arith.trunci %mask_b32 : i32 to i16
    scf.if %producer_wg {
      scf.if %warp0 {
        %lane_predicate = nvvm.elect.sync -> i1
        scf.if %lane_predicate {
          scf.for %k = %c0 to %ktiles step %c1 {
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
            %ahalf = arith.muli %by, %half : i32
            %aoff = arith.addi %off, %ahalf : i32
            %bhalf = arith.muli %bx, %half : i32
            %boff = arith.addi %off, %bhalf : i32
            %da = llvm.getelementptr %sa[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %db = llvm.getelementptr %sb[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %da7 = llvm.addrspacecast %da : !llvm.ptr<3> to !llvm.ptr<7>
            %db7 = llvm.addrspacecast %db : !llvm.ptr<3> to !llvm.ptr<7>
            %k32 = arith.index_cast %k : index to i32
            %goff = arith.muli %k32, %tile : i32
            %gaoff = arith.addi %goff, %ahalf : i32
            %gboff = arith.addi %goff, %bhalf : i32
            %srca = llvm.getelementptr %gA[%gaoff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            %srcb = llvm.getelementptr %gB[%gboff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            nvvm.cp.async.bulk.shared.cluster.global %da7, %srca, %bar, %half multicast_mask = %mask_a : !llvm.ptr<7>, !llvm.ptr<1>
            nvvm.cp.async.bulk.shared.cluster.global %db7, %srcb, %bar, %half multicast_mask = %mask_b : !llvm.ptr<7>, !llvm.ptr<1>
          }
          scf.for %j = %c0 to %c4 step %c1 {
            %k = arith.addi %ktiles, %j : index
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
    scf.if %consumer_wg {
      %ok0 = mbarrier.try_wait %g[%c0], %i0 : !mbarrier.group<8>
      %wait0 = arith.xori %ok0, %true : i1
      scf.if %wait0 {
        mbarrier.wait %g[%c0], %i0 : !mbarrier.group<8>
      }
      scf.for %k = %c1 to %ktiles step %c1 {
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
        mbarrier.arrive %g[%er] on %dst if %is_signalling : !mbarrier.group<8>
      }
      %kl = arith.subi %ktiles, %c1 : index
      %sl = arith.remui %kl, %c4 : index
      %el = arith.addi %sl, %c4 : index
      mbarrier.arrive %g[%el] on %dst if %is_signalling : !mbarrier.group<8>
    }
    gpu.return
  }
}
