// RUN: mbarrier-opt --mbarrier-lower-pipes --mbarrier-allocate-named-barriers %s -o /dev/null
// Buggy twin of cutlass_streamk_fixup.mlir (same public source: cutlass
// sm90_tile_scheduler_stream_k.hpp fixup(), include/cutlass/barrier.h
// GenericBarrier, NamedBarrierSync).
// BUG: arrive_inc's Sync::sync() is moved inside the thread 0 branch with the
// flag's red_release (the "only thread 0 touches the flag" refactor): thread 0
// alone reaches an aligned bar.sync that counts 256 threads (undefined for a
// divergent warp; in practice it waits forever, and the tile's final split
// then spins on a flag nobody raises); split 0 of every tile (CTA 0 among
// them) runs arrive_inc.
// Every launch fails (a hang in CTA 0, whatever k_iters is).
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
      scf.if %is_tid0 {
        mbarrier.bar_sync @streamk_barrier0 threads 256 // BUG
        // red_release: fence.acq_rel.gpu; red.relaxed.gpu.global.add
        llvm.fence syncscope("device") acq_rel
        %old = llvm.atomicrmw add %fp, %i1 syncscope("device") monotonic : !llvm.ptr<1>, i32
      }
    }
    gpu.return
  }
}
}
