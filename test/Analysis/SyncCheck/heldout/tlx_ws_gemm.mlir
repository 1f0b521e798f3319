// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry tlx_ws_gemm(
// Follows facebookexperimental/triton third_party/tlx/tutorials/hopper_gemm_ws.py
// (TLX warp specialization: async_task("default") is the producer, one
// async_task(num_warps=4, replicate=2) the two consumer warpgroups;
// alloc_barriers for full (arrive_count 1) and empty (arrive_count = number
// of consumers); the producer waits empty[buf] with phase ^ 1,
// barrier_expect_bytes(full[buf]) and async_descriptor_load of A (one half
// per consumer) and B; each consumer waits full[buf] with phase, async_dot,
// async_dot_wait(0), barrier_arrive(empty[buf]); buf = k % NUM_STAGES,
// phase = (k // NUM_STAGES) & 1).
// 384 threads: warpgroup 0 produces (thread 0 issues), warpgroups 1 and 2
// consume. 3 stages; %k_tiles (a parameter) k-steps.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @smem_a() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<24576 x i8>
  llvm.mlir.global internal @smem_b() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<12288 x i8>
  gpu.func @tlx_ws_gemm(%map_a: !llvm.ptr, %map_b: !llvm.ptr, %out: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i4096 = arith.constant 4096 : i32
    %i8192 = arith.constant 8192 : i32
    %i12288 = arith.constant 12288 : i32
    %c16 = arith.constant 16 : i64
    %desc_hi = arith.constant 4294967360 : i64
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %wg = arith.divui %tid, %i128 : i32
    %wg_tid = arith.remui %tid, %i128 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %row = arith.muli %bid, %i128 : i32
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

    // async_task("default"): the producer.
    scf.if %is_tid0 {
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %buf32 = arith.remui %k, %i3 : i32
        %buf = arith.index_cast %buf32 : i32 to index
        %lap = arith.divui %k, %i3 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%buf], %pph : !mbarrier.group<3>
        mbarrier.arrive_expect_tx %full[%buf], %i12288 : !mbarrier.group<3>
        %aoff = arith.muli %buf32, %i8192 : i32
        %a0 = llvm.getelementptr %a_base[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %a1 = llvm.getelementptr %a0[%i4096] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %boff = arith.muli %buf32, %i4096 : i32
        %b0 = llvm.getelementptr %b_base[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %col = arith.muli %k, %i64 : i32
        %row1 = arith.addi %row, %i64 : i32
        mbarrier.cp_async_bulk_tensor %full[%buf], %a0, %map_a[%col, %row], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %full[%buf], %a1, %map_a[%col, %row1], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
        mbarrier.cp_async_bulk_tensor %full[%buf], %b0, %map_b[%col, %i0], bytes 4096 : !mbarrier.group<3>, !llvm.ptr
      }
    }

    // async_task(num_warps=4, replicate=2): the consumers.
    %is_consumer = arith.cmpi uge, %wg, %i1 : i32
    scf.if %is_consumer {
      %cid = arith.subi %wg, %i1 : i32
      %leader = arith.cmpi eq, %wg_tid, %i0 : i32
      %z = llvm.mlir.zero : !acc
      %acc = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %z) -> (!acc) : i32 {
        %buf32 = arith.remui %k, %i3 : i32
        %buf = arith.index_cast %buf32 : i32 to index
        %lap = arith.divui %k, %i3 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%buf], %ph : !mbarrier.group<3>
        %aoff0 = arith.muli %buf32, %i8192 : i32
        %half = arith.muli %cid, %i4096 : i32
        %aoff = arith.addi %aoff0, %half : i32
        %asrc = llvm.getelementptr %a_base[%aoff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %boff = arith.muli %buf32, %i4096 : i32
        %bsrc = llvm.getelementptr %b_base[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %aa32 = llvm.ptrtoint %asrc : !llvm.ptr<3> to i32
        %aa = arith.extui %aa32 : i32 to i64
        %ash = arith.shrui %aa, %c16 : i64
        %desc_a = arith.ori %ash, %desc_hi : i64
        %ba32 = llvm.ptrtoint %bsrc : !llvm.ptr<3> to i32
        %ba = arith.extui %ba32 : i32 to i64
        %bsh = arith.shrui %ba, %c16 : i64
        %desc_b = arith.ori %bsh, %desc_hi : i64
        nvvm.wgmma.fence.aligned
        %a2 = nvvm.wgmma.mma_async %desc_a, %desc_b, %a, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.if %leader {
          mbarrier.arrive %empty[%buf] : !mbarrier.group<3>
        }
        scf.yield %a2 : !acc
      }
      %e = llvm.extractvalue %acc[0] : !acc
      %r0 = arith.muli %cid, %i128 : i32
      %ri = arith.addi %r0, %wg_tid : i32
      %r1 = arith.addi %row, %ri : i32
      %op = llvm.getelementptr %out[%r1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %e, %op : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
