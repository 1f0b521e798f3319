// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of triton_nvws_aref.mlir (same public source: triton
// third_party/nvidia/lib/Dialect/NVWS/Transforms/LowerAref.cpp, InsertAref.cpp).
// BUG: nvws.aref.get.exit is lowered before the warpgroup_mma_wait of the
// wgmma that reads the stage (the async op of the get is not waited for:
// facebookexperimental/triton#1278's shape): the load partition may overwrite
// A/B of the stage while the tensor core still reads them. A diagnostic on
// the wgmma wait (BUG-ALT) is accepted.
// Some launches fail (wrong values when the refill lands before the wgmma's
// reads; no hang).
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<24576 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<24576 x i8>
  gpu.func @triton_nvws_aref(%desc_a: !llvm.ptr, %desc_b: !llvm.ptr, %c: !llvm.ptr<1>, %num_tiles: i32, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i8192 = arith.constant 8192 : i32
    %i16384 = arith.constant 16384 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %grid_x = gpu.grid_dim x
    %grid = arith.index_cast %grid_x : index to i32
    %empty = mbarrier.alloc : !mbarrier.group<3>
    %full = mbarrier.alloc : !mbarrier.group<3>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c3 step %c1 {
        mbarrier.init %empty[%s], %i1 : !mbarrier.group<3>
        mbarrier.init %full[%s], %i1 : !mbarrier.group<3>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %a_base = llvm.mlir.addressof @smem_a : !llvm.ptr<3>
    %b_base = llvm.mlir.addressof @smem_b : !llvm.ptr<3>

    // Load partition: nvws.aref.put.enter / put.exit.
    %is_load = arith.cmpi eq, %tid, %i128 : i32
    scf.if %is_load {
      %fin:2 = scf.for %tile = %bid to %num_tiles step %grid iter_args(%st0 = %i0, %ph0 = %i0) -> (i32, i32) : i32 {
        %row = arith.muli %tile, %i128 : i32
        %r:2 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%st = %st0, %ph = %ph0) -> (i32, i32) : i32 {
          %s = arith.index_cast %st : i32 to index
          mbarrier.wait %empty[%s], %ph {phase_offset = 1 : i32} : !mbarrier.group<3>
          mbarrier.arrive_expect_tx %full[%s], %i16384 : !mbarrier.group<3>
          %off = arith.muli %st, %i8192 : i32
          %adst = llvm.getelementptr %a_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %bdst = llvm.getelementptr %b_base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %col = arith.muli %k, %i64 : i32
          mbarrier.cp_async_bulk_tensor %full[%s], %adst, %desc_a[%col, %row], bytes 8192 : !mbarrier.group<3>, !llvm.ptr
          mbarrier.cp_async_bulk_tensor %full[%s], %bdst, %desc_b[%col, %row], bytes 8192 : !mbarrier.group<3>, !llvm.ptr
          %st1 = arith.addi %st, %i1 : i32
          %wrap = arith.cmpi eq, %st1, %i3 : i32
          %st2 = arith.select %wrap, %i0, %st1 : i32
          %phx = arith.xori %ph, %i1 : i32
          %ph2 = arith.select %wrap, %phx, %ph : i32
          scf.yield %st2, %ph2 : i32, i32
        }
        scf.yield %r#0, %r#1 : i32, i32
      }
    }

    // Default partition: nvws.aref.get.enter / get.exit around the wgmma.
    %is_mma = arith.cmpi ult, %tid, %i128 : i32
    scf.if %is_mma {
      %z = llvm.mlir.zero : !acc
      %fin:2 = scf.for %tile = %bid to %num_tiles step %grid iter_args(%st0 = %i0, %ph0 = %i0) -> (i32, i32) : i32 {
        %r:3 = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%st = %st0, %ph = %ph0, %acc = %z) -> (i32, i32, !acc) : i32 {
          %s = arith.index_cast %st : i32 to index
          mbarrier.wait %full[%s], %ph : !mbarrier.group<3>
          %off = arith.muli %st, %i8192 : i32
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
          %acc2 = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          mbarrier.arrive %empty[%s] if %is_tid0 : !mbarrier.group<3> // BUG
          nvvm.wgmma.wait.group.sync.aligned 0 // BUG-ALT
          %st1 = arith.addi %st, %i1 : i32
          %wrap = arith.cmpi eq, %st1, %i3 : i32
          %st2 = arith.select %wrap, %i0, %st1 : i32
          %phx = arith.xori %ph, %i1 : i32
          %ph2 = arith.select %wrap, %phx, %ph : i32
          scf.yield %st2, %ph2, %acc2 : i32, i32, !acc
        }
        %e = llvm.extractvalue %r#2[0] : !acc
        %o0 = arith.muli %tile, %i128 : i32
        %o = arith.addi %o0, %tid : i32
        %op = llvm.getelementptr %c[%o] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %e, %op : f32, !llvm.ptr<1>
        scf.yield %r#0, %r#1 : i32, i32
      }
    }
    gpu.return
  }
}
}
