// RUN: mbarrier-compile %s --chip sm_90a --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: .entry cutlass_streamk_fixup(
// Follows NVIDIA/cutlass include/cutlass/gemm/kernel/
// sm90_tile_scheduler_stream_k.hpp (fixup() in the deterministic, in-order
// reduction: split s of a tile waits until the tile's flag equals s, adds the
// workspace partial into its accumulators, and unless it is the final split
// stores the sum back and increments the flag; the final split runs the
// epilogue) with include/cutlass/barrier.h (GenericBarrier::wait_eq: thread 0
// spins on ld_acquire(flag) != val, then Sync::sync(); arrive_inc:
// Sync::sync(), then thread 0 red_release(flag, 1)) and
// Sync = NamedBarrierSync<256, ReservedNamedBarriers::StreamkBarrier0>
// (include/cutlass/arch/barrier.h).
// 256 threads (two cooperative MMA warpgroups); the scheduler runs in its
// split-K form with splits = 2: CTA b works on split b % 2 of tile b / 2.
module attributes {gpu.container_module} {
gpu.module @kernels {
  mbarrier.named_barrier @streamk_barrier0
  gpu.func @cutlass_streamk_fixup(%a: !llvm.ptr<1>, %d: !llvm.ptr<1>, %workspace: !llvm.ptr<1>, %flags: !llvm.ptr<1>, %k_iters: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i256 = arith.constant 256 : i32
    %tid_x = gpu.thread_id x
    %tid = arith.index_cast %tid_x : index to i32
    %is_tid0 = arith.cmpi eq, %tid, %i0 : i32
    %bid_x = gpu.block_id x
    %bid = arith.index_cast %bid_x : index to i32
    %tile = arith.divui %bid, %i2 : i32
    %split = arith.remui %bid, %i2 : i32
    // The mainloop of this split's k range (the accumulators).
    %zero = arith.constant 0.0 : f32
    %k0 = arith.muli %split, %k_iters : i32
    %k1 = arith.addi %k0, %k_iters : i32
    %part = scf.for %k = %k0 to %k1 step %i1 iter_args(%s = %zero) -> (f32) : i32 {
      %r = arith.muli %k, %i256 : i32
      %g = arith.addi %r, %tid : i32
      %p = llvm.getelementptr %a[%g] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %s2 = arith.addf %s, %v : f32
      scf.yield %s2 : f32
    }
    %fp = llvm.getelementptr %flags[%tile] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %w0 = arith.muli %tile, %i256 : i32
    %wi = arith.addi %w0, %tid : i32
    %wp = llvm.getelementptr %workspace[%wi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %is_first = arith.cmpi eq, %split, %i0 : i32
    %acc = scf.if %is_first -> (f32) {
      scf.yield %part : f32
    } else {
      // BarrierManager::wait_eq(flags, thread_idx, tile, split)
      scf.if %is_tid0 {
        scf.while : () -> () {
          %f = llvm.load %fp atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
          %ne = arith.cmpi ne, %f, %split : i32
          scf.condition(%ne)
        } do {
          scf.yield
        }
      }
      mbarrier.bar_sync @streamk_barrier0 threads 256
      %w = llvm.load %wp : !llvm.ptr<1> -> f32
      %sum = arith.addf %part, %w : f32
      scf.yield %sum : f32
    }
    %is_final = arith.cmpi eq, %split, %i1 : i32
    scf.if %is_final {
      %op = llvm.getelementptr %d[%wi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %acc, %op : f32, !llvm.ptr<1>
    } else {
      llvm.store %acc, %wp : f32, !llvm.ptr<1>
      // BarrierManager::arrive_inc(flags, thread_idx, tile)
      mbarrier.bar_sync @streamk_barrier0 threads 256
      scf.if %is_tid0 {
        // red_release: fence.acq_rel.gpu; red.relaxed.gpu.global.add
        llvm.fence syncscope("device") acq_rel
        %old = llvm.atomicrmw add %fp, %i1 syncscope("device") monotonic : !llvm.ptr<1>, i32
      }
    }
    gpu.return
  }
}
}
