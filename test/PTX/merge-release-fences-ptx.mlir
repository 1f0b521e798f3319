// Fence merging down to PTX. mbarrier-to-ptx at O >= 1 runs
// mbarrier-merge-release-fences first: a broadcast's three release.cluster
// arrivals become one fence.release.cluster and three relaxed.cluster
// arrivals, and the derived PTX version becomes 8.6. Not merged: arrivals
// with a store between them, a module whose target emits PTX 8.0, O=0, and
// merge-release-fences=false.
// (--no-check-sync: an instruction-form test whose kernels are not barrier
// protocols; mbarrier-check-sync is tested in test/Analysis/SyncCheck/.)
// RUN: mbarrier-compile --no-check-sync %s --emit ptx --module kernels -o - | FileCheck %s
// RUN: mbarrier-compile --no-check-sync %s --emit ptx --module old -o - | FileCheck %s --check-prefix=OLD
// RUN: mbarrier-compile --no-check-sync %s -O 0 --emit ptx --module kernels -o - | FileCheck %s --check-prefix=NOMERGE
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(mbarrier-to-ptx{merge-release-fences=false check-sync=false})" | FileCheck %s --check-prefix=OFF --implicit-check-not=fence.release.cluster
// ptxas takes every form (no GPU needed): one cubin per gpu.module.
// RUN: mbarrier-compile --no-check-sync %s -o %t.cubin
// RUN: %python -c "import sys; data = [open(p, 'rb').read() for p in sys.argv[1:]]; assert all(d[:4] == b'\x7fELF' for d in data); print('cubins', len(data))" %t.kernels.cubin %t.old.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: cubins 2

// CHECK: .version 8.6
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The payload stores, then one fence, then the relaxed arrivals.
    // CHECK-LABEL: .entry broadcast(
    // CHECK-NOT: mbarrier.arrive.release
    // CHECK-COUNT-3: st.shared::cluster.b32
    // CHECK-NOT: mbarrier.arrive
    // CHECK: fence.release.cluster;
    // CHECK-NOT: st.
    // CHECK-COUNT-3: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
    // CHECK-NOT: mbarrier.arrive.release
    // CHECK-NOT: fence.
    // CHECK: ret;
    // NOMERGE-LABEL: .entry broadcast(
    // NOMERGE-NOT: fence.release
    // NOMERGE-COUNT-3: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
    // NOMERGE-NOT: fence.release
    // NOMERGE: ret;
    // OFF-LABEL: gpu.binary @kernels
    // OFF-SAME: .entry broadcast(
    // OFF-SAME: mbarrier.arrive.release.cluster.shared::cluster.b64 _,
    // OFF-SAME: mbarrier.arrive.release.cluster.shared::cluster.b64 _,
    // OFF-SAME: mbarrier.arrive.release.cluster.shared::cluster.b64 _,
    // OFF-SAME: .entry store_between(
    gpu.func @broadcast(%v: i32) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %data = mbarrier.alloc : !mbarrier.group<1>
      %d1 = mbarrier.remote_view %data, cta_rank 1 : !mbarrier.group<1>
      %d2 = mbarrier.remote_view %data, cta_rank 2 : !mbarrier.group<1>
      %d3 = mbarrier.remote_view %data, cta_rank 3 : !mbarrier.group<1>
      %p1 = mbarrier.ptr %d1[%c0] : !mbarrier.remote<1> -> !llvm.ptr<7>
      %p2 = mbarrier.ptr %d2[%c0] : !mbarrier.remote<1> -> !llvm.ptr<7>
      %p3 = mbarrier.ptr %d3[%c0] : !mbarrier.remote<1> -> !llvm.ptr<7>
      llvm.store %v, %p1 : i32, !llvm.ptr<7>
      llvm.store %v, %p2 : i32, !llvm.ptr<7>
      llvm.store %v, %p3 : i32, !llvm.ptr<7>
      %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      %r2 = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
      %r3 = mbarrier.remote_view %g, cta_rank 3 : !mbarrier.group<1>
      mbarrier.arrive %r1[%c0] : !mbarrier.remote<1>
      mbarrier.arrive %r2[%c0] : !mbarrier.remote<1>
      mbarrier.arrive %r3[%c0] : !mbarrier.remote<1>
      gpu.return
    }

    // CHECK-LABEL: .entry store_between(
    // CHECK-NOT: fence.release
    // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _,
    // CHECK-NEXT: // end inline asm
    // CHECK-NEXT: st.shared::cluster.b32
    // CHECK-NOT: fence.release
    // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _,
    // CHECK-NOT: fence.release
    // CHECK: ret;
    gpu.func @store_between(%v: i32) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %data = mbarrier.alloc : !mbarrier.group<1>
      %d1 = mbarrier.remote_view %data, cta_rank 1 : !mbarrier.group<1>
      %p1 = mbarrier.ptr %d1[%c0] : !mbarrier.remote<1> -> !llvm.ptr<7>
      %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      %r2 = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
      mbarrier.arrive %r1[%c0] : !mbarrier.remote<1>
      llvm.store %v, %p1 : i32, !llvm.ptr<7>
      mbarrier.arrive %r2[%c0] : !mbarrier.remote<1>
      gpu.return
    }

    // A consumer that only read its own shared memory releases it to two
    // producers: the restricted fence, written explicitly.
    // CHECK-LABEL: .entry consumer_release(
    // CHECK: ld.shared
    // CHECK: fence.release.sync_restrict::shared::cta.cluster;
    // CHECK-COUNT-2: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
    // CHECK-NOT: fence.release.cluster
    // CHECK: ret;
    gpu.func @consumer_release(%out: !llvm.ptr<1>) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %c0 = arith.constant 0 : index
      %empty = mbarrier.alloc : !mbarrier.group<1>
      %slot = mbarrier.alloc : !mbarrier.group<1>
      %p = mbarrier.ptr %slot[%c0] : !mbarrier.group<1> -> !llvm.ptr<3>
      %x = llvm.load %p : !llvm.ptr<3> -> i64
      llvm.store %x, %out : i64, !llvm.ptr<1>
      %r1 = mbarrier.remote_view %empty, cta_rank 1 : !mbarrier.group<1>
      %r2 = mbarrier.remote_view %empty, cta_rank 2 : !mbarrier.group<1>
      mbarrier.fence_release shared_cta
      mbarrier.arrive %r1[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
      mbarrier.arrive %r2[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
      gpu.return
    }
  }

  // A target that emits PTX 8.0 has no .relaxed and no fence.release: the
  // arrivals stay release.cluster, and nothing is reported.
  // OLD: .version 8.0
  // OLD-LABEL: .entry broadcast_old(
  // OLD-NOT: fence.release
  // OLD-COUNT-2: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
  // OLD-NOT: fence.release
  // OLD: ret;
  gpu.module @old [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @broadcast_old() kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      %r2 = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<1>
      mbarrier.arrive %r1[%c0] : !mbarrier.remote<1>
      mbarrier.arrive %r2[%c0] : !mbarrier.remote<1>
      gpu.return
    }
  }
}
