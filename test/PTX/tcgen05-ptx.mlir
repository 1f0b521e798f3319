// The PTX text of tcgen05_commit on sm_100a: plain, multicast, cta_group 2.
// The commit names the CTA's own barrier (a shared::cta address, valid in the
// shared::cluster window); other CTAs are reached only through the multicast
// mask, never through mapa, and no mbarrier.arrive is emitted for a commit.
// (--no-check-sync: an instruction-form test whose kernels are not barrier
// protocols; mbarrier-check-sync is tested in test/Analysis/SyncCheck/.)
// RUN: mbarrier-compile --no-check-sync %s --chip sm_100a --emit ptx --module kernels -o - | FileCheck %s \
// RUN:   --implicit-check-not=mapa --implicit-check-not=mbarrier.arrive
// The 2-CTA form through a remote view signals the leader CTA's barrier: mapa,
// then the .shared::cluster commit on the mapped address (never a cvta'd
// generic address, which the .shared::cluster form does not take).
// RUN: mbarrier-compile --no-check-sync %s --chip sm_100a --emit ptx --module leader -o - | FileCheck %s --check-prefix=LEADER \
// RUN:   --implicit-check-not=cvta --implicit-check-not=mbarrier.arrive --implicit-check-not=cta_group::1
// The ptxas step (no GPU needed) for sm_100a:
// RUN: mbarrier-compile --no-check-sync %s --chip sm_100a -o %t.cubin
// RUN: %python -c "import sys; d = [open(p, 'rb').read() for p in sys.argv[1:]]; print('elf', all(x[:4] == b'\x7fELF' for x in d))" %t.kernels.cubin %t.leader.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf True

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: .entry commit_plain(
    // CHECK: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[BAR]]];
    // CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[BAR]]+8];
    // CHECK-NOT: multicast
    // CHECK-NOT: cta_group::2
    // CHECK: ret;
    gpu.func @commit_plain() kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      mbarrier.tcgen05_commit %g[%c0] : !mbarrier.group<2>
      mbarrier.tcgen05_commit %g[%c1] : !mbarrier.group<2>
      gpu.return
    }

    // CHECK-LABEL: .entry commit_multicast(
    // CHECK-DAG: ld.param.b16 [[MASK:%rs[0-9]+]], [commit_multicast_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [[[BAR]]+8], [[MASK]];
    // CHECK-NOT: cta_group::2
    // CHECK: ret;
    gpu.func @commit_multicast(%mask: i16) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      mbarrier.tcgen05_commit %g[%c1] multicast %mask : !mbarrier.group<2>
      gpu.return
    }

    // CHECK-LABEL: .entry commit_cta_group_2(
    // CHECK-DAG: ld.param.b16 [[MASK:%rs[0-9]+]], [commit_cta_group_2_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [[[BAR]]];
    // CHECK-NEXT: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [[[BAR]]+8], [[MASK]];
    // CHECK-NOT: cta_group::1
    // CHECK: ret;
    gpu.func @commit_cta_group_2(%mask: i16) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      mbarrier.tcgen05_commit %g[%c0] {cta_group = 2 : i32} : !mbarrier.group<2>
      mbarrier.tcgen05_commit %g[%c1] multicast %mask {cta_group = 2 : i32} : !mbarrier.group<2>
      gpu.return
    }
  }

  gpu.module @leader {
    // LEADER-LABEL: .entry commit_to_leader(
    // The leader's group base is mapped, then offset to barrier 1.
    // LEADER: mapa.shared::cluster.u64 [[BASE:%rd[0-9]+]], {{%rd[0-9]+}}, 0;
    // LEADER: add.s64 [[LEAD:%rd[0-9]+]], [[BASE]], 8;
    // LEADER: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [[[LEAD]]];
    // LEADER: ret;
    gpu.func @commit_to_leader() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      %leader = mbarrier.remote_view %g, cta_rank 0 : !mbarrier.group<2>
      mbarrier.tcgen05_commit %leader[%c1] {cta_group = 2 : i32} : !mbarrier.remote<2>
      gpu.return
    }
  }
}
