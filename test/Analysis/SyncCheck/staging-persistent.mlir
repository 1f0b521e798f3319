// Class 10 in the two persistent epilogue shapes (issue 30): a flattened
// loop over tiles * k-steps whose epilogue is an `scf.if` at the tile's last
// k-step (Triton's 09-persistent-matmul as the sm_90 pipeliner lowers it:
// async_tma_store_wait {pendings = 0} before the local_store), and a
// persistent scf.while per warpgroup with a staging buffer each (CUTLASS
// ping-pong: the warpgroup's tma_store_wait before its next tile's writes).
// The `if`'s condition is the same for every thread of the CTA, unknown and
// changes from trip to trip (a kernel parameter's stays undecidable):
// every thread takes the same branch, the walk joins both; the while's trips
// differ between the warpgroups: its body is taken as run by the points
// that may run it. A write of the next trip before the wait is a warning
// (a CTA with one tile is right); with the wait, silent.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync
// The flattened loop without the store wait: a warning at the write.
gpu.module @flat_without_store_wait {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%map_c: !llvm.ptr, %n_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %f = arith.constant 1.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    // tiles_per_SM * k_tiles trips (a division: the same in every thread).
    %left = arith.subi %n_tiles, %bid : i32
    %tps = arith.divsi %left, %grid : i32
    %total = arith.muli %tps, %k_tiles : i32
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    scf.for %i = %i0 to %total step %i1 : i32 {
      %ki = arith.remui %i, %k_tiles : i32
      %kl = arith.subi %k_tiles, %i1 : i32
      %last = arith.cmpi eq, %ki, %kl : i32
      scf.if %last {
        gpu.barrier
        %o4 = arith.muli %tid, %i32 : i32
        %dst = llvm.getelementptr %c_base[%o4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        // expected-warning @+1 {{writes shared memory that a bulk store may still be reading on some launches (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0}}
        llvm.store %f, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier
        scf.if %is_tid0 {
          // expected-note @+1 {{the bulk store that reads the buffer}}
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_base, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
      }
    }
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}

// -----

// Triton's: async_tma_store_wait {pendings = 0} first. Silent.
gpu.module @flat_with_store_wait {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%map_c: !llvm.ptr, %n_tiles: i32, %k_tiles: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i32 = arith.constant 32 : i32
    %f = arith.constant 1.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    // tiles_per_SM * k_tiles trips (a division: the same in every thread).
    %left = arith.subi %n_tiles, %bid : i32
    %tps = arith.divsi %left, %grid : i32
    %total = arith.muli %tps, %k_tiles : i32
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    scf.for %i = %i0 to %total step %i1 : i32 {
      %ki = arith.remui %i, %k_tiles : i32
      %kl = arith.subi %k_tiles, %i1 : i32
      %last = arith.cmpi eq, %ki, %kl : i32
      scf.if %last {
        scf.if %is_tid0 {
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        gpu.barrier
        %o4 = arith.muli %tid, %i32 : i32
        %dst = llvm.getelementptr %c_base[%o4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %f, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier
        scf.if %is_tid0 {
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_base, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
      }
    }
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}

// -----

// The warpgroup's next tile writes its buffer before its wait_group.read:
// a warning.
gpu.module @per_warpgroup_without_store_wait {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_c: !llvm.ptr, %n_tiles: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %f = arith.constant 1.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    // A staging buffer per warpgroup; warpgroup w takes tiles w, w + 2, ...
    %c_off = arith.muli %wg, %i4096 : i32
    %c_mine = llvm.getelementptr %c_base[%c_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %fin = scf.while (%tile = %wg) : (i32) -> i32 {
      %more = arith.cmpi slt, %tile, %n_tiles : i32
      scf.condition(%more) %tile : i32
    } do {
    ^bb0(%tile: i32):
      %slot4 = arith.muli %wg_tid, %i32 : i32
      %dst = llvm.getelementptr %c_mine[%slot4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      // expected-warning @+1 {{writes shared memory that a bulk store may still be reading on some launches (thread 0 writes into its source): wait for it with cp.async.bulk.wait_group.read 0}}
      llvm.store %f, %dst : f32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      scf.if %wg_leader {
        // expected-note @+1 {{the bulk store that reads the buffer}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_mine, box[%i0, %tile] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
      %next = arith.addi %tile, %i2 : i32
      scf.yield %next : i32
    }
    scf.if %wg_leader {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}

// -----

// CUTLASS ping-pong's: the warpgroup leader's wait_group.read 0, then the
// warpgroup's named barrier, then the writes. Silent.
gpu.module @per_warpgroup_with_store_wait {
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map_c: !llvm.ptr, %n_tiles: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %f = arith.constant 1.0 : f32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    // A staging buffer per warpgroup; warpgroup w takes tiles w, w + 2, ...
    %c_off = arith.muli %wg, %i4096 : i32
    %c_mine = llvm.getelementptr %c_base[%c_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %fin = scf.while (%tile = %wg) : (i32) -> i32 {
      %more = arith.cmpi slt, %tile, %n_tiles : i32
      scf.condition(%more) %tile : i32
    } do {
    ^bb0(%tile: i32):
      scf.if %wg_leader {
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      %bar_id = arith.addi %wg, %i1 : i32
      nvvm.barrier id = %bar_id number_of_threads = %i128
      %slot4 = arith.muli %wg_tid, %i32 : i32
      %dst = llvm.getelementptr %c_mine[%slot4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      llvm.store %f, %dst : f32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      scf.if %wg_leader {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_mine, box[%i0, %tile] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
      %next = arith.addi %tile, %i2 : i32
      scf.yield %next : i32
    }
    scf.if %wg_leader {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
