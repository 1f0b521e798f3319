// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// Class 2, the phases of a target's waits (ExitPhases.cpp), in a persistent
// kernel whose tile loop starts at the cluster's id and strides by the
// grid's clusters (fast.cu's matmulKernel8 schedule, heldout4
// fastcu_cluster_multicast.bug-no-cluster-sync-before-exit): the protocol
// model follows the first cluster of the grid (cluster id 0, the grid's
// size the sample, ProtocolEval.cpp), a launch every grid has. The
// multicast pipeline of exit-last-phase.mlir without producer_tail or a
// cluster barrier before exit: the peer's last releases may land in a CTA
// that has exited (a warning). Its twin ends with a cluster barrier (silent).

gpu.module @persistent_multicast_without_cluster_sync {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %i4096 = arith.constant 4096 : i32
    %mask = arith.constant 3 : i16
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %i1 : i32
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %nclusters = arith.divui %grid, %i2 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %base = llvm.mlir.addressof @stage : !llvm.ptr<3>
    %half = arith.muli %rank, %i2048 : i32
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      %f:2 = scf.while (%tile = %cid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
          %off0 = arith.muli %s32, %i4096 : i32
          %off = arith.addi %off0, %half : i32
          %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%k, %tile], bytes 2048 multicast %mask : !mbarrier.group<2>, !llvm.ptr
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %next = arith.addi %tile, %nclusters : i32
        scf.yield %next, %cn : i32, i32
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %dst_rank = arith.select %is1, %peer, %rank : i32
      %signalling = arith.cmpi ult, %tid, %i2 : i32
      %target = mbarrier.remote_view %empty, %dst_rank : !mbarrier.group<2>
      %f:2 = scf.while (%tile = %cid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
          // expected-warning @+1 {{arrives on CTA 1's barrier after the last phase that CTA 1's own waits on it wait for}}
          mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2>
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %next = arith.addi %tile, %nclusters : i32
        scf.yield %next, %cn : i32, i32
      }
    }
    gpu.return
  }
}

// -----

// The fix: every thread of both CTAs meets at a cluster barrier before exit.
gpu.module @persistent_multicast_with_cluster_sync {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i2048 = arith.constant 2048 : i32
    %i4096 = arith.constant 4096 : i32
    %mask = arith.constant 3 : i16
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %i1 : i32
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %nclusters = arith.divui %grid, %i2 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %base = llvm.mlir.addressof @stage : !llvm.ptr<3>
    %half = arith.muli %rank, %i2048 : i32
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      %f:2 = scf.while (%tile = %cid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
          mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
          %off0 = arith.muli %s32, %i4096 : i32
          %off = arith.addi %off0, %half : i32
          %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%k, %tile], bytes 2048 multicast %mask : !mbarrier.group<2>, !llvm.ptr
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %next = arith.addi %tile, %nclusters : i32
        scf.yield %next, %cn : i32, i32
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %dst_rank = arith.select %is1, %peer, %rank : i32
      %signalling = arith.cmpi ult, %tid, %i2 : i32
      %target = mbarrier.remote_view %empty, %dst_rank : !mbarrier.group<2>
      %f:2 = scf.while (%tile = %cid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %cn = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i2 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i2 : i32
          %ph = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
          mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2>
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %next = arith.addi %tile, %nclusters : i32
        scf.yield %next, %cn : i32, i32
      }
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
