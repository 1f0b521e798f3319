// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of fa3_tile_count_smem.mlir (same public source: flash-attention
// hopper/tile_scheduler.hpp DynamicPersistentTileScheduler::get_next_work,
// hopper/named_barrier.hpp).
// BUG: the MMA threads sync TileCountSmemFull with NumMmaThreads (128)
// instead of NumThreads = NumMmaThreads + NumProducerThreads (160), while the
// producer warp arrives on it with 160: the threads of one barrier instance
// disagree on its count (undefined in the PTX ISA; in practice the 128 MMA
// threads complete it without the producer warp, read tile_count_smem before
// it is written, and the producer's 32 arrivals are left over for the next
// instance).
// Every launch fails: every CTA has a first tile (grid <= %num_tiles), so
// every CTA reaches get_next_work with the mismatched counts.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_kv() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @tile_count_smem() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<1 x i32>
  mbarrier.named_barrier @tile_count_smem_empty
  mbarrier.named_barrier @tile_count_smem_full
  gpu.func @fa3_tile_count_smem(%map_kv: !llvm.ptr, %o: !llvm.ptr<1>, %semaphore: !llvm.ptr<1>, %num_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i8192 = arith.constant 8192 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    %empty = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i1 : !mbarrier.group<1>
      mbarrier.init %empty[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %kv = llvm.mlir.addressof @smem_kv : !llvm.ptr<3>
    %tcs = llvm.mlir.addressof @tile_count_smem : !llvm.ptr<3>

    %is_producer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_producer {
      %lane = arith.subi %tid, %i128 : i32
      %is_lane0 = arith.cmpi eq, %lane, %i0 : i32
      %f:2 = scf.while (%tile = %bid, %it = %i0) : (i32, i32) -> (i32, i32) {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile, %it : i32, i32
      } do {
      ^bb0(%tile: i32, %it: i32):
        %ph = arith.andi %it, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        scf.if %is_lane0 {
          mbarrier.wait %empty[%c0], %pph : !mbarrier.group<1>
          mbarrier.arrive_expect_tx %full[%c0], %i8192 : !mbarrier.group<1>
          mbarrier.cp_async_bulk_tensor %full[%c0], %kv, %map_kv[%i0, %tile], bytes 8192 : !mbarrier.group<1>, !llvm.ptr
        }
        // prefetch_next_work: lane 0 takes the next tile; broadcast to the warp.
        %nt = scf.if %is_lane0 -> (i32) {
          %old = llvm.atomicrmw add %semaphore, %i1 monotonic : !llvm.ptr<1>, i32
          %n = arith.addi %old, %grid : i32
          scf.yield %n : i32
        } else {
          scf.yield %i0 : i32
        }
        %full_mask = arith.constant -1 : i32
        %clamp = arith.constant 31 : i32
        %next = nvvm.shfl.sync idx %full_mask, %nt, %i0, %clamp : i32 -> i32
        // get_next_work<true>.
        mbarrier.bar_sync @tile_count_smem_empty threads 160
        scf.if %is_lane0 {
          llvm.store %next, %tcs : i32, !llvm.ptr<3>
        }
        mbarrier.bar_arrive @tile_count_smem_full threads 160
        %it2 = arith.addi %it, %i1 : i32
        scf.yield %next, %it2 : i32, i32
      }
    }

    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      // init_consumer()
      mbarrier.bar_arrive @tile_count_smem_empty threads 160
      %f:2 = scf.while (%tile = %bid, %it = %i0) : (i32, i32) -> (i32, i32) {
        %valid = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%valid) %tile, %it : i32, i32
      } do {
      ^bb0(%tile: i32, %it: i32):
        %ph = arith.andi %it, %i1 : i32
        mbarrier.wait %full[%c0], %ph : !mbarrier.group<1>
        %off = arith.muli %tid, %i32 : i32
        %src = llvm.getelementptr %kv[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %x = llvm.load %src : !llvm.ptr<3> -> vector<4xf32>
        mbarrier.arrive %empty[%c0] : !mbarrier.group<1>
        %r0 = arith.muli %tile, %i128 : i32
        %r = arith.addi %r0, %tid : i32
        %op = llvm.getelementptr %o[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xf32>
        llvm.store %x, %op : vector<4xf32>, !llvm.ptr<1>
        // get_next_work<false>.
        mbarrier.bar_sync @tile_count_smem_full threads 128 // BUG
        %next = llvm.load %tcs : !llvm.ptr<3> -> i32
        mbarrier.bar_arrive @tile_count_smem_empty threads 160
        %it2 = arith.addi %it, %i1 : i32
        scf.yield %next, %it2 : i32, i32
      }
    }
    gpu.return
  }
}
}
