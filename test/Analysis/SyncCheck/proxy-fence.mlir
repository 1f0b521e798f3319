// Class 19: generic-proxy stores to shared memory that an async-proxy op
// reads (a wgmma's matrix descriptor, a bulk store's source: the same
// global), handed to the reader by an mbarrier arrival with no
// fence.proxy.async between the stores and the arrival. The barrier's
// release/acquire orders the generic proxy only: the reader may see stale
// data in some launches (a warning). FA3's FP8 V transpose
// (hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp: transpose_V's stores,
// cutlass::arch::fence_view_async_shared(), pipeline_vt.producer_commit) and
// CUTLASS's epilogue (tma_store_fence() before the TMA store) are the
// correct shapes. A bulk store that reads the written bytes after the
// stores, past a thread barrier only (a named barrier, bar.sync) or in the
// storing thread itself, with no fence: a warning at the reader.
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-check-sync

// FA3's V transpose without fence_view_async_shared: a warning at the store.
gpu.module @transpose_without_proxy_fence {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      // expected-warning @+1 {{stores to shared memory (@vt) through the generic proxy, which nvvm.wgmma.mma_async reads through the async proxy, and the arrival that hands it to the reader follows with no fence.proxy.async in between: the barrier's release and acquire order the generic proxy only, so the reader may see stale data (put fence.proxy.async.shared::cta, CUTLASS's fence_view_async_shared(), after the stores and before the arrival)}}
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      // expected-note @+1 {{handed off here}}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %a32 = llvm.ptrtoint %vt : !llvm.ptr<3> to i32
      %a = arith.extui %a32 : i32 to i64
      %sh = arith.shrui %a, %c16 : i64
      %desc_vt = arith.ori %sh, %desc_hi : i64
      %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      // expected-note @+1 {{read through the async proxy here}}
      %o = nvvm.wgmma.mma_async %desc_p, %desc_vt, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// The same with fence.proxy.async.shared::cta before the commit (FA3): silent.
gpu.module @transpose_with_proxy_fence {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %a32 = llvm.ptrtoint %vt : !llvm.ptr<3> to i32
      %a = arith.extui %a32 : i32 to i64
      %sh = arith.shrui %a, %c16 : i64
      %desc_vt = arith.ori %sh, %desc_hi : i64
      %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      %o = nvvm.wgmma.mma_async %desc_p, %desc_vt, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// The fence in inline PTX (cutlass::arch::fence_view_async_shared's asm): silent.
gpu.module @transpose_with_inline_proxy_fence {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", "" : () -> ()
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %a32 = llvm.ptrtoint %vt : !llvm.ptr<3> to i32
      %a = arith.extui %a32 : i32 to i64
      %sh = arith.shrui %a, %c16 : i64
      %desc_vt = arith.ori %sh, %desc_hi : i64
      %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      %o = nvvm.wgmma.mma_async %desc_p, %desc_vt, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// A branch without fences or arrivals between the stores and the arrival: still a warning.
gpu.module @unrelated_branch_before_the_arrival {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      // expected-warning @+1 {{stores to shared memory (@vt) through the generic proxy, which nvvm.wgmma.mma_async reads through the async proxy, and the arrival that hands it to the reader follows with no fence.proxy.async in between: the barrier's release and acquire order the generic proxy only, so the reader may see stale data (put fence.proxy.async.shared::cta, CUTLASS's fence_view_async_shared(), after the stores and before the arrival)}}
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      %is_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      scf.if %is_leader {
        %y = arith.addi %x, %x : i32
      }
      // expected-note @+1 {{handed off here}}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %a32 = llvm.ptrtoint %vt : !llvm.ptr<3> to i32
      %a = arith.extui %a32 : i32 to i64
      %sh = arith.shrui %a, %c16 : i64
      %desc_vt = arith.ori %sh, %desc_hi : i64
      %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      // expected-note @+1 {{read through the async proxy here}}
      %o = nvvm.wgmma.mma_async %desc_p, %desc_vt, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
    }
    gpu.return
  }
}

// -----

// A staging buffer written by one warpgroup, handed by an mbarrier to the
// warpgroup whose thread issues the TMA store, no tma_store_fence(): a warning.
gpu.module @staging_read_by_bulk_store_without_fence {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      // expected-warning @+1 {{stores to shared memory (@vt) through the generic proxy, which nvvm.cp.async.bulk.tensor.global.shared.cta reads through the async proxy, and the arrival that hands it to the reader follows with no fence.proxy.async in between: the barrier's release and acquire order the generic proxy only, so the reader may see stale data (put fence.proxy.async.shared::cta, CUTLASS's fence_view_async_shared(), after the stores and before the arrival)}}
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      // expected-note @+1 {{handed off here}}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %is_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      scf.if %is_leader {
        // expected-note @+1 {{read through the async proxy here}}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %vt, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}

// -----

// The same with the fence (CUTLASS's tma_store_fence()): silent.
gpu.module @staging_read_by_bulk_store_with_fence {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %is_leader = arith.cmpi eq, %wg_tid, %i0 : i32
      scf.if %is_leader {
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %vt, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0
      }
    }
    gpu.return
  }
}

// -----

