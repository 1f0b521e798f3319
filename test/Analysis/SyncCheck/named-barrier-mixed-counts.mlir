// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync -o /dev/null
// Class 11, one rendezvous with two thread counts (docs/checker.md): where
// some ops on an id count every warp that uses it (T threads), but their
// warps bring fewer than T, the other warps, which use the id with another
// count only, must complete their phases: every such phase mixes two counts
// on one barrier (the PTX ISA has bar.sync and bar.arrive share a barrier
// "using the same barrier name and thread count"), and a phase of the other
// count completes without the first warps. An error at the uses of the
// other count. Also in a persistent tile loop (an scf.while whose first
// tile is the CTA's and whose next ones come through an atomic counter or
// shared memory): the warps that enter it run at least its first trip.

// FA3's TileCountSmemFull (flash-attention hopper/tile_scheduler.hpp): the
// producer warp arrives for NumThreads = 160, the MMA warp group syncs for
// NumMmaThreads = 128 only.
mbarrier.named_barrier @full id 2
func.func @sync_count_leaves_the_arriving_warp_out() attributes {known_block_size = array<i32: 160, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %mma = arith.cmpi ult, %tid, %c128 : index
  scf.if %mma {
    // expected-error @+1 {{syncs on named barrier @full (id 2) for 128 threads (warps 0-3), but warp 4 uses the id with 160 threads, every warp that uses it: their arrivals complete a phase only with threads of the other warps, which use the id with other counts, so every phase of theirs mixes two thread counts on one barrier (bar.sync and bar.arrive share a barrier only with the same thread count), and a phase of 128 completes without warp 4}}
    mbarrier.bar_sync @full threads 128
  } else {
    // expected-note @+1 {{a use of the id with 160 threads}}
    mbarrier.bar_arrive @full threads 160
  }
  return
}

// -----

// The correct twin: both sides count the 160 threads. Silent.
mbarrier.named_barrier @full id 2
func.func @sync_and_arrive_with_one_count() attributes {known_block_size = array<i32: 160, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %mma = arith.cmpi ult, %tid, %c128 : index
  scf.if %mma {
    mbarrier.bar_sync @full threads 160
  } else {
    mbarrier.bar_arrive @full threads 160
  }
  return
}

// -----

// The mirror image: the consumers sync for all 160, the producer warp
// arrives for 128. Reported at the arrive, whose count is the odd one.
mbarrier.named_barrier @full id 2
func.func @arrive_count_leaves_the_syncing_warps_short() attributes {known_block_size = array<i32: 160, 1, 1>} {
  %tid = gpu.thread_id x
  %c128 = arith.constant 128 : index
  %mma = arith.cmpi ult, %tid, %c128 : index
  scf.if %mma {
    // expected-note @+1 {{a use of the id with 160 threads}}
    mbarrier.bar_sync @full threads 160
  } else {
    // expected-error @+1 {{arrives on named barrier @full (id 2) for 128 threads (warp 4), but warps 0-3 use the id with 160 threads, every warp that uses it}}
    mbarrier.bar_arrive @full threads 128
  }
  return
}

// -----

