// Correct-kernel corpus (issue 20): the barrier protocol of FlashAttention-3's
// forward kernel on one CTA (ClusterShape 1x1x1), two MMA warp groups, TMA
// for Q, K, V and O, the path without intra-warpgroup overlap. The checker
// must say nothing about it.
//
// Source: Dao-AILab/flash-attention, hopper/flash_fwd_kernel_sm90.h
// (operator(): barrier_Q init 1, barrier_O init size(ClusterShape) x 1,
// __syncthreads after the pipelines' init in a 1-CTA cluster, the producer
// warp group reduced to one warp, the tile loops), hopper/sm90_pipeline_no_cluster.hpp
// (PipelineTmaAsyncNoCluster: empty count = consumer warp groups, and
// consumer_release = empty_barrier.arrive(0, threadIdx.x % 128 == 0): the
// cluster form, on CTA 0), hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp (load:
// load_K, the QueryEmpty named barrier, barrier_Q.arrive_and_expect_tx + the
// Q copy, barrier_O.wait((work_idx + 1) % 2), load_V; load_tail: barrier_O
// wait, producer_tail of K and V; mma_init; mma without IntraWGOverlap:
// barrier_Q.wait(work_idx % 2), warp_scheduler_barrier_sync/arrive, wait K,
// release K, wait V, release V), hopper/epilogue_fwd.hpp (store with
// Use_TMA_O: the EpilogueBarrier, the last warp's elected lane stores O and
// arrives on barrier_O of every CTA of the cluster, "for cta_id ...
// barrier_O.arrive(cta_id)").
// Named barriers are nvvm.barrier / nvvm.barrier.arrive with the source's
// ids (CUTLASS's FirstUserBarrier = 8 added to FwdNamedBarriers: QueryEmpty
// 8, WarpSchedulerWG1/2 9/10; EpilogueBarrier 1). Tile sizes are shrunk to
// 4096 bytes per copy so that the shared memory is static; the TMA tensor
// copies are bulk copies of those bytes, the TMA store is left out.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-lower-pipes --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: bar.sync 8, 288;
// CHECK: mapa.shared::cluster.u64 {{.*}}, 0;
// CHECK: @%p{{[0-9]+}} mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: bar.sync 1, 256;

