// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// Class 2, the phases of a target's waits (ExitPhases.cpp): a remote arrival
// whose target CTA waits on the barrier (exit-covered.mlir) is covered only
// where those waits require every phase the arrivals on the barrier
// complete. A multicast pipeline's producer waits each empty barrier for the
// lap before (phase offset 1), so without its producer_tail its waits end a
// lap short: the peers' releases of the last lap may reach a CTA that has
// finished and exited (some launches: a warning, at the remote arrival). A
// 2-CTA cluster of 64 threads: thread 32 produces (each CTA loads its half
// of the stage and multicasts it), warp 0 consumes, thread 0 releasing to
// its own CTA's empty barrier and thread 1 to the peer's (empty counts 2).

gpu.module @multicast_pipe_without_producer_tail {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
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
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %off = arith.addi %off0, %half : i32
        %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%k, %rank], bytes 2048 multicast %mask : !mbarrier.group<2>, !llvm.ptr
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %dst_rank = arith.select %is1, %peer, %rank : i32
      %signalling = arith.cmpi ult, %tid, %i2 : i32
      %target = mbarrier.remote_view %empty, %dst_rank : !mbarrier.group<2>
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        // expected-warning @+1 {{arrives on CTA 1's barrier after the last phase that CTA 1's own waits on it wait for: with the kernel's parameters at 1, its waits require 0 of the 1 phase(s) its arrivals complete, so it may exit, and its shared memory go away, before this arrival lands}}
        mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2>
      }
    }
    gpu.return
  }
}

// -----

// The fix: producer_tail, a wait on each stage for its last release (the
// ring's counter carried on for one more lap). Silent.
gpu.module @multicast_pipe_with_producer_tail {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
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
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %off = arith.addi %off0, %half : i32
        %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%k, %rank], bytes 2048 multicast %mask : !mbarrier.group<2>, !llvm.ptr
      }
      scf.for %j = %i0 to %i2 step %i1 : i32 {
        %it = arith.addi %k_tiles, %j : i32
        %s32 = arith.remui %it, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %it, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
      }
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %dst_rank = arith.select %is1, %peer, %rank : i32
      %signalling = arith.cmpi ult, %tid, %i2 : i32
      %target = mbarrier.remote_view %empty, %dst_rank : !mbarrier.group<2>
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2>
      }
    }
    gpu.return
  }
}

// -----

// The releases ordered before a later arrival on a barrier of the same CTA
// that it waits for whole: after its loop, each consumer's thread 1 arrives
// on the peer's `done` barrier, whose one phase the peer's producer waits
// for before it exits. The release's arrival is ordered before that one
// (its release semantics), so the peer is alive when it lands. Silent.
gpu.module @releases_ordered_before_a_waited_arrival {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
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
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %done = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<2>
      }
      mbarrier.init %done[%c0], %i1 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %base = llvm.mlir.addressof @stage : !llvm.ptr<3>
    %half = arith.muli %rank, %i2048 : i32
    %is_producer = arith.cmpi eq, %tid, %i32 : i32
    scf.if %is_producer {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %full[%s], %i4096 : !mbarrier.group<2>
        %off0 = arith.muli %s32, %i4096 : i32
        %off = arith.addi %off0, %half : i32
        %dst = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.cp_async_bulk_tensor %full[%s], %dst, %map[%k, %rank], bytes 2048 multicast %mask : !mbarrier.group<2>, !llvm.ptr
      }
      mbarrier.wait %done[%c0], %i0 {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
    }
    %is_consumer = arith.cmpi ult, %tid, %i32 : i32
    scf.if %is_consumer {
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %dst_rank = arith.select %is1, %peer, %rank : i32
      %signalling = arith.cmpi ult, %tid, %i2 : i32
      %target = mbarrier.remote_view %empty, %dst_rank : !mbarrier.group<2>
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2>
      }
      %peer_done = mbarrier.remote_view %done, %peer : !mbarrier.group<1>
      mbarrier.arrive %peer_done[%c0] if %is1 : !mbarrier.remote<1>
    }
    gpu.return
  }
}
