// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry fastcu_tma_store_epilogue(
// Follows pranjalssh/fast.cu examples/matmul/matmul_11.cuh (matmulKernel11:
// the persistent warp-specialized H100 GEMM whose consumers stage C in
// shared memory (sC) and store it with one TMA store per tile: every
// consumer thread writes its fragment into sC, "bar.sync 1, 256" over the
// two consumer warpgroups, thread 128 issues store_async
// (cp.async.bulk.tensor shared::cta -> global) and
// cp.async.bulk.commit_group), here with one CTA per cluster (CLUSTER_M = 1)
// and QSIZE = 3 stages (full count 1, empty count num_consumers = 2, the
// consumers' up-front arrival on every empty stage). Two orderings that
// kernel 11 leaves implicit are written out: thread 128's
// cp.async.bulk.wait_group.read 0 (the previous tile's store has read sC)
// is followed by the same named barrier before anyone rewrites sC, and each
// writer's fence.proxy.async precedes the barrier before the store; thread
// 128 waits for its last store's read before exit. %k_tiles >= 1;
// %num_tiles >= the grid.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  mbarrier.named_barrier @epi id 1
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<1024 x i8>
  gpu.func @fastcu_tma_store_epilogue(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i4 = arith.constant 4 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %wtid = arith.remui %tid, %i128 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %full = mbarrier.alloc : !mbarrier.group<3>
    %empty = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %empty[%s], %i2 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>

    // Producer: thread 0.
    scf.if %is_tid0 {
      %f:2 = scf.while (%tile = %bid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %row = arith.muli %tile, %i64 : i32
        %cn = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0) -> (i32) : i32 {
          %s32 = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %p = arith.andi %lap, %i1 : i32
          mbarrier.wait %empty[%s], %p : !mbarrier.group<3>
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<3>
          %off = arith.muli %s32, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %kt, %i64 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1 : i32
        }
        %next = arith.addi %tile, %grid : i32
        scf.yield %next, %cn : i32, i32
      }
    }

    // Consumers: warpgroups 1 and 2; thread 0 of each releases.
    %is_consumer = arith.cmpi uge, %tid, %i128 : i32
    scf.if %is_consumer {
      %releasing = arith.cmpi eq, %wtid, %i0 : i32
      %is_store = arith.cmpi eq, %tid, %i128 : i32
      %ct = arith.subi %tid, %i128 : i32
      %cofs = arith.muli %ct, %i4 : i32
      %my_c = llvm.getelementptr %c_base[%cofs] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.for %q = %c0 to %c3 step %c1 {
        mbarrier.arrive %empty[%q] if %releasing : !mbarrier.group<3>
      }
      %f:2 = scf.while (%tile = %bid, %cnt0 = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %tile, %num_tiles : i32
        scf.condition(%more) %tile, %cnt0 : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt0: i32):
        %z = llvm.mlir.zero : !acc
        %r:2 = scf.for %kt = %i0 to %k_tiles step %i1 iter_args(%cnt = %cnt0, %a = %z) -> (i32, !acc) : i32 {
          %s32 = arith.remui %cnt, %i3 : i32
          %s = arith.index_cast %s32 : i32 to index
          %lap = arith.divui %cnt, %i3 : i32
          %p = arith.andi %lap, %i1 : i32
          mbarrier.wait %full[%s], %p : !mbarrier.group<3>
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
          mbarrier.arrive %empty[%s] if %releasing : !mbarrier.group<3>
          %cnt1 = arith.addi %cnt, %i1 : i32
          scf.yield %cnt1, %a2 : i32, !acc
        }
        // Epilogue: the previous tile's store has read sC, for everyone.
        scf.if %is_store {
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        mbarrier.bar_sync @epi threads 256
        %e = llvm.extractvalue %r#1[0] : !acc
        llvm.store %e, %my_c : f32, !llvm.ptr<3>
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        mbarrier.bar_sync @epi threads 256
        scf.if %is_store {
          %crow = arith.muli %tile, %i64 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_base, box[%i0, %crow] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
        %next = arith.addi %tile, %grid : i32
        scf.yield %next, %r#0 : i32, i32
      }
      scf.if %is_store {
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
    }
    gpu.return
  }
}
}
