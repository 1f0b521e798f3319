// A peer chosen by predicate (arith.select), by a switch (scf.index_switch)
// or inside an scf.execute_region is still a remote view: every arrival
// through it is the cluster form, down to PTX, and no local arrive appears.
// (--no-check-sync: an instruction-form test whose kernels are not barrier
// protocols; mbarrier-check-sync is tested in test/Analysis/SyncCheck/.)
// RUN: mbarrier-opt %s --pass-pipeline="builtin.module(gpu.module(convert-mbarrier-to-nvvm))" | FileCheck %s --check-prefix=NVVM \
// RUN:   --implicit-check-not=mbarrier.remote_view --implicit-check-not=mbarrier.arrive
// RUN: mbarrier-compile --no-check-sync %s --emit ptx -o - | FileCheck %s --implicit-check-not=mbarrier.arrive.shared.b64

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // NVVM-LABEL: gpu.func @choose_peer(
    // NVVM: %[[A:.*]] = llvm.insertvalue %{{.*}}[1] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: %[[B:.*]] = llvm.insertvalue %{{.*}}[1] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: %[[SEL:.*]] = arith.select %{{.*}}, %[[A]], %[[B]] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: %[[RANK:.*]] = llvm.extractvalue %[[SEL]][1]
    // NVVM: nvvm.mapa %{{.*}}, %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
    // NVVM: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %{{.*}} : (!llvm.ptr<7>) -> ()
    // NVVM: %[[SW:.*]] = scf.index_switch %{{.*}} -> !llvm.struct<(ptr<3>, i32)>
    // NVVM: scf.yield %[[A]] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: scf.yield %[[B]] : !llvm.struct<(ptr<3>, i32)>
    // NVVM: llvm.extractvalue %[[SW]][1]
    // NVVM: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %{{.*}} : (!llvm.ptr<7>) -> ()
    // NVVM: %[[ER:.*]] = scf.execute_region -> !llvm.struct<(ptr<3>, i32)>
    // NVVM: llvm.extractvalue %[[ER]][1]
    // NVVM: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "l,~{memory}" %{{.*}} : (!llvm.ptr<7>) -> ()
    // The three release.cluster arrivals (nothing between them touches
    // memory) share one fence (mbarrier-merge-release-fences).
    // CHECK-LABEL: .entry choose_peer(
    // CHECK: fence.release.cluster;
    // CHECK: mapa.shared::cluster.u64 [[A1:%rd[0-9]+]]
    // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [[[A1]]]
    // CHECK: mapa.shared::cluster.u64 [[A2:%rd[0-9]+]]
    // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [[[A2]]]
    // CHECK: mapa.shared::cluster.u64 [[A3:%rd[0-9]+]]
    // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [[[A3]]]
    gpu.func @choose_peer(%p: i1, %k: index) kernel attributes {known_cluster_size = array<i32: 4, 1, 1>} {
      %i = arith.constant 0 : index
      %g = mbarrier.alloc : !mbarrier.group<2>
      %a = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<2>
      %b = mbarrier.remote_view %g, cta_rank 2 : !mbarrier.group<2>
      %r = arith.select %p, %a, %b : !mbarrier.remote<2>
      mbarrier.arrive %r[%i] : !mbarrier.remote<2>
      %s = scf.index_switch %k -> !mbarrier.remote<2>
      case 0 {
        scf.yield %a : !mbarrier.remote<2>
      }
      default {
        scf.yield %b : !mbarrier.remote<2>
      }
      mbarrier.arrive %s[%i] : !mbarrier.remote<2>
      %e = scf.execute_region -> !mbarrier.remote<2> {
        scf.yield %a : !mbarrier.remote<2>
      }
      mbarrier.arrive %e[%i] : !mbarrier.remote<2>
      gpu.return
    }
  }
}