// FA3's DynamicPersistentTileScheduler: the producer warp's lane 0 takes
// the next tile with an atomic add and broadcasts it (shfl.sync), stores
// it to shared memory and arrives on @full; the MMA warps sync on @full
// and read it. The loops' trips differ between threads as far as the
// checker knows (an atomic, a load), but every thread runs the first trip
// (tile = the CTA's id, below %num_tiles): the warps that use each id are
// those that reach the loops. The MMA sync counts 128.
gpu.module @persistent_loop_sync_count_leaves_the_producer_out {
  mbarrier.named_barrier @empty id 1
  mbarrier.named_barrier @full id 2
  gpu.func @persistent_loop_sync_count_leaves_the_producer_out(%sem: !llvm.ptr<1>, %tcs: !llvm.ptr<3>, %num_tiles: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i31 = arith.constant 31 : i32
    %m1 = arith.constant -1 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %producer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %producer {
      %lane0 = arith.cmpi eq, %tid, %i128 : i32
      %last = scf.while (%tile = %bid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        %nt = scf.if %lane0 -> (i32) {
          %old = llvm.atomicrmw add %sem, %i1 monotonic : !llvm.ptr<1>, i32
          scf.yield %old : i32
        } else {
          scf.yield %i0 : i32
        }
        %next = nvvm.shfl.sync idx %m1, %nt, %i0, %i31 : i32 -> i32
        mbarrier.bar_sync @empty threads 160
        llvm.store %next, %tcs : i32, !llvm.ptr<3>
        // expected-note @+1 {{a use of the id with 160 threads}}
        mbarrier.bar_arrive @full threads 160
        scf.yield %next : i32
      }
    } else {
      mbarrier.bar_arrive @empty threads 160
      %last = scf.while (%tile = %bid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        // expected-error @+1 {{syncs on named barrier @full (id 2) for 128 threads (warps 0-3), but warp 4 uses the id with 160 threads}}
        mbarrier.bar_sync @full threads 128
        %next = llvm.load %tcs : !llvm.ptr<3> -> i32
        mbarrier.bar_arrive @empty threads 160
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}

// -----

// The correct twin: the MMA warps sync @full for NumThreads. Silent.
gpu.module @persistent_loop_one_count {
  mbarrier.named_barrier @empty id 1
  mbarrier.named_barrier @full id 2
  gpu.func @persistent_loop_one_count(%sem: !llvm.ptr<1>, %tcs: !llvm.ptr<3>, %num_tiles: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i31 = arith.constant 31 : i32
    %m1 = arith.constant -1 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %producer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %producer {
      %lane0 = arith.cmpi eq, %tid, %i128 : i32
      %last = scf.while (%tile = %bid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        %nt = scf.if %lane0 -> (i32) {
          %old = llvm.atomicrmw add %sem, %i1 monotonic : !llvm.ptr<1>, i32
          scf.yield %old : i32
        } else {
          scf.yield %i0 : i32
        }
        %next = nvvm.shfl.sync idx %m1, %nt, %i0, %i31 : i32 -> i32
        mbarrier.bar_sync @empty threads 160
        llvm.store %next, %tcs : i32, !llvm.ptr<3>
        mbarrier.bar_arrive @full threads 160
        scf.yield %next : i32
      }
    } else {
      mbarrier.bar_arrive @empty threads 160
      %last = scf.while (%tile = %bid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        mbarrier.bar_sync @full threads 160
        %next = llvm.load %tcs : !llvm.ptr<3> -> i32
        mbarrier.bar_arrive @empty threads 160
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}

// -----

// A loop whose first trip already varies (each thread starts at its own
// tile): which warps run it is not known. Silent.
gpu.module @first_trip_varies {
  mbarrier.named_barrier @full id 2
  gpu.func @first_trip_varies(%num_tiles: i32) kernel attributes {known_block_size = array<i32: 160, 1, 1>} {
    %i1 = arith.constant 1 : i32
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %mma {
      %last = scf.while (%tile = %tid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        mbarrier.bar_sync @full threads 128
        %next = arith.addi %tile, %i128 : i32
        scf.yield %next : i32
      }
    } else {
      mbarrier.bar_arrive @full threads 160
    }
    gpu.return
  }
}

// -----

// A persistent loop whose sync waits for more threads than ever use the id
// (the never-completing count of class 11, through the warps that enter
// the loop).
gpu.module @persistent_loop_sync_above_the_threads {
  mbarrier.named_barrier @full id 2
  gpu.func @persistent_loop_sync_above_the_threads(%tcs: !llvm.ptr<3>, %num_tiles: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i128 = arith.constant 128 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %mma {
      %last = scf.while (%tile = %bid) : (i32) -> i32 {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile : i32
      } do {
      ^bb0(%tile: i32):
        // expected-error @+1 {{waits on named barrier @full (id 2) for 192 threads, but only 128 arrivals (warps 0-3) ever arrive on it in a phase}}
        mbarrier.bar_sync @full threads 192
        %next = llvm.load %tcs : !llvm.ptr<3> -> i32
        scf.yield %next : i32
      }
    }
    gpu.return
  }
}

// -----

// FA3's query_empty in a persistent loop: from the second tile on, the
// producer warp syncs and the consumers arrive (a condition on the loop's
// trip, which the checker does not evaluate: those warps may use the id).
// The consumers arrive for 256, every warp that uses the id counts 288.
// The producer warp syncs on it only under the trip's condition: whether
// the 288-thread op runs is not known. Silent.
gpu.module @uncertain_whole_count {
  mbarrier.named_barrier @query_empty id 4
  gpu.func @uncertain_whole_count(%tcs: !llvm.ptr<3>, %num_tiles: i32) kernel attributes {known_block_size = array<i32: 288, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i256 = arith.constant 256 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %producer = arith.cmpi uge, %tid, %i256 : i32
    %last:2 = scf.while (%tile = %bid, %trip = %i0) : (i32, i32) -> (i32, i32) {
      %valid = arith.cmpi slt, %tile, %num_tiles : i32
      scf.condition(%valid) %tile, %trip : i32, i32
    } do {
    ^bb0(%tile: i32, %trip: i32):
      %later = arith.cmpi ugt, %trip, %i0 : i32
      scf.if %later {
        scf.if %producer {
          mbarrier.bar_sync @query_empty threads 288
        }
      }
      scf.if %later {
        %consumer = arith.cmpi ult, %tid, %i256 : i32
        scf.if %consumer {
          mbarrier.bar_arrive @query_empty threads 256
        }
      }
      %next = llvm.load %tcs : !llvm.ptr<3> -> i32
      %trip2 = arith.addi %trip, %i1 : i32
      scf.yield %next, %trip2 : i32, i32
    }
    gpu.return
  }
}

// -----

// The same id, where the producer warp also arrives for 288 in every trip
// (certain) and the consumers sync for 256 in every trip: the consumers'
// count is the odd one, an error there; the ops under the trip's condition
// only widen the warps that may use the id.
gpu.module @certain_ops_beside_uncertain_ones {
  mbarrier.named_barrier @query_empty id 4
  gpu.func @certain_ops_beside_uncertain_ones(%tcs: !llvm.ptr<3>, %num_tiles: i32) kernel attributes {known_block_size = array<i32: 288, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i256 = arith.constant 256 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %producer = arith.cmpi uge, %tid, %i256 : i32
    %last:2 = scf.while (%tile = %bid, %trip = %i0) : (i32, i32) -> (i32, i32) {
      %valid = arith.cmpi slt, %tile, %num_tiles : i32
      scf.condition(%valid) %tile, %trip : i32, i32
    } do {
    ^bb0(%tile: i32, %trip: i32):
      %later = arith.cmpi ugt, %trip, %i0 : i32
      scf.if %producer {
        scf.if %later {
          mbarrier.bar_sync @query_empty threads 288
        }
        // expected-note @+1 {{a use of the id with 288 threads}}
        mbarrier.bar_arrive @query_empty threads 288
      } else {
        // expected-error @+1 {{syncs on named barrier @query_empty (id 4) for 256 threads (warps 0-7), but warp 8 uses the id with 288 threads, every warp that uses it}}
        mbarrier.bar_sync @query_empty threads 256
      }
      %next = llvm.load %tcs : !llvm.ptr<3> -> i32
      %trip2 = arith.addi %trip, %i1 : i32
      scf.yield %next, %trip2 : i32, i32
    }
    gpu.return
  }
}
