// RUN: mbarrier-opt %s -o /dev/null
// Buggy twin of triton_persistent_flat.mlir (same public source: triton
// python/tutorials/09-persistent-matmul.py as the sm_90 pipeliner lowers it).
// BUG: the epilogue writes the staging buffer without the
// async_tma_store_wait that retires the previous tile's TMA store (the store
// wait only at the kernel's end): the next tile's local_store can overwrite
// C while the bulk copy of the previous tile still reads it.
// Some launches fail (wrong values in C, when a CTA has two or more tiles
// and the previous store has not finished reading; one tile per CTA is right).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @smem_c() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
  gpu.func @triton_persistent_flat(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %map_c: !llvm.ptr,
                                   %n_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    // tiles_per_SM = ceil((n_tiles - pid) / num_SMs), 0 when pid >= n_tiles.
    %left = arith.subi %n_tiles, %bid : i32
    %gm1 = arith.subi %grid, %i1 : i32
    %up = arith.addi %left, %gm1 : i32
    %tps0 = arith.divsi %up, %grid : i32
    %tps = arith.maxsi %tps0, %i0 : i32
    %total = arith.muli %tps, %k_tiles : i32
    %full = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %full[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>
    %c_base = llvm.mlir.addressof @smem_c : !llvm.ptr<3>
    // Prologue: iterations 0 and 1.
    scf.if %is_tid0 {
      scf.for %i = %i0 to %i2 step %i1 : i32 {
        %live = arith.cmpi slt, %i, %total : i32
        scf.if %live {
          %s = arith.index_cast %i : i32 to index
          %t = arith.divui %i, %k_tiles : i32
          %k = arith.remui %i, %k_tiles : i32
          %tg = arith.muli %t, %grid : i32
          %tile = arith.addi %bid, %tg : i32
          %row = arith.muli %tile, %i64 : i32
          %col = arith.muli %k, %i64 : i32
          %off = arith.muli %i, %i4096 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          mbarrier.arrive_expect_tx %full[%s], %i8192 : !mbarrier.group<3>
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        }
      }
    }
    %z = llvm.mlir.zero : !acc
    %r:2 = scf.for %i = %i0 to %total step %i1 iter_args(%acc = %z, %tile = %bid) -> (!acc, i32) : i32 {
      %s32 = arith.remui %i, %i3 : i32
      %s = arith.index_cast %s32 : i32 to index
      %lap = arith.divui %i, %i3 : i32
      %ph = arith.andi %lap, %i1 : i32
      mbarrier.wait %full[%s], %ph : !mbarrier.group<3>
      %off = arith.muli %s32, %i4096 : i32
      %asrc = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %bsrc = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
      %aa = arith.extui %aa32 : i32 to i64
      %ash = arith.shrui %aa, %c16 : i64
      %desc_a = arith.ori %ash, %desc_hi : i64
      %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
      %ba = arith.extui %ba32 : i32 to i64
      %bsh = arith.shrui %ba, %c16 : i64
      %desc_b = arith.ori %bsh, %desc_hi : i64
      nvvm.wgmma.fence.aligned
      %acc2 = nvvm.wgmma.mma_async %desc_a, %desc_b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 1
      gpu.barrier
      // The load of iteration i + 2 goes to the stage of iteration i - 1.
      %j = arith.addi %i, %i2 : i32
      %more = arith.cmpi slt, %j, %total : i32
      %go = arith.andi %more, %is_tid0 : i1
      scf.if %go {
        %js32 = arith.remui %j, %i3 : i32
        %js = arith.index_cast %js32 : i32 to index
        %t = arith.divui %j, %k_tiles : i32
        %k = arith.remui %j, %k_tiles : i32
        %tg = arith.muli %t, %grid : i32
        %jtile = arith.addi %bid, %tg : i32
        %row = arith.muli %jtile, %i64 : i32
        %col = arith.muli %k, %i64 : i32
        %joff = arith.muli %js32, %i4096 : i32
        %adst = llvm.getelementptr %a_base[%joff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %bdst = llvm.getelementptr %b_base[%joff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        mbarrier.arrive_expect_tx %full[%js], %i8192 : !mbarrier.group<3>
        mbarrier.cp_async_bulk_tensor %full[%js], %adst, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %full[%js], %bdst, %map_b[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
      // Epilogue at the tile's last k-step.
      %ki = arith.remui %i, %k_tiles : i32
      %kl = arith.subi %k_tiles, %i1 : i32
      %last = arith.cmpi eq, %ki, %kl : i32
      %out:2 = scf.if %last -> (!acc, i32) {
        nvvm.wgmma.wait.group.sync.aligned 0
        gpu.barrier
        %e = llvm.extractvalue %acc2[0] : !acc
        %o4 = arith.muli %tid, %i32 : i32
        %dst = llvm.getelementptr %c_base[%o4] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        llvm.store %e, %dst : f32, !llvm.ptr<3> // BUG
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier
        scf.if %is_tid0 {
          %row = arith.muli %tile, %i64 : i32
          nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %c_base, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
        }
        %tnext = arith.addi %tile, %grid : i32
        scf.yield %z, %tnext : !acc, i32
      } else {
        scf.yield %acc2, %tile : !acc, i32
      }
      scf.yield %out#0, %out#1 : !acc, i32
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    scf.if %is_tid0 {
      nvvm.cp.async.bulk.wait_group 0
    }
    gpu.return
  }
}
}
