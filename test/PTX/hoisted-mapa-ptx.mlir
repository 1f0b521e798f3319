// A remote arrival with a run-time stage index: the lowering maps the
// group's base (mapa(base + 8*i) == mapa(base) + 8*i) and indexes the mapped
// pointer, so the mapa of the loop-invariant view leaves the loop and only
// the offset is computed per iteration. The count-less arrive takes the
// offset address.
// RUN: mbarrier-compile %s --emit ptx -o - | FileCheck %s
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s --check-prefix=NVVM

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // NVVM-LABEL: gpu.func @stage_loop(
    // NVVM: scf.for
    // NVVM: %[[BASE:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: %[[RANK:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: %[[MB:.*]] = nvvm.mapa %[[BASE]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
    // NVVM-NEXT: %[[A:.*]] = llvm.getelementptr %[[MB]][%{{.*}}] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i64
    // NVVM-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %[[A]]

    // CHECK-LABEL: .entry stage_loop(
    // No label (no loop) before the mapa:
    // CHECK-NOT: {{^\$L__BB[0-9_]+:}}
    // CHECK: mapa.shared::cluster.u64 [[MB:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
    // CHECK: {{^\$L__BB[0-9_]+:}}
    // CHECK-NOT: mapa
    // CHECK: add.s64 [[A:%rd[0-9]+]], [[MB]], {{%rd[0-9]+}};
    // CHECK-NOT: mapa
    // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [[[A]]];
    // CHECK-NOT: mapa
    // CHECK: mbarrier.try_wait.parity.acquire.cluster.shared.b64
    // CHECK-NOT: mapa
    // CHECK: ret;
    gpu.func @stage_loop(%n: i32) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %one = arith.constant 1 : i32
      %g = mbarrier.alloc : !mbarrier.group<4>
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.xori %rank, %one : i32
      %r = mbarrier.remote_view %g, %peer : !mbarrier.group<4>
      %ub = arith.index_cast %n : i32 to index
      scf.for %iv = %c0 to %ub step %c1 {
        %stage = arith.remui %iv, %c4 : index
        mbarrier.arrive %r[%stage] {sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<4>
        mbarrier.wait %g[%stage], %one : !mbarrier.group<4>
      }
      gpu.return
    }
  }
}
