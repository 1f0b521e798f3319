// Correct-kernel corpus: an all-gather through distributed shared memory
// in a cluster of 4, "arrive remote, wait local". The checker must be
// silent (no error, no warning), and the kernel compiles to PTX.
// RUN: mbarrier-opt %s -verify-diagnostics --mbarrier-check-sync
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64

// The idiom of facebookexperimental/triton third_party/tlx (doc
// tlx_barriers.md, `barrier_arrive(bar, 1, remote_cta_rank)`: "Arrive
// Remote, Wait Local"): thread 0 of each CTA initializes its barrier with
// the cluster size, fence_init and a cluster barrier publish it; thread t
// < 4 of each CTA stores the CTA's value into slot [rank] of CTA t's
// buffer (mapa + st.shared::cluster) and arrives (release.cluster) on CTA
// t's barrier; every thread waits on its own barrier (acquire.cluster) and
// reads the four slots; a final cluster barrier keeps every CTA's shared
// memory alive until the peers are done.
gpu.module @all_gather {
  llvm.mlir.global internal @slots() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<4 x i32>
  gpu.func @gather(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %four = arith.constant 4 : i32
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    %leader = arith.cmpi eq, %t, %zero : i32
    %sender = arith.cmpi ult, %t, %four : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %g = mbarrier.alloc : !mbarrier.group<1>
    scf.if %leader {
      mbarrier.init %g[%c0], %four : !mbarrier.group<1>
    }
    mbarrier.fence_init
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %slots = llvm.mlir.addressof @slots : !llvm.ptr<3>
    %mine = llvm.getelementptr %slots[%rank] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    scf.if %sender {
      %theirs = nvvm.mapa %mine, %t : !llvm.ptr<3> -> !llvm.ptr<7>
      llvm.store %rank, %theirs : i32, !llvm.ptr<7>
      mbarrier.arrive %g[%c0] on %t : !mbarrier.group<1>
    }
    mbarrier.wait %g[%c0], %zero : !mbarrier.group<1>
    %v = llvm.load %slots : !llvm.ptr<3> -> i32
    %dst = llvm.getelementptr %out[%rank] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    scf.if %leader {
      llvm.store %v, %dst : i32, !llvm.ptr<1>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    gpu.return
  }
}
