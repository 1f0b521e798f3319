// Correct-kernel corpus (issue 20): DeepGEMM's sm90 FP8 GEMM with TMA
// multicast of A across a 2-CTA cluster (kNumTMAMulticast = 2,
// kIsTMAMulticastOnA): its barrier protocol. The checker must say nothing
// about it.
//
// Source: deepseek-ai/DeepGEMM, deep_gemm/include/deep_gemm/impls/
// sm90_fp8_gemm_1d2d.cuh (sm90_fp8_gemm_1d2d_impl: 256 math threads then
// 128 TMA threads; warp kNumMathThreads / 32 + 1 initializes full[i] with 1
// and empty[i] with kNumTMAMulticast * kNumMathThreads / 32 = 16, then
// fence_barrier_init; comm::cluster_sync_with_relaxed_arrive(); the TMA
// warp kNumMathThreads / 32 + 2, one elected lane, persistently over the
// blocks: empty_barriers[stage_idx]->wait(phase ^ 1), the copies of A and
// SFA (multicast) and B, then full_barrier.arrive_and_expect_tx(A + B +
// SFA bytes) after the copies, stage_idx and phase carried and flipped at
// the wrap (advance_pipeline); "another round of empty waits" before
// exiting; the math warps: full_barriers[stage_idx]->wait(phase), then
// empty_barrier_arrive: lane_idx < kNumTMAMulticast ?
// empty_barriers[stage_idx]->arrive(lane_idx) (one arrival per math warp on
// each CTA of the cluster)), deep_gemm/include/deep_gemm/common/tma_copy.cuh
// (with multicast on sm90 only block_rank_in_cluster() == 0 issues the copy,
// mask (1 << num_tma_multicast) - 1) and deep_gemm/include/deep_gemm/comm/
// barrier.cuh (cluster_sync_with_relaxed_arrive = cluster_arrive_relaxed +
// cluster_wait). The scheduler is taken as giving both CTAs the same number
// of blocks (is_peer_cta_alive); tiles are shrunk to static shared memory
// and the tensor copies are bulk copies of the same bytes.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: barrier.cluster.arrive.relaxed
// CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: mapa.shared::cluster

