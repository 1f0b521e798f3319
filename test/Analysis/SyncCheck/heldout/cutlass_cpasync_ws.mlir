// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cutlass_cpasync_ws(
// Follows NVIDIA/cutlass include/cutlass/pipeline/sm90_pipeline.hpp
// (PipelineAsync: full barriers count producer_arv_count = the producer
// threads, empty barriers consumer_arv_count = the consumer threads; every
// consumer thread arrives in consumer_release) with include/cutlass/arch/
// barrier.h (cpasync_barrier_arrive_noinc: cp.async.mbarrier.arrive.noinc,
// the arrival made when the thread's earlier cp.async copies land, counted in
// the barrier's expected arrivals), as CUTLASS's cp.async producers use it:
// pipeline.producer_commit(state, cutlass::arch::cpasync_barrier_arrive_noinc)
// after Marlin-style 16-byte cp.async copies by a producer warp.
// 160 threads: warp 0 produces (each lane copies 4 x 16 bytes of a
// 2048-byte stage), warps 1-4 consume. 2 stages; %k_tiles (a parameter).
module attributes {gpu.container_module} {
gpu.module @kernels {
  llvm.mlir.global internal @stages() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
  gpu.func @cutlass_cpasync_ws(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %k_tiles: i32) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i64 = arith.constant 64 : i32
    %i128 = arith.constant 128 : i32
    %i2048 = arith.constant 2048 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %warp = arith.divui %tid, %i32 : i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %full = mbarrier.alloc : !mbarrier.group<2>
    %empty = mbarrier.alloc : !mbarrier.group<2>
    scf.if %is_tid0 {
      scf.for %s = %c0 to %c2 step %c1 {
        mbarrier.init %full[%s], %i32 : !mbarrier.group<2>
        mbarrier.init %empty[%s], %i128 : !mbarrier.group<2>
      }
    }
    mbarrier.fence_init
    gpu.barrier
    %base = llvm.mlir.addressof @stages : !llvm.ptr<3>

    %is_producer = arith.cmpi eq, %warp, %i0 : i32
    scf.if %is_producer {
      %lane64 = arith.muli %tid, %i64 : i32
      scf.for %k = %i0 to %k_tiles step %i1 : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        %pph = arith.xori %ph, %i1 : i32
        mbarrier.wait %empty[%s], %pph : !mbarrier.group<2>
        %soff = arith.muli %s32, %i2048 : i32
        %doff = arith.addi %soff, %lane64 : i32
        %goff0 = arith.muli %k, %i2048 : i32
        %goff = arith.addi %goff0, %lane64 : i32
        scf.for %j = %i0 to %i4 step %i1 : i32 {
          %jb = arith.muli %j, %i16 : i32
          %d = arith.addi %doff, %jb : i32
          %g = arith.addi %goff, %jb : i32
          %dst = llvm.getelementptr %base[%d] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %gsrc = llvm.getelementptr %src[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
          nvvm.cp.async.shared.global %dst, %gsrc, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
        }
        // producer_commit(state, cpasync_barrier_arrive_noinc).
        %fp = mbarrier.ptr %full[%s] : !mbarrier.group<2> -> !llvm.ptr<3>
        nvvm.cp.async.mbarrier.arrive %fp {noinc = true} : !llvm.ptr<3>
      }
    }

    %is_consumer = arith.cmpi uge, %warp, %i1 : i32
    scf.if %is_consumer {
      %ct = arith.subi %tid, %i32 : i32
      %c16 = arith.muli %ct, %i16 : i32
      %zero = arith.constant 0 : i32
      %sum = scf.for %k = %i0 to %k_tiles step %i1 iter_args(%a = %zero) -> (i32) : i32 {
        %s32 = arith.remui %k, %i2 : i32
        %s = arith.index_cast %s32 : i32 to index
        %lap = arith.divui %k, %i2 : i32
        %ph = arith.andi %lap, %i1 : i32
        mbarrier.wait %full[%s], %ph : !mbarrier.group<2>
        %soff = arith.muli %s32, %i2048 : i32
        %roff = arith.addi %soff, %c16 : i32
        %rp = llvm.getelementptr %base[%roff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
        %v = llvm.load %rp : !llvm.ptr<3> -> i32
        %a2 = arith.addi %a, %v : i32
        // consumer_release: every consumer thread arrives.
        mbarrier.arrive %empty[%s] : !mbarrier.group<2>
        scf.yield %a2 : i32
      }
      %bid_x = gpu.block_id x
      %bid = arith.index_cast %bid_x : index to i32
      %r0 = arith.muli %bid, %i128 : i32
      %r = arith.addi %r0, %ct : i32
      %op = llvm.getelementptr %out[%r] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %sum, %op : i32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
