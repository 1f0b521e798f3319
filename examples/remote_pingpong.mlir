// Two CTAs of one cluster (128 threads each) take turns, `%iters` times.
// Each turn, thread 0 of the serving CTA writes a value into its peer's
// `@mailbox` through distributed shared memory (mapa + st.shared::cluster)
// and arrives on the peer's barrier through a remote view: the
// release.cluster arrival publishes the value. Every thread of the peer
// waits on its own barrier with acquire.cluster, reads the value and counts
// it if it is the one expected; thread 0 of the peer then answers the same
// way. CTA 0 serves first.
//
// Why it is correct for a real launch:
// - thread 0 of each CTA initializes the barrier (count 1: one arrival per
//   phase), then `mbarrier.fence_init` and a cluster barrier make the init
//   visible to the peer before any arrival can reach it;
// - a CTA barrier (bar.sync) after every wait: no thread arrives on the
//   peer, and so lets the peer answer, before every thread of its own CTA
//   has seen the phase complete and read the mailbox. Each barrier is then
//   at most one phase ahead of every waiter (parity waits are exact) and a
//   mailbox is not overwritten while it is still being read;
// - a final cluster barrier: no CTA exits while its peer may still arrive
//   on (or write to) its shared memory.
//
// out[rank * 128 + tid] = the turns in which thread `tid` of CTA `rank` read
// the expected value: %iters for every thread.
//   mbarrier-compile examples/remote_pingpong.mlir --emit ptx
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @mailbox() {addr_space = 3 : i32, alignment = 4 : i64} : i32

    gpu.func @remote_pingpong(%out: !llvm.ptr<1>, %iters: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %threads = arith.constant 128 : i32
      %tid_index = gpu.thread_id x
      %tid = arith.index_cast %tid_index : index to i32
      %leader = arith.cmpi eq, %tid, %zero : i32

      // Thread 0 initializes the barrier; the init is visible cluster-wide
      // before anyone arrives.
      %bar = mbarrier.alloc : !mbarrier.group<1>
      scf.if %leader {
        mbarrier.init %bar[%c0], %one : !mbarrier.group<1>
      }
      mbarrier.fence_init
      nvvm.cluster.arrive
      nvvm.cluster.wait

      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.xori %rank, %one : i32
      %remote = mbarrier.remote_view %bar, %peer : !mbarrier.group<1>
      %mailbox = llvm.mlir.addressof @mailbox : !llvm.ptr<3>
      %peer_mailbox = nvvm.mapa %mailbox, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %serves = arith.cmpi eq, %rank, %zero : i32
      %n = arith.index_cast %iters : i32 to index

      %last:2 = scf.for %i = %c0 to %n step %c1 iter_args(%phase = %zero, %good = %zero) -> (i32, i32) {
        %i32 = arith.index_cast %i : index to i32
        %twice = arith.muli %i32, %two : i32
        // Turn i: CTA r sends 2 * i + r and expects 2 * i + (r ^ 1).
        %sent = arith.addi %twice, %rank : i32
        %expected = arith.addi %twice, %peer : i32
        %seen = scf.if %serves -> (i32) {
          scf.if %leader {
            llvm.store %sent, %peer_mailbox : i32, !llvm.ptr<7>
            mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
          }
          mbarrier.wait %bar[%c0], %phase {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
          %v = llvm.load %mailbox : !llvm.ptr<3> -> i32
          nvvm.barrier0
          scf.yield %v : i32
        } else {
          mbarrier.wait %bar[%c0], %phase {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
          %v = llvm.load %mailbox : !llvm.ptr<3> -> i32
          nvvm.barrier0
          scf.if %leader {
            llvm.store %sent, %peer_mailbox : i32, !llvm.ptr<7>
            mbarrier.arrive %remote[%c0] : !mbarrier.remote<1>
          }
          scf.yield %v : i32
        }
        %match = arith.cmpi eq, %seen, %expected : i32
        %inc = arith.extui %match : i1 to i32
        %good_next = arith.addi %good, %inc : i32
        %phase_next = arith.xori %phase, %one : i32
        scf.yield %phase_next, %good_next : i32, i32
      }

      %base = arith.muli %rank, %threads : i32
      %slot = arith.addi %base, %tid : i32
      %slot64 = arith.extui %slot : i32 to i64
      %dst = llvm.getelementptr %out[%slot64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %last#1, %dst : i32, !llvm.ptr<1>

      // Keep both CTAs' shared memory alive until the last remote access.
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
  }
}