// The consumer reads the stores with ld.shared (generic proxy): no fence is
// needed. Silent.
gpu.module @read_through_the_generic_proxy {
  llvm.mlir.global internal @vt() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @k(%desc_p: i64, %map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i4 = arith.constant 4 : i32
    %i128 = arith.constant 128 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %full = mbarrier.alloc : !mbarrier.group<1>
    scf.if %is_tid0 {
      mbarrier.init %full[%c0], %i128 : !mbarrier.group<1>
    }
    mbarrier.fence_init
    gpu.barrier
    %vt = llvm.mlir.addressof @vt : !llvm.ptr<3>
    %is_writer = arith.cmpi eq, %wg, %i0 : i32
    scf.if %is_writer {
      %off = arith.muli %wg_tid, %i4 : i32
      %dst = llvm.getelementptr %vt[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = arith.constant 7 : i32
      llvm.store %x, %dst : i32, !llvm.ptr<3>
      mbarrier.arrive %full[%c0] : !mbarrier.group<1>
    } else {
      mbarrier.wait %full[%c0], %i0 : !mbarrier.group<1>
      %src = llvm.getelementptr %vt[%wg_tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %v = llvm.load %src : !llvm.ptr<3> -> i8
    }
    gpu.return
  }
}

// -----

// CUTLASS's epilogue store() without fence_view_async_shared(): the
// warpgroup writes the subtile, syncs on the epilogue's named barrier and
// thread 0 issues the TMA store. The barrier orders the generic proxy only:
// a warning at the store.
gpu.module @epilogue_named_barrier_without_proxy_fence {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  mbarrier.named_barrier @epilogue_barrier
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i16 = arith.constant 16 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %off = arith.muli %tid, %i16 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant dense<1.0> : vector<4xf32>
    // expected-note @+1 {{the generic-proxy store}}
    llvm.store %v, %dst : vector<4xf32>, !llvm.ptr<3>
    // expected-note @+1 {{the thread barrier}}
    mbarrier.bar_sync @epilogue_barrier threads 128
    scf.if %is_tid0 {
      // expected-warning @+1 {{reads shared memory (@smem_d) through the async proxy that a store through the generic proxy wrote before it, past a thread barrier (bar.sync, a named barrier), with no fence.proxy.async in between: the barrier orders the generic proxy only, so the read may see stale data (put fence.proxy.async.shared::cta, CUTLASS's fence_view_async_shared(), after the stores and before the barrier)}}
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// The same with the fence before the named barrier (CUTLASS): silent.
gpu.module @epilogue_proxy_fence_then_named_barrier {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  mbarrier.named_barrier @epilogue_barrier
  gpu.func @k(%map: !llvm.ptr) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i16 = arith.constant 16 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    %off = arith.muli %tid, %i16 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant dense<1.0> : vector<4xf32>
    llvm.store %v, %dst : vector<4xf32>, !llvm.ptr<3>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    mbarrier.bar_sync @epilogue_barrier threads 128
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// One thread writes the buffer and stores it itself, no fence: program
// order does not order the proxies. A warning at the store.
gpu.module @same_thread_without_proxy_fence {
  llvm.mlir.global internal @smem_d() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
  gpu.func @k(%data: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i16 = arith.constant 16 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem_d : !llvm.ptr<3>
    scf.if %is_tid0 {
      %v = arith.constant dense<1.0> : vector<4xf32>
      // expected-note @+1 {{the generic-proxy store}}
      llvm.store %v, %smem : vector<4xf32>, !llvm.ptr<3>
      // expected-warning @+1 {{reads shared memory (@smem_d) through the async proxy that a store through the generic proxy wrote before it with no fence.proxy.async in between: program order does not order the proxies, so the read may see stale data (put fence.proxy.async.shared::cta, CUTLASS's fence_view_async_shared(), after the stores and before the read)}}
      nvvm.cp.async.bulk.global.shared.cta %data, %smem, %i16 : !llvm.ptr<1>, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

// -----

// One global for every buffer (dynamic shared memory): the threads write a
// dQ tile at byte 4096 up, meet, and a wgmma reads its operands and thread
// 0's TMA store reads a staging tile at byte 0 of the same global. The
// store's smallest box (16 bytes) holds none of the written bytes, and a
// wgmma's descriptor is not compared byte for byte: silent.
gpu.module @other_bytes_of_one_global {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @k(%map: !llvm.ptr, %desc_b: i64) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i16 = arith.constant 16 : i32
    %i4096 = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %o = arith.muli %tid, %i16 : i32
    %off = arith.addi %o, %i4096 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %v = arith.constant dense<1.0> : vector<4xf32>
    llvm.store %v, %dst : vector<4xf32>, !llvm.ptr<3>
    gpu.barrier
    %a32 = llvm.ptrtoint %smem : !llvm.ptr<3> to i32
    %a = arith.extui %a32 : i32 to i64
    %sh = arith.shrui %a, %c16 : i64
    %desc_a = arith.ori %sh, %desc_hi : i64
    %z = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
    nvvm.wgmma.fence.aligned
    %r = nvvm.wgmma.mma_async %desc_a, %desc_b, %z, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.tensor.global.shared.cta %map, %smem, box[%i0, %i0] : !llvm.ptr, !llvm.ptr<3>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}