gpu.module @fa3_forward_1cta {
  llvm.mlir.global internal @smem_q() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  llvm.mlir.global internal @smem_k() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%gQ: !llvm.ptr<1>, %gK: !llvm.ptr<1>, %gV: !llvm.ptr<1>, %ntiles: index, %nblocks: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_cluster_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i7 = arith.constant 7 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %num_mma_wgs = arith.constant 2 : i32
    %bytes = arith.constant 4096 : i32
    %n288 = arith.constant 288 : i32
    %n256 = arith.constant 256 : i32
    %id_epilogue = arith.constant 1 : i32
    %id_query_empty = arith.constant 8 : i32
    %id_sched_wg1 = arith.constant 9 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %warp = arith.divui %t, %i32 : i32
    %wg = arith.divui %t, %i128 : i32
    %wt = arith.remui %t, %i128 : i32
    %warp0 = arith.cmpi eq, %warp, %i0 : i32
    %consumer_wg = arith.cmpi uge, %wg, %i1 : i32
    %is_leader = arith.cmpi eq, %t, %i0 : i32
    %wg_first = arith.cmpi eq, %wt, %i0 : i32
    %sq = llvm.mlir.addressof @smem_q : !llvm.ptr<3>
    %sk = llvm.mlir.addressof @smem_k : !llvm.ptr<3>
    %sv = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    %bq = mbarrier.alloc : !mbarrier.group<1>
    %bo = mbarrier.alloc : !mbarrier.group<1>
    // pipeline_k / pipeline_v: full [0, 2), empty [2, 4).
    %pk = mbarrier.alloc : !mbarrier.group<4>
    %pv = mbarrier.alloc : !mbarrier.group<4>
    scf.if %warp0 {
      %lane_predicate = nvvm.elect.sync -> i1
      scf.if %lane_predicate {
        mbarrier.init %bq[%c0], %i1 : !mbarrier.group<1>
        // size(ClusterShape{}) * (Use_TMA_O ? 1 : NumMmaThreads)
        mbarrier.init %bo[%c0], %i1 : !mbarrier.group<1>
      }
    }
    // PipelineTmaAsyncNoCluster::init_barriers, for K then V.
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c2 step %c1 {
          %e = arith.addi %s, %c2 : index
          mbarrier.init %pk[%s], %i1 : !mbarrier.group<4>
          mbarrier.init %pk[%e], %num_mma_wgs : !mbarrier.group<4>
        }
      }
    }
    mbarrier.fence_init
    scf.if %warp0 {
      %elected = nvvm.elect.sync -> i1
      scf.if %elected {
        scf.for %s = %c0 to %c2 step %c1 {
          %e = arith.addi %s, %c2 : index
          mbarrier.init %pv[%s], %i1 : !mbarrier.group<4>
          mbarrier.init %pv[%e], %num_mma_wgs : !mbarrier.group<4>
        }
      }
    }
    mbarrier.fence_init
    gpu.barrier
    // The producer: warp 0 of warp group 0 (the other three warps of the
    // producer warp group return).
    scf.if %warp0 {
      %should_load_kv = nvvm.elect.sync -> i1
      %w_end = scf.for %tile = %c0 to %ntiles step %c1 iter_args(%w0 = %c0) -> (index) {
        %tile32 = arith.index_cast %tile : index to i32
        // load_K(n_block_max - 1, smem_pipe_write)
        scf.if %should_load_kv {
          %s = arith.remui %w0, %c2 : index
          %r = arith.divui %w0, %c2 : index
          %pb = arith.andi %r, %c1 : index
          %ph = arith.index_cast %pb : index to i32
          %e = arith.addi %s, %c2 : index
          mbarrier.wait %pk[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %pk[%s], %bytes if %is_leader : !mbarrier.group<4>
          %bar = mbarrier.ptr %pk[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
          %s32 = arith.index_cast %s : index to i32
          %off = arith.muli %s32, %bytes : i32
          %dst = llvm.getelementptr %sk[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          nvvm.cp.async.bulk.shared.cluster.global %dst, %gK, %bar, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
        }
        // Wait for the MMA warp groups to signal that smem_q is ready.
        nvvm.barrier id = %id_query_empty number_of_threads = %n288
        %elect_q = nvvm.elect.sync -> i1
        scf.if %elect_q {
          mbarrier.arrive_expect_tx %bq[%c0], %bytes : !mbarrier.group<1>
          %barq = mbarrier.ptr %bq[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
          nvvm.cp.async.bulk.shared.cluster.global %sq, %gQ, %barq, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
        }
        // barrier_O.wait((work_idx + 1) % 2): the previous tile's O is stored.
        %wi1 = arith.addi %tile32, %i1 : i32
        %opar = arith.remui %wi1, %i2 : i32
        mbarrier.wait %bo[%c0], %opar : !mbarrier.group<1>
        // load_V(n_block, smem_pipe_write)
        scf.if %should_load_kv {
          %s = arith.remui %w0, %c2 : index
          %r = arith.divui %w0, %c2 : index
          %pb = arith.andi %r, %c1 : index
          %ph = arith.index_cast %pb : index to i32
          %e = arith.addi %s, %c2 : index
          mbarrier.wait %pv[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
          mbarrier.arrive_expect_tx %pv[%s], %bytes if %is_leader : !mbarrier.group<4>
          %bar = mbarrier.ptr %pv[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
          %s32 = arith.index_cast %s : index to i32
          %off = arith.muli %s32, %bytes : i32
          %dst = llvm.getelementptr %sv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          nvvm.cp.async.bulk.shared.cluster.global %dst, %gV, %bar, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
        }
        // The remaining n_blocks: ++smem_pipe_write; load_K; load_V.
        %w_last = scf.for %n = %c1 to %nblocks step %c1 iter_args(%wp = %w0) -> (index) {
          %w = arith.addi %wp, %c1 : index
          scf.if %should_load_kv {
            %s = arith.remui %w, %c2 : index
            %r = arith.divui %w, %c2 : index
            %pb = arith.andi %r, %c1 : index
            %ph = arith.index_cast %pb : index to i32
            %e = arith.addi %s, %c2 : index
            %s32 = arith.index_cast %s : index to i32
            %off = arith.muli %s32, %bytes : i32
            mbarrier.wait %pk[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
            mbarrier.arrive_expect_tx %pk[%s], %bytes if %is_leader : !mbarrier.group<4>
            %bark = mbarrier.ptr %pk[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
            %dk = llvm.getelementptr %sk[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            nvvm.cp.async.bulk.shared.cluster.global %dk, %gK, %bark, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
            mbarrier.wait %pv[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
            mbarrier.arrive_expect_tx %pv[%s], %bytes if %is_leader : !mbarrier.group<4>
            %barv = mbarrier.ptr %pv[%s] : !mbarrier.group<4> -> !llvm.ptr<3>
            %dv = llvm.getelementptr %sv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            nvvm.cp.async.bulk.shared.cluster.global %dv, %gV, %barv, %bytes : !llvm.ptr<3>, !llvm.ptr<1>
          }
          scf.yield %w : index
        }
        %w_next = arith.addi %w_last, %c1 : index
        scf.yield %w_next : index
      }
      // load_tail: barrier_O.wait((work_idx + 1) % 2), then producer_tail.
      %nt32 = arith.index_cast %ntiles : index to i32
      %wi1 = arith.addi %nt32, %i1 : i32
      %opar = arith.remui %wi1, %i2 : i32
      mbarrier.wait %bo[%c0], %opar : !mbarrier.group<1>
      %elect_tail = nvvm.elect.sync -> i1
      scf.if %elect_tail {
        scf.for %j = %c0 to %c2 step %c1 {
          %w = arith.addi %w_end, %j : index
          %s = arith.remui %w, %c2 : index
          %r = arith.divui %w, %c2 : index
          %pb = arith.andi %r, %c1 : index
          %ph = arith.index_cast %pb : index to i32
          %e = arith.addi %s, %c2 : index
          mbarrier.wait %pk[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        }
        scf.for %j = %c0 to %c2 step %c1 {
          %w = arith.addi %w_end, %j : index
          %s = arith.remui %w, %c2 : index
          %r = arith.divui %w, %c2 : index
          %pb = arith.andi %r, %c1 : index
          %ph = arith.index_cast %pb : index to i32
          %e = arith.addi %s, %c2 : index
          mbarrier.wait %pv[%e], %ph {phase_offset = 1 : i32} : !mbarrier.group<4>
        }
      }
    }
    // The MMA warp groups 1 and 2.
    scf.if %consumer_wg {
      %id_own = arith.addi %id_sched_wg1, %wg : i32
      %id_mine = arith.subi %id_own, %i1 : i32
      %cur = arith.subi %wg, %i1 : i32
      %next = arith.subi %i1, %cur : i32
      %id_next = arith.addi %id_sched_wg1, %next : i32
      // mma_init: smem_q is free; WG1 gets the very first scheduler signal.
      nvvm.barrier.arrive id = %id_query_empty number_of_threads = %n288
      %is_wg1 = arith.cmpi eq, %wg, %i1 : i32
      scf.if %is_wg1 {
        nvvm.barrier.arrive id = %id_sched_wg1 number_of_threads = %n256
      }
      %r_end = scf.for %tile = %c0 to %ntiles step %c1 iter_args(%r0 = %c0) -> (index) {
        %tile32 = arith.index_cast %tile : index to i32
        %qpar = arith.remui %tile32, %i2 : i32
        mbarrier.wait %bq[%c0], %qpar : !mbarrier.group<1>
        nvvm.barrier id = %id_mine number_of_threads = %n256
        // fwd_step over the n_blocks (the first one without ++smem_pipe_read).
        %r_last = scf.for %n = %c0 to %nblocks step %c1 iter_args(%rp = %r0) -> (index) {
          %first = arith.cmpi eq, %n, %c0 : index
          %rn = arith.addi %rp, %c1 : index
          %r = arith.select %first, %rp, %rn : index
          %s = arith.remui %r, %c2 : index
          %rd = arith.divui %r, %c2 : index
          %pb = arith.andi %rd, %c1 : index
          %ph = arith.index_cast %pb : index to i32
          %e = arith.addi %s, %c2 : index
          mbarrier.wait %pk[%s], %ph : !mbarrier.group<4>
          nvvm.barrier.arrive id = %id_next number_of_threads = %n256
          mbarrier.arrive %pk[%e] on %i0 if %wg_first : !mbarrier.group<4>
          mbarrier.wait %pv[%s], %ph : !mbarrier.group<4>
          nvvm.barrier id = %id_mine number_of_threads = %n256
          mbarrier.arrive %pv[%e] on %i0 if %wg_first : !mbarrier.group<4>
          scf.yield %r : index
        }
        nvvm.barrier.arrive id = %id_next number_of_threads = %n256
        // Tell the producer that smem_q is ready.
        nvvm.barrier.arrive id = %id_query_empty number_of_threads = %n288
        // epilogue.store with Use_TMA_O.
        nvvm.barrier id = %id_epilogue number_of_threads = %n256
        nvvm.barrier.arrive id = %id_epilogue number_of_threads = %n288
        %mma_t = arith.subi %t, %i128 : i32
        %mma_warp = arith.divui %mma_t, %i32 : i32
        %last_warp = arith.cmpi eq, %mma_warp, %i7 : i32
        scf.if %last_warp {
          nvvm.barrier id = %id_epilogue number_of_threads = %n288
          %elected = nvvm.elect.sync -> i1
          scf.if %elected {
            // tma_store_arrive(); tma_store_wait<0>(); then every CTA's barrier_O.
            mbarrier.arrive %bo[%c0] on %i0 : !mbarrier.group<1>
          }
        }
        %r_next = arith.addi %r_last, %c1 : index
        scf.yield %r_next : index
      }
    }
    gpu.return
  }
}
