// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of te_mxfp8_cast.mlir (same public source: NVIDIA
// TransformerEngine transformer_engine/common/util/ptx.cuh and
// cast_kernels.cuh, initialize_barriers / copy_2d_to_shared).
// BUG: copy_2d_to_shared without its else branch: only the master thread
// arrives (with the expect-tx), while initialize_barriers() set every
// barrier's count to the 128 threads of the block. Each phase gets 1 of its
// 128 arrivals, iteration 0's mbarrier_wait_parity never returns: every
// thread of every CTA hangs at its first wait.
// Every launch fails (for every %chunks >= 1: the first wait needs a phase
// that 127 absent arrivals keep open).
// BUG-ALT: the init with the thread count, and the wait that never completes.
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @in_sh() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  llvm.mlir.global internal @out_sh() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<2048 x i8>
  gpu.func @te_mxfp8_cast(%map_in: !llvm.ptr, %map_out: !llvm.ptr, %chunks: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i32 = arith.constant 32 : i32
    %i128 = arith.constant 128 : i32
    %i1024 = arith.constant 1024 : i32
    %i4096 = arith.constant 4096 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_master = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %mbar = mbarrier.alloc : !mbarrier.group<4>
    scf.if %is_master {
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.init %mbar[%s], %i128 : !mbarrier.group<4> // BUG-ALT
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %in_base = llvm.mlir.addressof @in_sh : !llvm.ptr<3>
    %out_base = llvm.mlir.addressof @out_sh : !llvm.ptr<3>
    %total = arith.muli %chunks, %i4 : i32
    %row0 = arith.muli %bid, %total : i32

    // copy_2d_to_shared of iteration 0.
    scf.if %is_master {
      mbarrier.arrive_expect_tx %mbar[%c0], %i4096 : !mbarrier.group<4> // BUG
      mbarrier.cp_async_bulk_tensor %mbar[%c0], %in_base, %map_in[%i0, %row0], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
    }

    scf.for %it = %i0 to %total step %i1 : i32 {
      // Prefetch iteration it + 1 into the other input buffer.
      %nx = arith.addi %it, %i1 : i32
      %more = arith.cmpi slt, %nx, %total : i32
      scf.if %more {
        %nb32 = arith.remui %nx, %i4 : i32
        %nb = arith.index_cast %nb32 : i32 to index
        scf.if %is_master {
          mbarrier.arrive_expect_tx %mbar[%nb], %i4096 : !mbarrier.group<4> // BUG
          %nbuf = arith.remui %nx, %i2 : i32
          %noff = arith.muli %nbuf, %i4096 : i32
          %ndst = llvm.getelementptr %in_base[%noff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %nrow = arith.addi %row0, %nx : i32
          mbarrier.cp_async_bulk_tensor %mbar[%nb], %ndst, %map_in[%i0, %nrow], bytes 4096 : !mbarrier.group<4>, !llvm.ptr
        }
      }
      %b32 = arith.remui %it, %i4 : i32
      %b = arith.index_cast %b32 : i32 to index
      %chunk = arith.divui %it, %i4 : i32
      %parity = arith.andi %chunk, %i1 : i32
      mbarrier.wait %mbar[%b], %parity : !mbarrier.group<4> // BUG-ALT
      // Read this thread's 32 bytes, write its 8 scaled bytes.
      %buf = arith.remui %it, %i2 : i32
      %ioff0 = arith.muli %buf, %i4096 : i32
      %tin = arith.muli %tid, %i32 : i32
      %ioff = arith.addi %ioff0, %tin : i32
      %src = llvm.getelementptr %in_base[%ioff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %x = llvm.load %src : !llvm.ptr<3> -> i64
      %ooff0 = arith.muli %buf, %i1024 : i32
      %tout = arith.muli %tid, %i8 : i32
      %ooff = arith.addi %ooff0, %tout : i32
      %dst = llvm.getelementptr %out_base[%ooff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      llvm.store %x, %dst : i64, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      scf.if %is_master {
        %obuf = llvm.getelementptr %out_base[%ooff0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %orow = arith.addi %row0, %it : i32
        nvvm.cp.async.bulk.tensor.global.shared.cta %map_out, %obuf, box[%i0, %orow] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 1 {read}
      }
      gpu.barrier
    }
    scf.if %is_master {
      nvvm.cp.async.bulk.wait_group 0 {read}
      scf.for %s = %c0 to %c4 step %c1 {
        mbarrier.inval %mbar[%s] : !mbarrier.group<4>
      }
    }
    gpu.return
  }
}
}
