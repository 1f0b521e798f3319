// The PTX text of every sensitive form. Remote views and `on %cta` arrivals
// become mapa.shared::cluster + the shared::cluster arrive forms; the local
// instruction forms must never appear for them. Local arrivals stay local.
// The remote kernels are a module of their own, so that the whole of its PTX
// (not only what follows the last positive match) is checked for every local
// state-space form: .shared.b64 (mbarrier.arrive.shared.b64,
// mbarrier.arrive.expect_tx.shared.b64, ...) and .shared::cta.b64.
// (--no-check-sync: an instruction-form test whose kernels are not barrier
// protocols; mbarrier-check-sync is tested in test/Analysis/SyncCheck/.)
// RUN: mbarrier-compile --no-check-sync %s --emit ptx --module remote -o - | FileCheck %s \
// RUN:   --implicit-check-not=mbarrier.arrive.shared.b64 \
// RUN:   --implicit-check-not=mbarrier.arrive.expect_tx.shared.b64 \
// RUN:   --implicit-check-not=.shared.b64 --implicit-check-not=.shared::cta.b64
// RUN: mbarrier-compile --no-check-sync %s --emit ptx --module local -o - | FileCheck %s --check-prefix=LOCAL \
// RUN:   --implicit-check-not=mapa --implicit-check-not=shared::cluster
// The ptxas step (no GPU needed): one cubin per gpu.module, each an ELF file.
// RUN: mbarrier-compile --no-check-sync %s -o %t.cubin
// RUN: %python -c "import sys; data = [open(p, 'rb').read() for p in sys.argv[1:]]; assert all(d[:4] == b'\x7fELF' for d in data), [d[:4] for d in data]; print('cubins', len(data))" %t.remote.cubin %t.local.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: cubins 2

module attributes {gpu.container_module} {
  gpu.module @remote {
    // CHECK-LABEL: .entry remote_forms(
    // CHECK: .reqnctapercluster 2, 1, 1
    // A store between release arrivals keeps each one a release (the
    // pipeline merges consecutive ones: merge-release-fences-ptx.mlir).
    gpu.func @remote_forms(%count: i32, %bytes: i32, %pred: i1, %out: !llvm.ptr<1>) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<1>
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.xori %rank, %one : i32
      %r = mbarrier.remote_view %g, %peer : !mbarrier.group<1>
      // An arrive of count 1 is the count-less form (ptxas: SYNCS.ARRIVE...A1T0,
      // not the counted ART0 with the count in a register).
      // CHECK: mapa.shared::cluster.u64 [[ADDR:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
      // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[ADDR]]];
      mbarrier.arrive %r[%c0] : !mbarrier.remote<1>
      llvm.store %count, %out : i32, !llvm.ptr<1>
      // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[ADDR]]], [[COUNT:%r[0-9]+]];
      mbarrier.arrive %r[%c0], count %count : !mbarrier.remote<1>
      // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [[[ADDR]]];
      mbarrier.arrive %r[%c0] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<1>
      // CHECK: mbarrier.arrive.shared::cluster.b64 _, [[[ADDR]]];
      mbarrier.arrive %r[%c0] {scope = #mbarrier.scope<cta>} : !mbarrier.remote<1>
      // CHECK: mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [[[ADDR]]], {{%r[0-9]+}};
      mbarrier.arrive_expect_tx %r[%c0], %bytes : !mbarrier.remote<1>
      llvm.store %bytes, %out : i32, !llvm.ptr<1>
      // A predicated count-less remote arrival is a predicated instruction,
      // a counted one a branch around the cluster form.
      // CHECK-NOT: bra
      // CHECK: @%p{{[0-9]+}} mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[ADDR]]];
      mbarrier.arrive %r[%c0] if %pred : !mbarrier.remote<1>
      llvm.store %count, %out : i32, !llvm.ptr<1>
      // CHECK: @{{!?}}%p{{[0-9]+}} bra
      // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[ADDR]]], [[COUNT]];
      mbarrier.arrive %r[%c0], count %count if %pred : !mbarrier.remote<1>
      // CHECK-NOT: mbarrier.arrive.shared.b64
      // CHECK-NOT: mbarrier.arrive.expect_tx.shared.b64
      // CHECK-NOT: fence.release
      // CHECK: ret;
      gpu.return
    }

    // CHECK-LABEL: .entry on_cta_forms(
    gpu.func @on_cta_forms(%cta: i32) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %c1 = arith.constant 1 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      // The group's base is mapped, then offset by 8 * index.
      // CHECK: mapa.shared::cluster.u64 [[B2:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
      // CHECK: add.s64 [[A2:%rd[0-9]+]], [[B2]], 8;
      // CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[A2]]];
      mbarrier.arrive %g[%c1] on %cta : !mbarrier.group<2>
      // CHECK-NOT: mbarrier.arrive.shared.b64
      // CHECK: ret;
      gpu.return
    }
  }

  gpu.module @local {
    // LOCAL-LABEL: .entry local_forms(
    gpu.func @local_forms(%count: i32, %bytes: i32, %phase: i32) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<1>
      // The barrier's address sits in a register, computed once.
      // LOCAL: mov.b64 [[SYM:%rd[0-9]+]], __mbarrier_alloc_{{[0-9]+}};
      // LOCAL: mov.b64 [[BAR:%rd[0-9]+]], [[SYM]];
      // LOCAL: mbarrier.init.shared.b64 [[[BAR]]], {{%r[0-9]+}};
      mbarrier.init %g[%c0], %one : !mbarrier.group<1>
      // LOCAL: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [[[BAR]]];
      mbarrier.arrive %g[%c0] : !mbarrier.group<1>
      // LOCAL: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [[[BAR]]], {{%r[0-9]+}};
      mbarrier.arrive %g[%c0], count %count : !mbarrier.group<1>
      // LOCAL: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[BAR]]], {{%r[0-9]+}};
      mbarrier.arrive_expect_tx %g[%c0], %bytes : !mbarrier.group<1>
      // LOCAL: [[LOOP:\$L__BB[0-9_]+]]:
      // LOCAL: mbarrier.try_wait.parity.shared.b64 [[P:%p[0-9]+]], [[[BAR]]], {{%r[0-9]+}};
      // LOCAL: bra{{(.uni)?}} [[LOOP]];
      mbarrier.wait %g[%c0], %phase : !mbarrier.group<1>
      // LOCAL: mbarrier.inval.shared.b64 [[[BAR]]];
      mbarrier.inval %g[%c0] : !mbarrier.group<1>
      // LOCAL-NOT: mapa
      // LOCAL-NOT: shared::cluster
      // LOCAL: ret;
      gpu.return
    }
  }
}
