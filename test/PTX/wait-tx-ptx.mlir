// The PTX text of the wait forms (cluster scope, relaxed), expect_tx (local
// and through a remote view) and counted arrive_expect_tx (expect_tx, then a
// counted arrive, on the same barrier address). Scopes are written out where
// a default could differ between cluster and non-cluster kernels.
// (--no-check-sync: an instruction-form test whose kernels are not barrier
// protocols; mbarrier-check-sync is tested in test/Analysis/SyncCheck/.)
// RUN: mbarrier-compile --no-check-sync %s --emit ptx -o - | FileCheck %s
// The ptxas step (no GPU needed) accepts every form:
// RUN: mbarrier-compile --no-check-sync %s -o %t.cubin
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print('elf', d[:4] == b'\x7fELF')" %t.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: elf True

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // A cluster-scope wait is the .acquire.cluster try_wait loop on the CTA's
    // own barrier (a wait never reaches another CTA's barrier: no mapa).
    // CHECK-LABEL: .entry cluster_wait(
    // CHECK-DAG: ld.param.b32 [[PH:%r[0-9]+]], [cluster_wait_param_0];
    // CHECK-DAG: mov.b64 [[SYM:%rd[0-9]+]], __mbarrier_alloc_{{[0-9]+}};
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], [[SYM]];
    // CHECK-NOT: mbarrier.
    // CHECK: [[LOOP:\$L__BB[0-9_]+]]:
    // CHECK-NEXT: mbarrier.try_wait.parity.acquire.cluster.shared.b64 [[P:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK-NEXT: not.pred [[NP:%p[0-9]+]], [[P]];
    // CHECK-NEXT: @[[NP]] bra{{(.uni)?}} [[LOOP]];
    // CHECK-NOT: mapa
    // CHECK-NOT: shared::cluster
    // CHECK-NOT: .cta.
    // CHECK-NOT: mbarrier.try_wait.parity.shared.b64
    // CHECK: ret;
    gpu.func @cluster_wait(%phase: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      gpu.return
    }

    // A relaxed wait: .relaxed, never .acquire; the scope as written, and
    // cta where none is written in a kernel without a cluster.
    // CHECK-LABEL: .entry relaxed_waits(
    // CHECK-DAG: ld.param.b32 [[PH:%r[0-9]+]], [relaxed_waits_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: [[L1:\$L__BB[0-9_]+]]:
    // CHECK-NEXT: mbarrier.try_wait.parity.relaxed.cta.shared.b64 [[P1:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK: bra{{(.uni)?}} [[L1]];
    // CHECK: [[L2:\$L__BB[0-9_]+]]:
    // CHECK-NEXT: mbarrier.try_wait.parity.relaxed.cluster.shared.b64 [[P2:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK: bra{{(.uni)?}} [[L2]];
    // CHECK-NEXT: [[L3:\$L__BB[0-9_]+]]:
    // CHECK-NEXT: mbarrier.try_wait.parity.relaxed.cta.shared.b64 [[P3:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK: bra{{(.uni)?}} [[L3]];
    // CHECK-NOT: acquire
    // CHECK-NOT: shared::cluster
    // CHECK: ret;
    gpu.func @relaxed_waits(%phase: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase {sem = #mbarrier.sem<relaxed>} : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      mbarrier.wait %g[%c0], %phase {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cta>} : !mbarrier.group<1>
      gpu.return
    }

    // One try_wait / test_wait each: the same forms without the loop.
    // CHECK-LABEL: .entry single_tests(
    // CHECK-DAG: ld.param.b32 [[PH:%r[0-9]+]], [single_tests_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: mbarrier.try_wait.parity.acquire.cluster.shared.b64 [[A:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK-NEXT: mbarrier.test_wait.parity.relaxed.cluster.shared.b64 [[B:%p[0-9]+]], [[[BAR]]], [[PH]];
    // CHECK-NEXT: and.pred {{%p[0-9]+}}, [[A]], [[B]];
    // CHECK-NOT: bra
    // CHECK: ret;
    gpu.func @single_tests(%phase: i32, %out: !llvm.ptr<1>) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %a = mbarrier.try_wait %g[%c0], %phase {scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %b = mbarrier.test_wait %g[%c0], %phase {sem = #mbarrier.sem<relaxed>, scope = #mbarrier.scope<cluster>} : !mbarrier.group<1>
      %both = arith.andi %a, %b : i1
      llvm.store %both, %out : i1, !llvm.ptr<1>
      gpu.return
    }

    // expect_tx on the CTA's own barrier: the local relaxed form, no arrive.
    // CHECK-LABEL: .entry local_expect_tx(
    // CHECK-DAG: ld.param.b32 [[BYTES:%r[0-9]+]], [local_expect_tx_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: mbarrier.expect_tx.relaxed.cta.shared.b64 [[[BAR]]], [[BYTES]];
    // CHECK-NOT: mbarrier.arrive
    // CHECK-NOT: mapa
    // CHECK-NOT: shared::cluster
    // CHECK: ret;
    gpu.func @local_expect_tx(%bytes: i32) kernel {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.expect_tx %g[%c0], %bytes : !mbarrier.group<1>
      gpu.return
    }

    // expect_tx through a remote view: the mapa address goes into the
    // shared::cluster form (cluster scope, written or not).
    // CHECK-LABEL: .entry remote_expect_tx(
    // CHECK-DAG: ld.param.b32 [[BYTES:%r[0-9]+]], [remote_expect_tx_param_0];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], [[BAR]], 1;
    // CHECK-NEXT: mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [[[REMOTE]]], [[BYTES]];
    // CHECK-NEXT: mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [[[REMOTE]]], [[BYTES]];
    // CHECK-NOT: .shared.b64
    // CHECK-NOT: shared::cta
    // CHECK-NOT: mbarrier.arrive
    // CHECK: ret;
    gpu.func @remote_expect_tx(%bytes: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      mbarrier.expect_tx %r[%c0], %bytes {scope = #mbarrier.scope<cluster>} : !mbarrier.remote<1>
      mbarrier.expect_tx %r[%c0], %bytes : !mbarrier.remote<1>
      gpu.return
    }

    // A counted arrive_expect_tx is expect_tx then an arrive of `count`, on
    // the same address: locally the local forms, through a view the cluster
    // forms (never the single-instruction arrive.expect_tx, which has no count).
    // CHECK-LABEL: .entry counted_arrive_expect_tx(
    // CHECK-DAG: ld.param.b32 [[BYTES:%r[0-9]+]], [counted_arrive_expect_tx_param_0];
    // CHECK-DAG: ld.param.b32 [[COUNT:%r[0-9]+]], [counted_arrive_expect_tx_param_1];
    // CHECK-DAG: mov.b64 [[BAR:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK: mbarrier.expect_tx.relaxed.cta.shared.b64 [[[BAR]]], [[BYTES]];
    // CHECK-NEXT: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [[[BAR]]], [[COUNT]];
    // CHECK: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], [[BAR]], 1;
    // CHECK: mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [[[REMOTE]]], [[BYTES]];
    // CHECK-NEXT: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[REMOTE]]], [[COUNT]];
    // CHECK-NOT: mbarrier.arrive.expect_tx
    // CHECK-NOT: mbarrier.arrive.shared.b64
    // CHECK: ret;
    gpu.func @counted_arrive_expect_tx(%bytes: i32, %count: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<1>
      mbarrier.arrive_expect_tx %g[%c0], %bytes, count %count : !mbarrier.group<1>
      %r = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<1>
      mbarrier.arrive_expect_tx %r[%c0], %bytes, count %count : !mbarrier.remote<1>
      gpu.return
    }
  }
}
