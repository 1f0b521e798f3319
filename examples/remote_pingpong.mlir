// Two CTAs of one cluster take turns. CTA 0 arrives on CTA 1's barrier
// through a remote view (the shared::cluster form), CTA 1 waits for it and
// arrives back on CTA 0's barrier. Serving strictly in turn keeps each
// barrier at most one phase ahead of its waiter, so parity waits are exact.
//   mbarrier-compile examples/remote_pingpong.mlir --emit ptx
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @pingpong(%iters: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %bar = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.init %bar[%c0], %one : !mbarrier.group<1>
      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.xori %rank, %one : i32
      %remote = mbarrier.remote_view %bar, %peer : !mbarrier.group<1>
      %n = arith.index_cast %iters : i32 to index
      %zero = arith.constant 0 : i32
      %serves = arith.cmpi eq, %rank, %zero : i32
      %last = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero) -> (i32) {
        scf.if %serves {
          mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
          mbarrier.wait %bar[%c0], %phase : !mbarrier.group<1>
        } else {
          mbarrier.wait %bar[%c0], %phase : !mbarrier.group<1>
          mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
        }
        %next = arith.xori %phase, %one : i32
        scf.yield %next : i32
      }
      // Keep both CTAs' shared memory alive until the last remote arrival.
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
  }
}
