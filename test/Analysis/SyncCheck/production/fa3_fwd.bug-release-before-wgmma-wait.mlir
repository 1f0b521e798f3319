// RUN: mbarrier-opt %s -o /dev/null
// (It parses and verifies; what the checker says of it: test/python/compiler/test_production_corpus.py.)
// BUG (buggy twin of fa3_fwd.mlir): the K stage is released before wgmma.wait_group.
// The op: the consumer's mbarrier.pipe.release of the K slot, moved above
// nvvm.wgmma.wait.group.sync.aligned 0 (marked // BUG).
// Some launches (expected: a warning): the release lets the producer refill the
// stage while the S = Q K^T wgmma may still read it; whether it does depends on
// timing (a wrong-results race, facebookexperimental/triton#1278), not a hang.
//
// Follows Dao-AILab/flash-attention hopper/flash_fwd_kernel_sm90.h (the
// persistent operator(): producer warpgroup + MMA warpgroups over a tile
// scheduler) with hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp (load(): Q once
// per tile on barrier_Q after NamedBarrier::sync(QueryEmpty), K and V through
// pipeline_k / pipeline_v; mma(): consumer_wait, wgmma, warpgroup_wait,
// consumer_release) and hopper/epilogue_fwd.hpp (O to smem, fence, per-
// warpgroup named barrier, TMA store, tma_store_wait).
// 384 threads: warp 0 is the producer (lane 0 issues the TMA loads), warpgroups
// 1 and 2 the consumers (64 query rows each). The kv-block loop bound is the
// kernel parameter %n_kv; the tile loop is a persistent scf.while
// (tile = blockIdx.x; tile < %n_tiles; tile += gridDim.x). The pipe states
// and the Q parity are carried across tiles.
!P = !mbarrier.pipe<2, tma, consumers = 2>
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_q() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_v() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_o() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  mbarrier.named_barrier @query_empty
  mbarrier.named_barrier @epilogue_wg1
  mbarrier.named_barrier @epilogue_wg2
  gpu.func @fa3_fwd(%map_q: !llvm.ptr, %map_k: !llvm.ptr, %map_v: !llvm.ptr, %map_o: !llvm.ptr,
                    %n_tiles: i32, %n_kv: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %lane = arith.remui %tid, %i32 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32

    // Thread 0 initializes barrier_Q and both rings; fence + CTA barrier.
    %qg = mbarrier.alloc : !mbarrier.group<1>
    %kg = mbarrier.alloc : !mbarrier.group<4>
    %vg = mbarrier.alloc : !mbarrier.group<4>
    %kp = mbarrier.pipe.create %kg : !mbarrier.group<4> -> !P
    %vp = mbarrier.pipe.create %vg : !mbarrier.group<4> -> !P
    scf.if %is_tid0 {
      mbarrier.init %qg[%c0], %i1 : !mbarrier.group<1>
      mbarrier.pipe.init %kp : !P
      mbarrier.pipe.init %vp : !P
    }
    mbarrier.fence_init
    gpu.barrier

    %q_base = llvm.mlir.addressof @smem_q : !llvm.ptr<3>
    %k_base = llvm.mlir.addressof @smem_k : !llvm.ptr<3>
    %v_base = llvm.mlir.addressof @smem_v : !llvm.ptr<3>
    %o_base = llvm.mlir.addressof @smem_o : !llvm.ptr<3>
    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    %is_consumer = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_producer {
      %lane0 = arith.cmpi eq, %lane, %i0 : i32
      %ks0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %vs0 = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
      %fin:4 = scf.while (%tile = %bid, %trip = %i0, %ks = %ks0, %vs = %vs0)
          : (i32, i32, !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>)
          -> (i32, i32, !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %trip, %ks, %vs : i32, i32, !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
      } do {
      ^bb0(%tile: i32, %trip: i32, %ks: !mbarrier.pipe_state<producer>, %vs: !mbarrier.pipe_state<producer>):
        // Q of the previous tile is no longer read by either consumer.
        %later = arith.cmpi ugt, %trip, %i0 : i32
        scf.if %later {
          mbarrier.bar_sync @query_empty threads 288
        }
        %row = arith.muli %tile, %i128 : i32
        // Lane 0 issues every load of the tile; the warp carries the states.
        %kv:2 = scf.if %lane0 -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>) {
          mbarrier.arrive_expect_tx %qg[%c0], %i4096 : !mbarrier.group<1>
          mbarrier.cp_async_bulk_tensor %qg[%c0], %q_base, %map_q[%i0, %row], bytes 4096 : !mbarrier.group<1>, !llvm.ptr
          %r:2 = scf.for %j = %i0 to %n_kv step %i1 iter_args(%k = %ks, %v = %vs)
              -> (!mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>) : i32 {
            %kslot, %knext = mbarrier.pipe.acquire %kp, %k : !P
            %kstage = mbarrier.pipe.stage %kslot : !mbarrier.slot<producer>
            %kst = arith.index_cast %kstage : index to i32
            %koff = arith.muli %kst, %i4096 : i32
            %kdst = llvm.getelementptr %k_base[%koff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %kvrow = arith.muli %j, %i64 : i32
            mbarrier.pipe.cp_async_bulk_tensor %kp[%kslot], %kdst, %map_k[%i0, %kvrow], bytes 4096 : !P, !llvm.ptr
            mbarrier.pipe.commit %kp[%kslot], bytes %i4096 : !P
            %vslot, %vnext = mbarrier.pipe.acquire %vp, %v : !P
            %vstage = mbarrier.pipe.stage %vslot : !mbarrier.slot<producer>
            %vst = arith.index_cast %vstage : index to i32
            %voff = arith.muli %vst, %i4096 : i32
            %vdst = llvm.getelementptr %v_base[%voff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            mbarrier.pipe.cp_async_bulk_tensor %vp[%vslot], %vdst, %map_v[%i0, %kvrow], bytes 4096 : !P, !llvm.ptr
            mbarrier.pipe.commit %vp[%vslot], bytes %i4096 : !P
            scf.yield %knext, %vnext : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
          }
          scf.yield %r#0, %r#1 : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
        } else {
          scf.yield %ks, %vs : !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
        }
        %tile_next = arith.addi %tile, %grid : i32
        %trip_next = arith.addi %trip, %i1 : i32
        scf.yield %tile_next, %trip_next, %kv#0, %kv#1 : i32, i32, !mbarrier.pipe_state<producer>, !mbarrier.pipe_state<producer>
      }
      // Every stage released before the producer exits.
      scf.if %lane0 {
        mbarrier.pipe.tail %kp, %fin#2 : !P
        mbarrier.pipe.tail %vp, %fin#3 : !P
      }
    }

    scf.if %is_consumer {
      %wg_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %second = arith.cmpi eq, %wg, %i2 : i32
      %half = arith.subi %wg, %i1 : i32
      %o_off = arith.muli %half, %i4096 : i32
      %o_mine = llvm.getelementptr %o_base[%o_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %o_addr = llvm.ptrtoint %o_mine : !llvm.ptr<3> to i32
      %q_addr32 = llvm.ptrtoint %q_base : !llvm.ptr<3> to i32
      %q_addr = arith.extui %q_addr32 : i32 to i64
      %q_sh = arith.shrui %q_addr, %c16 : i64
      %desc_q = arith.ori %q_sh, %desc_hi : i64
      %ks0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %vs0 = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
      %z = llvm.mlir.zero : !acc
      %fin:4 = scf.while (%tile = %bid, %trip = %i0, %ks = %ks0, %vs = %vs0)
          : (i32, i32, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>)
          -> (i32, i32, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>) {
        %more = arith.cmpi slt, %tile, %n_tiles : i32
        scf.condition(%more) %tile, %trip, %ks, %vs : i32, i32, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>
      } do {
      ^bb0(%tile: i32, %trip: i32, %ks: !mbarrier.pipe_state<consumer>, %vs: !mbarrier.pipe_state<consumer>):
        // This warpgroup finished every read of the previous tile's Q.
        %later = arith.cmpi ugt, %trip, %i0 : i32
        scf.if %later {
          mbarrier.bar_arrive @query_empty threads 288
        }
        %qpar = arith.andi %trip, %i1 : i32
        mbarrier.wait %qg[%c0], %qpar : !mbarrier.group<1>
        %kv:3 = scf.for %j = %i0 to %n_kv step %i1 iter_args(%k = %ks, %v = %vs, %o = %z)
            -> (!mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>, !acc) : i32 {
          %kslot, %knext = mbarrier.pipe.wait %kp, %k : !P
          %kstage = mbarrier.pipe.stage %kslot : !mbarrier.slot<consumer>
          %kst = arith.index_cast %kstage : index to i32
          %koff = arith.muli %kst, %i4096 : i32
          %ksrc = llvm.getelementptr %k_base[%koff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %ka32 = llvm.ptrtoint %ksrc : !llvm.ptr<3> to i32
          %ka = arith.extui %ka32 : i32 to i64
          %ksh = arith.shrui %ka, %c16 : i64
          %desc_k = arith.ori %ksh, %desc_hi : i64
          nvvm.wgmma.fence.aligned
          %s = nvvm.wgmma.mma_async %desc_q, %desc_k, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          mbarrier.pipe.release %kp[%kslot] if %wg_leader : !P // BUG
          nvvm.wgmma.wait.group.sync.aligned 0
          %vslot, %vnext = mbarrier.pipe.wait %vp, %v : !P
          %vstage = mbarrier.pipe.stage %vslot : !mbarrier.slot<consumer>
          %vst = arith.index_cast %vstage : index to i32
          %voff = arith.muli %vst, %i4096 : i32
          %vsrc = llvm.getelementptr %v_base[%voff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %va32 = llvm.ptrtoint %vsrc : !llvm.ptr<3> to i32
          %va = arith.extui %va32 : i32 to i64
          %vsh = arith.shrui %va, %c16 : i64
          %desc_v = arith.ori %vsh, %desc_hi : i64
          nvvm.wgmma.fence.aligned
          %o2 = nvvm.wgmma.mma_async %desc_q, %desc_v, %o, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 0
          mbarrier.pipe.release %vp[%vslot] if %wg_leader : !P
          scf.yield %knext, %vnext, %o2 : !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>, !acc
        }
        // Epilogue: the previous tile's store finished reading the staging
        // buffer; the warpgroup writes O; fence; its leader stores.
        scf.if %wg_leader {
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg2 threads 128
        } else {
          mbarrier.bar_sync @epilogue_wg1 threads 128
        }
        %e = llvm.extractvalue %kv#2[0] : !acc
        %slot4 = arith.muli %wg_tid, %i32 : i32
        %dst = llvm.getelementptr %o_mine[%slot4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        scf.if %second {
          mbarrier.bar_sync @epilogue_wg2 threads 128
        } else {
          mbarrier.bar_sync @epilogue_wg1 threads 128
        }
        scf.if %wg_leader {
          %row0 = arith.muli %tile, %i128 : i32
          %hrow = arith.muli %half, %i64 : i32
          %orow = arith.addi %row0, %hrow : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_o, %o_mine, box[%i0, %orow] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
        %tile_next = arith.addi %tile, %grid : i32
        %trip_next = arith.addi %trip, %i1 : i32
        scf.yield %tile_next, %trip_next, %kv#0, %kv#1 : i32, i32, !mbarrier.pipe_state<consumer>, !mbarrier.pipe_state<consumer>
      }
      scf.if %wg_leader {
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}
}
