// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_2x2_multicast.mlir (same public source: cutlass
// sm90_pipeline.hpp PipelineTmaAsync producer_tail, the 2 x 2 multicast
// release to dst_blockid_).
// BUG: producer_tail left out: the producer thread, and with it the CTA,
// can exit while the consumers of the A peer and the B peer still have
// releases to arrive on this CTA's empty barriers (mapa +
// mbarrier.arrive.shared::cluster into the shared memory of an exited CTA).
// The line left out has no place; the exit is marked (BUG), and a diagnostic
// on the remote arrival that can land after it (BUG-ALT) is accepted.
// Some launches fail: only where a peer's last release comes after this CTA
// has finished (timing), for any %k_tiles.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @cutlass_2x2_multicast(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %d: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %cx = arith.andi %rank, %i1 : i32
    %cy = arith.shrui %rank, %i1 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i3 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    %is_producer = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_producer {
      // mcast_mask_a: {cx, cx + 2}; mcast_mask_b: {2 cy, 2 cy + 1}.
      %ma0 = arith.shli %i1, %cx : i32
      %ma2 = arith.shli %ma0, %i2 : i32
      %ma = arith.ori %ma0, %ma2 : i32
      %mask_a = arith.trunci %ma : i32 to i16
      %sh = arith.muli %cy, %i2 : i32
      %mb = arith.shli %i3, %sh : i32
      %mask_b = arith.trunci %mb : i32 to i16
      %slice_a = arith.muli %cy, %i2048 : i32
      %slice_b = arith.muli %cx, %i2048 : i32
      %arow0 = arith.muli %cid, %i2 : i32
      %arow1 = arith.addi %arow0, %cx : i32
      %arow2 = arith.muli %arow1, %i64 : i32
      %ahalf = arith.muli %cy, %i32 : i32
      %arow = arith.addi %arow2, %ahalf : i32
      %bhalf = arith.muli %cx, %i32 : i32
      %brow0 = arith.muli %cy, %i64 : i32
      %brow = arith.addi %brow0, %bhalf : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %aoff = arith.addi %off, %slice_a : i32
        %boff = arith.addi %off, %slice_b : i32
        %adst = llvm.getelementptr %a_base[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %k, %i64 : i32
        mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %arow], bytes 2048 multicast %mask_a : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %brow], bytes 2048 multicast %mask_b : !mbarrier.group<2>, !llvm.ptr
      }
    }

    %is_consumer = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_consumer {
      // dst_blockid_: thread 0 -> this CTA, 1 -> rank ^ 2 (A peer), 2 -> rank ^ 1 (B peer).
      %is1 = arith.cmpi eq, %tid, %i1 : i32
      %is2 = arith.cmpi eq, %tid, %i2 : i32
      %pa = arith.xori %rank, %i2 : i32
      %pb = arith.xori %rank, %i1 : i32
      %t1 = arith.select %is1, %pa, %rank : i32
      %dst = arith.select %is2, %pb, %t1 : i32
      %signalling = arith.cmpi ult, %tid, %i3 : i32
      %target = mbarrier.remote_view %empty, %dst : !mbarrier.group<2>
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph {scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
        %aa = arith.extui %aa32 : i32 to i64
        %ash = arith.shrui %aa, %c16 : i64
        %da = arith.ori %ash, %desc_hi : i64
        %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
        %ba = arith.extui %ba32 : i32 to i64
        %bsh = arith.shrui %ba, %c16 : i64
        %db = arith.ori %bsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %da, %db, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        mbarrier.arrive %target[%s] if %signalling : !mbarrier.remote<2> // BUG-ALT
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %r0 = arith.muli %cid, %i4 : i32
      %r1 = arith.addi %r0, %rank : i32
      %r2 = arith.muli %r1, %i128 : i32
      %r = arith.addi %r2, %tid : i32
      %op = llvm.getelementptr %d[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return // BUG
  }
}
}
