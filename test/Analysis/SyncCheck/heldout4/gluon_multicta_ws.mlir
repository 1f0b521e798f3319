// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry gluon_multicta_ws(
// Follows triton-lang/triton python/tutorials/gluon/14-multicta.py
// ("Multi-CTA synchronization": a barrier shared by a group of CTAs is
// initialized on the lead CTA only, with count x the CTAs of the group;
// mbarrier.arrive in every CTA of the group arrives on the lead CTA's
// barrier, and only the lead CTA waits on it; every barrier used across
// CTAs is initialized before any CTA uses it, by fence.mbarrier_init +
// a cluster barrier; "cluster.arrive / cluster.wait must be executed by all
// threads in the kernel ... they cannot be used inside a warp_specialize
// block") with the warp-specialized load / MMA partitions of
// 08-warp-specialization.py. A 2 x 1 cluster: B is loaded once by the lead
// CTA (rank 0) and multicast to both; each CTA loads its own A. Per stage,
// each CTA's ready barrier (count 1) expects A + B (8192 bytes) and its
// local empty barrier (count 1) frees its A; the lead's b_empty barrier
// (count 1 x 2 CTAs) gets one arrival from the MMA partition of each CTA,
// and only the lead's load partition waits it before multicasting the next
// B. The cluster barriers (after the inits, and before exit, since the
// other CTA arrives on the lead's b_empty) run outside the partitions, in
// every thread. 160 threads: warpgroup 0 is the MMA partition (thread 0
// releases), thread 128 the load partition's issuing lane. 2 stages;
// %k_tiles >= 1.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  gpu.func @gluon_multicta_ws(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %c: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %is_lead = arith.cmpi eq, %rank, %i0 : i32
    %cid_x = gpu.cluster_id x
    %cid = arith.index_cast %cid_x : index to i32
    %ready = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    %b_empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %ready[%s], %i1 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<2>
      }
      // The cross-CTA barrier lives on the lead CTA: count 1 x 2 CTAs.
      scf.if %is_lead {
        scf.for %s = %c0 to %c2 step %c1 {
          mbarrier.init %b_empty[%s], %i2 : !mbarrier.group<2>
        }
      }
    }
    mbarrier.fence_init
    nvvm.cluster.arrive.relaxed
    nvvm.cluster.wait
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %m2 = arith.muli %cid, %i2 : i32
    %mblk = arith.addi %m2, %rank : i32
    %arow = arith.muli %mblk, %i64 : i32
    %brow = arith.muli %cid, %i64 : i32

    // Load partition.
    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      %mask_b = arith.constant 3 : i16
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<2>
        scf.if %is_lead {
          mbarrier.wait %b_empty[%s], %ph {phase_offset = 1 : i32, scope = #mbarrier.scope<cluster>} : !mbarrier.group<2>
        }
        mbarrier.arrive_expect_tx %ready[%s], %i8192 : !mbarrier.group<2>
        %off = arith.muli %s32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %k, %i64 : i32
        mbarrier.cp_async_bulk_tensor %ready[%s], %adst, %map_a[%col, %arow], bytes 4096 : !mbarrier.group<2>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %ready[%s], %bdst, %map_b[%col, %brow], bytes 4096 multicast %mask_b if %is_lead : !mbarrier.group<2>, !llvm.ptr
      }
    }

    // MMA partition.
    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      %lead_b_empty = mbarrier.remote_view %b_empty, cta_rank 0 : !mbarrier.group<2>
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %ready[%s], %ph : !mbarrier.group<2>
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
        mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<2>
        mbarrier.arrive %lead_b_empty[%s] if %is_tid0 : !mbarrier.remote<2>
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %o0 = arith.muli %mblk, %i128 : i32
      %o = arith.addi %o0, %tid : i32
      %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    // Outside the partitions: the lead outlives the other CTA's arrivals.
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
}
