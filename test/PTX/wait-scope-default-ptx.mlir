// The default scope of wait/try_wait/test_wait, down to PTX text: `.cluster`
// in a function that declares a cluster of more than one CTA or makes a
// remote arrival (and in a device function of a module where one does), so
// that the acquire is morally strong with a peer's .release.cluster arrival;
// `.cta` (the plain form) otherwise. An explicit scope always wins.
// The kernels are fragments that only wait (their barriers are never
// initialized), so the checker, which would refuse them, is off.
// RUN: mbarrier-compile %s --no-check-sync --emit ptx --module cluster_kernel -o - | FileCheck %s --check-prefix=CLUSTER \
// RUN:   --implicit-check-not=mbarrier.try_wait.parity.shared.b64 --implicit-check-not=mbarrier.test_wait.parity.shared.b64
// RUN: mbarrier-compile %s --no-check-sync --emit ptx --module remote_arrival -o - | FileCheck %s --check-prefix=REMOTE \
// RUN:   --implicit-check-not=mbarrier.try_wait.parity.shared.b64
// RUN: mbarrier-compile %s --no-check-sync --emit ptx --module device_function -o - | FileCheck %s --check-prefix=DEVICE
// RUN: mbarrier-compile %s --no-check-sync --emit ptx --module cta_kernel -o - | FileCheck %s --check-prefix=CTA \
// RUN:   --implicit-check-not=.cluster
// RUN: mbarrier-compile %s --no-check-sync --emit ptx --module explicit_cta -o - | FileCheck %s --check-prefix=EXPLICIT

module attributes {gpu.container_module} {
  gpu.module @cluster_kernel {
    // CLUSTER-LABEL: .entry declared_cluster(
    // CLUSTER: mbarrier.try_wait.parity.acquire.cluster.shared.b64
    // CLUSTER: mbarrier.try_wait.parity.acquire.cluster.shared.b64
    // CLUSTER: mbarrier.test_wait.parity.acquire.cluster.shared.b64
    gpu.func @declared_cluster(%phase: i32, %out: !llvm.ptr<1>) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      %a = mbarrier.try_wait %g[%c0], %phase : !mbarrier.group<1>
      %b = mbarrier.test_wait %g[%c0], %phase : !mbarrier.group<1>
      %c = arith.andi %a, %b : i1
      llvm.store %c, %out : i1, !llvm.ptr<1>
      gpu.return
    }
  }

  gpu.module @remote_arrival {
    // REMOTE-LABEL: .entry makes_remote_arrival(
    // REMOTE: mbarrier.arrive.release.cluster.shared::cluster.b64
    // REMOTE: mbarrier.try_wait.parity.acquire.cluster.shared.b64
    gpu.func @makes_remote_arrival(%phase: i32, %peer: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.arrive %g[%c0] on %peer : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      gpu.return
    }
  }

  gpu.module @device_function {
    // DEVICE-LABEL: .func wait_helper(
    // DEVICE: mbarrier.try_wait.parity.acquire.cluster.shared.b64
    func.func @wait_helper(%g: !mbarrier.group<1>, %phase: i32) {
      %c0 = arith.constant 0 : index
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      return
    }
    gpu.func @caller(%phase: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %g = mbarrier.alloc : !mbarrier.group<1>
      func.call @wait_helper(%g, %phase) : (!mbarrier.group<1>, i32) -> ()
      gpu.return
    }
  }

  gpu.module @cta_kernel {
    // CTA-LABEL: .entry no_cluster(
    // CTA: mbarrier.try_wait.parity.shared.b64
    // CTA: mbarrier.test_wait.parity.shared.b64
    gpu.func @no_cluster(%phase: i32, %out: !llvm.ptr<1>) kernel attributes {known_cluster_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      %b = mbarrier.test_wait %g[%c0], %phase : !mbarrier.group<1>
      llvm.store %b, %out : i1, !llvm.ptr<1>
      gpu.return
    }
  }

  gpu.module @explicit_cta {
    // EXPLICIT-LABEL: .entry explicit_scope_wins(
    // EXPLICIT: mbarrier.try_wait.parity.shared.b64
    // EXPLICIT-NOT: try_wait.parity.acquire.cluster
    gpu.func @explicit_scope_wins(%phase: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase {scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
      gpu.return
    }
  }
}