gpu.module @deepgemm_fp8_multicast_a {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  llvm.mlir.global internal @smem_sfa() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  gpu.func @k(%gA: !llvm.ptr<1>, %gSFA: !llvm.ptr<1>, %gB: !llvm.ptr<1>, %nblocks: index, %kblocks: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i8 = arith.constant 8 : i32
    %i9 = arith.constant 9 : i32
    %i10 = arith.constant 10 : i32
    %i32 = arith.constant 32 : i32
    %num_multicast = arith.constant 2 : i32
    %empty_count = arith.constant 16 : i32
    %a_bytes = arith.constant 4096 : i32
    %sfa_bytes = arith.constant 512 : i32
    %b_bytes = arith.constant 4096 : i32
    %tx = arith.constant 8704 : i32
    %mask = arith.constant 3 : i16
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %lane = arith.remui %t, %i32 : i32
    %init_warp = arith.cmpi eq, %warp, %i9 : i32
    %tma_wg = arith.cmpi uge, %warp, %i8 : i32
    %tma_warp = arith.cmpi eq, %warp, %i10 : i32
    %math = arith.cmpi ult, %warp, %i8 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank0 = arith.cmpi eq, %rank, %i0 : i32
    %sa = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %ssfa = llvm.mlir.addressof @smem_sfa : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    // full_barriers [0, 4), empty_barriers [4, 8) (kNumStages = 4).
    %g = mbarrier.alloc : !mbarrier.group<8>
    scf.if %init_warp {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %i = %c0 to %c4 step %c1 {
          %e = arith.addi %i, %c4 : index
          mbarrier.init %g[%i], %i1 : !mbarrier.group<8>
          mbarrier.init %g[%e], %empty_count : !mbarrier.group<8>
        }
        mbarrier.fence_init
      }
    }
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    scf.if %tma_wg {
      scf.if %tma_warp {
        %elected = nvvm.elect.sync -> i1
        scf.if %elected {
          // while (scheduler.get_next_block(m_block_idx, n_block_idx))
          %fin:3 = scf.while (%blk = %c0, %stage = %c0, %phase = %i0) : (index, index, i32) -> (index, index, i32) {
            %more = arith.cmpi ult, %blk, %nblocks : index
            scf.condition(%more) %blk, %stage, %phase : index, index, i32
          } do {
          ^bb0(%blk: index, %stage0: index, %phase0: i32):
            %end:2 = scf.for %kb = %c0 to %kblocks step %c1 iter_args(%stage = %stage0, %phase = %phase0) -> (index, i32) {
              %e = arith.addi %stage, %c4 : index
              %inv = arith.xori %phase, %i1 : i32
              mbarrier.wait %g[%e], %inv : !mbarrier.group<8>
              %bar = mbarrier.ptr %g[%stage] : !mbarrier.group<8> -> !llvm.ptr<3>
              %s32 = arith.index_cast %stage : index to i32
              %aoff = arith.muli %s32, %a_bytes : i32
              %sfoff = arith.muli %s32, %sfa_bytes : i32
              %da = llvm.getelementptr %sa[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
              %dsf = llvm.getelementptr %ssfa[%sfoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
              %db = llvm.getelementptr %sb[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
              // Issue TMA A and SFA: multicast, by CTA 0 of the cluster only.
              scf.if %rank0 {
                %da7 = llvm.addrspacecast %da : !llvm.ptr<3> to !llvm.ptr<7>
                %dsf7 = llvm.addrspacecast %dsf : !llvm.ptr<3> to !llvm.ptr<7>
                nvvm.cp.async.bulk.shared.cluster.global %da7, %gA, %bar, %a_bytes multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
                nvvm.cp.async.bulk.shared.cluster.global %dsf7, %gSFA, %bar, %sfa_bytes multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
              }
              // Issue TMA B: this CTA's own.
              nvvm.cp.async.bulk.shared.cluster.global %db, %gB, %bar, %b_bytes : !llvm.ptr<3>, !llvm.ptr<1>
              mbarrier.arrive_expect_tx %g[%stage], %tx : !mbarrier.group<8>
              // advance_pipeline: stage_idx = stage_idx == kNumStages - 1 ? 0 : stage_idx + 1; phase ^= stage_idx == 0
              %last = arith.cmpi eq, %stage, %c3 : index
              %inc = arith.addi %stage, %c1 : index
              %next = arith.select %last, %c0, %inc : index
              %wrap = arith.extui %last : i1 to i32
              %nphase = arith.xori %phase, %wrap : i32
              scf.yield %next, %nphase : index, i32
            }
            %nblk = arith.addi %blk, %c1 : index
            scf.yield %nblk, %end#0, %end#1 : index, index, i32
          }
          // To safely deconstruct distributed shared barriers, another round of empty waits.
          %tail:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%stage = %fin#1, %phase = %fin#2) -> (index, i32) {
            %e = arith.addi %stage, %c4 : index
            %inv = arith.xori %phase, %i1 : i32
            mbarrier.wait %g[%e], %inv : !mbarrier.group<8>
            %last = arith.cmpi eq, %stage, %c3 : index
            %inc = arith.addi %stage, %c1 : index
            %next = arith.select %last, %c0, %inc : index
            %wrap = arith.extui %last : i1 to i32
            %nphase = arith.xori %phase, %wrap : i32
            scf.yield %next, %nphase : index, i32
          }
        }
      }
    }
    // The math warp groups.
    scf.if %math {
      %signal = arith.cmpi ult, %lane, %num_multicast : i32
      %fin:3 = scf.while (%blk = %c0, %stage = %c0, %phase = %i0) : (index, index, i32) -> (index, index, i32) {
        %more = arith.cmpi ult, %blk, %nblocks : index
        scf.condition(%more) %blk, %stage, %phase : index, index, i32
      } do {
      ^bb0(%blk: index, %stage0: index, %phase0: i32):
        %end:2 = scf.for %kb = %c0 to %kblocks step %c1 iter_args(%stage = %stage0, %phase = %phase0) -> (index, i32) {
          mbarrier.wait %g[%stage], %phase : !mbarrier.group<8>
          // WGMMA, warpgroup_wait<0>, then empty_barrier_arrive: lane i
          // arrives on CTA i's empty barrier.
          %e = arith.addi %stage, %c4 : index
          mbarrier.arrive %g[%e] on %lane if %signal : !mbarrier.group<8>
          %last = arith.cmpi eq, %stage, %c3 : index
          %inc = arith.addi %stage, %c1 : index
          %next = arith.select %last, %c0, %inc : index
          %wrap = arith.extui %last : i1 to i32
          %nphase = arith.xori %phase, %wrap : i32
          scf.yield %next, %nphase : index, i32
        }
        %nblk = arith.addi %blk, %c1 : index
        scf.yield %nblk, %end#0, %end#1 : index, index, i32
      }
    }
    gpu.return
  }
}
