// Correct-kernel corpus (issue 22): FA3's WarpScheduler ping-pong of the
// two MMA warp groups on named barriers. The checker must say nothing about
// it, and the PTX has the ids the compiler assigns.
//
// Source: Dao-AILab/flash-attention, hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp
// (warp_scheduler_barrier_sync: NamedBarrier::sync(2 * 128, WarpSchedulerWG1
// - 1 + warp group); warp_scheduler_barrier_arrive: NamedBarrier::arrive(2 *
// 128, the next warp group's id); mma_init: warp group 1 arrives on its own
// id first, so that it takes the first turn), hopper/named_barrier.hpp.
// The producer warp group (warps 0-3) does not take part; the GEMMs are
// left out; 4 tiles.
//
// RUN: mbarrier-opt %s -split-input-file -verify-diagnostics --mbarrier-allocate-named-barriers --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// The first turn's arrive has the id as an immediate; in the loop LLVM
// merges the two branches and selects the ids (1 and 2) into registers.
// CHECK: bar.arrive 1, 256;
// CHECK: mov.b32 %r[[OWN:[0-9]+]], 1;
// CHECK: mov.b32 %r[[NEXT:[0-9]+]], 2;
// CHECK: bar.sync{{[[:space:]]+}}%r[[OWN]], 256;
// CHECK: bar.arrive %r[[NEXT]], 256;

gpu.module @fa3_pingpong {
  mbarrier.named_barrier @warp_scheduler_wg1
  mbarrier.named_barrier @warp_scheduler_wg2
  gpu.func @k(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %mma = arith.cmpi uge, %tid, %c128 : index
    %wg1 = arith.cmpi ult, %tid, %c256 : index
    scf.if %mma {
      // mma_init: warp group 1 takes the first turn.
      scf.if %wg1 {
        mbarrier.bar_arrive @warp_scheduler_wg1 threads 256
      }
      scf.for %tile = %c0 to %c4 step %c1 {
        scf.if %wg1 {
          mbarrier.bar_sync @warp_scheduler_wg1 threads 256
          // ... the GEMMs of warp group 1 ...
          mbarrier.bar_arrive @warp_scheduler_wg2 threads 256
        } else {
          mbarrier.bar_sync @warp_scheduler_wg2 threads 256
          // ... the GEMMs of warp group 2 ...
          mbarrier.bar_arrive @warp_scheduler_wg1 threads 256
        }
      }
    }
    gpu.return
  }
}
