// The PTX of a cluster pipeline written with mbarrier.pipe ops: a 2 x 1
// cluster whose CTAs each load half of a tile and multicast it along the row,
// and whose consumers release each stage to both CTAs. The producer's copy is
// the .multicast::cluster TMA form; the release is mapa + shared::cluster
// arrivals, merged at -O3 into one fence.release.cluster and relaxed.cluster
// arrivals (one per CTA of the row) after the restricted release fence (the
// consumer publishes its reads of its own stage); never the local arrive form
// on a mapped address. The checker (on by default) is silent on it.
// RUN: mbarrier-compile %s --emit ptx -o - 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not=mbarrier.arrive.shared.b64 \
// RUN:   --implicit-check-not=mbarrier.arrive.release.cluster.shared::cluster \
// RUN:   --implicit-check-not=warning --implicit-check-not=error
// Below PTX 8.6 (no restricted fence, no relaxed arrive) each remote release
// is a release.cluster arrive.
// RUN: mbarrier-compile %s --emit ptx --features=+ptx80 -o - | FileCheck %s --check-prefix=PTX80
// RUN: mbarrier-compile %s -o %t.cubin
// RUN: %python -c "import sys; assert open(sys.argv[1], 'rb').read()[:4] == b'\x7fELF'; print('cubin ok')" %t.cubin | FileCheck %s --check-prefix=CUBIN
// CUBIN: cubin ok

module attributes {gpu.container_module} {
  gpu.module @pipes {
    // CHECK-LABEL: .entry row_multicast(
    // CHECK: .reqnctapercluster 2, 1, 1
    gpu.func @row_multicast(%map: !llvm.ptr<1>, %n: index) kernel attributes {known_cluster_size = array<i32: 2, 1, 1>, known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %thirty_two = arith.constant 32 : i32
      %half = arith.constant 2048 : i32
      %tile = arith.constant 4096 : i32
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %first = arith.cmpi eq, %t, %zero : i32
      %consumer = arith.cmpi sge, %t, %thirty_two : i32
      %leader = arith.cmpi eq, %t, %thirty_two : i32
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %x = arith.muli %rank, %half : i32
      %g = mbarrier.alloc : !mbarrier.group<8>
      %buf = llvm.mlir.addressof @buffer : !llvm.ptr<3>
      %p = mbarrier.pipe.create %g : !mbarrier.group<8> -> !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
      // Full barriers count 1 (the producer), empty ones 2 (one consumer of each CTA of the row).
      // CHECK: mov.b32 [[FULL:%r[0-9]+]], 1;
      // CHECK: mbarrier.init.shared.b64 [[[BARS:%rd[0-9]+]]], [[FULL]];
      // CHECK: mbarrier.init.shared.b64 [[[BARS]]+24], [[FULL]];
      // CHECK: mov.b32 [[EMPTY:%r[0-9]+]], 2;
      // CHECK: mbarrier.init.shared.b64 [[[BARS]]+32], [[EMPTY]];
      // CHECK: mbarrier.init.shared.b64 [[[BARS]]+56], [[EMPTY]];
      scf.if %first {
        mbarrier.pipe.init %p : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
        mbarrier.fence_init
      }
      // CHECK: fence.mbarrier_init.release.cluster;
      nvvm.cluster.arrive
      nvvm.cluster.wait
      scf.if %first {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<producer>
        %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<producer> {
          // CHECK: mbarrier.try_wait.parity.acquire.cluster.shared.b64
          %slot, %next = mbarrier.pipe.acquire %p, %s : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
          // The row of a 2 x 1 cluster is both CTAs: the mask folds to 0b11.
          // CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
          // CHECK: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}}], [[[FULLBAR:%rd[0-9]+]]], [[MASK]];
          mbarrier.pipe.cp_async_bulk_tensor %p[%slot], %buf, %map[%x], bytes 2048 multicast row : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>, !llvm.ptr<1>
          // CHECK: mov.b32 [[BYTES:%r[0-9]+]], 4096;
          // CHECK: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[FULLBAR]]], [[BYTES]];
          mbarrier.pipe.commit %p[%slot], bytes %tile : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
          scf.yield %next : !mbarrier.pipe_state<producer>
        }
        // The tail: the producer waits on every empty barrier once more.
        mbarrier.pipe.tail %p, %end : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
      }
      scf.if %consumer {
        %st = mbarrier.pipe.start : !mbarrier.pipe_state<consumer>
        %end = scf.for %i = %c0 to %n step %c1 iter_args(%s = %st) -> !mbarrier.pipe_state<consumer> {
          // CHECK: mbarrier.try_wait.parity.acquire.cluster.shared.b64
          %slot, %next = mbarrier.pipe.wait %p, %s : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
          // The release publishes the consumer's reads of its own stage:
          // the restricted fence, then one relaxed arrival per CTA of the
          // row, all under the leader's branch.
          // CHECK-DAG: mapa.shared::cluster.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 0;
          // CHECK-DAG: mapa.shared::cluster.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 1;
          // CHECK: @{{!?}}%p{{[0-9]+}} bra
          // CHECK: fence.release.sync_restrict::shared::cta.cluster;
          // CHECK-NOT: {{ld|st}}.
          // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
          // CHECK-NOT: {{ld|st}}.
          // CHECK: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [{{%rd[0-9]+}}];
          // CHECK-NOT: fence.release.cluster;
          mbarrier.pipe.release %p[%slot] if %leader : !mbarrier.pipe<4, tma, cluster = [2, 1], multicast = row>
          scf.yield %next : !mbarrier.pipe_state<consumer>
        }
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      // CHECK: ret;
      gpu.return
    }
    llvm.mlir.global internal @buffer() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<16384 x i8>
  }
}
// PTX80-LABEL: .entry row_multicast(
// PTX80-NOT: fence.release
// PTX80: mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX80: mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX80-NOT: fence.release
