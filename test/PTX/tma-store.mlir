// The TMA store has no mbarrier op of its own: it is the NVVM dialect's
// (docs/pipelines.md, "The TMA store"). What lang's StorePipeline builds —
// the proxy fence before the store, the store from shared::cta to global,
// one bulk async-group per store, the wait for reads with its N — reaches
// the PTX in that order.
// RUN: mbarrier-compile %s --emit ptx -o - | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:

// CHECK-LABEL: .entry store_ring(
gpu.module @m {
  llvm.mlir.global internal @staging() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
  gpu.func @store_ring(%map: !llvm.ptr, %n: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i64 = arith.constant 64 : i32
    %i4096 = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %base = llvm.mlir.addressof @staging : !llvm.ptr<3>
    scf.for %t = %i0 to %n step %i1 : i32 {
      %s = arith.remui %t, %i2 : i32
      %off = arith.muli %s, %i4096 : i32
      %buf = llvm.getelementptr %base[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      scf.if %leader {
        // The store that read this buffer two tiles ago is done reading.
        nvvm.cp.async.bulk.wait_group 1 {read}
      }
      nvvm.barrier0
      %v = arith.muli %t, %i2 : i32
      llvm.store %v, %buf : i32, !llvm.ptr<3>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      scf.if %leader {
        %row = arith.muli %t, %i64 : i32
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        nvvm.cp.async.bulk.tensor.global.shared.cta %map, %buf, box[%i0, %row] : !llvm.ptr, !llvm.ptr<3>
        nvvm.cp.async.bulk.commit.group
      }
    }
    scf.if %leader {
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: bar.sync 0;
// CHECK: st.shared.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 0;
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NOT: st.shared
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.{{(tile.)?}}bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 0;
